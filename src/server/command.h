// The command table: one declarative row per command, read by the dispatcher and by COMMAND.
//
// A row names the command, its arity (N exact, -N at least N, counting the name), typed flags,
// the legacy key positions (first, last, step; last -1 = up to the last argument) used by
// COMMAND INFO/GETKEYS and by anything that needs a command's keys, its ACL categories, its
// documentation and key specs (CommandDoc, server/command_docs.h), optional hooks, and the
// handler. Container commands (CLIENT, CONFIG, OBJECT ...) carry a table of subcommands with
// rows of their own; their arity counts the container name too ("config|get" has arity -3).
//
// The dispatcher and the script engine decide from a row's properties, never from its name:
// kCmdNoAuth, kCmdNoMulti, kCmdWrite/kCmdMayReplicate (CLIENT PAUSE, MONITOR connections),
// kCmdSkipSlowlog/SkipMonitor, kCmdRunsInMulti for the commands that MULTI does not queue,
// kCmdAbortsMultiOnReject for EXEC, kCmdSubscribedContext for RESP2's subscribed mode,
// kCmdLoading (served while a dataset loads), kCmdAllowBusy (served while a script is busy),
// kCmdDenyOom (refused past maxmemory, also from a script) and kCmdNoScript (refused from a
// script); a row whose arguments must not reach SLOWLOG or MONITOR in clear names a `redact`
// function.
//
// Each command family lives in src/commands/<family>.cc and exports
// `void RegisterXxxCommands(CommandTable&)`, called explicitly by the server at startup. Names
// are unique: registering a name twice (or a container with two subcommands of one name) is an
// error the server reports before it starts serving.
#pragma once

#include <cstdint>
#include <deque>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "server/command_docs.h"
#include "util/latency_histogram.h"
#include "util/status.h"

namespace redistp {

class Server;
class Client;
class Database;
class ReplyBuilder;
class Propagator;
struct CommandSpec;

// Who is running a command: a client's own request, a command queued by MULTI and run by
// EXEC, or a script's redis.call / redis.pcall. Set by the one admission gate.
enum class ExecOrigin : uint8_t { kClient, kMulti, kScript };

// What a handler sees. args[0] is the command name as the client sent it.
struct CommandContext {
  Server& server;
  Client& client;
  Database& db;
  const std::vector<std::string_view>& args;
  ReplyBuilder& reply;
  const CommandSpec& spec;
  Propagator& propagation;
  ExecOrigin origin = ExecOrigin::kClient;

  // Propagation (src/server/propagation.h): a write is replayed as its own arguments unless
  // the handler says otherwise here. ReplicateAs takes effect only if the command wrote.
  void ReplicateAs(std::initializer_list<std::string_view> argv);
  void ReplicateAs(std::vector<std::string> argv);
  void ReplicateNothing();
  void ForceReplication();
};

using CommandHandler = void (*)(CommandContext& ctx);

// Command flags (COMMAND INFO names them in lower case).
enum CommandFlag : uint64_t {
  kCmdWrite = 1ULL << 0,
  kCmdReadOnly = 1ULL << 1,
  kCmdDenyOom = 1ULL << 2,
  kCmdAdmin = 1ULL << 3,
  kCmdPubSub = 1ULL << 4,
  kCmdNoScript = 1ULL << 5,
  kCmdBlocking = 1ULL << 6,
  kCmdLoading = 1ULL << 7,
  kCmdStale = 1ULL << 8,
  kCmdSkipMonitor = 1ULL << 9,
  kCmdSkipSlowlog = 1ULL << 10,
  kCmdFast = 1ULL << 11,
  kCmdNoAuth = 1ULL << 12,
  kCmdMayReplicate = 1ULL << 13,
  kCmdNoMandatoryKeys = 1ULL << 14,
  kCmdProtected = 1ULL << 15,
  kCmdNoAsyncLoading = 1ULL << 16,
  kCmdNoMulti = 1ULL << 17,
  kCmdMovableKeys = 1ULL << 18,
  kCmdAllowBusy = 1ULL << 19,
  kCmdSentinel = 1ULL << 20,
  kCmdAsking = 1ULL << 21,  // RESTORE-ASKING: accepted on a cluster node importing the slot
  // Ours, never reported by COMMAND INFO (Redis decides these by comparing handlers):
  // inside MULTI the command runs at once instead of being queued (EXEC, DISCARD, MULTI, WATCH,
  // QUIT, RESET) ...
  kCmdRunsInMulti = 1ULL << 40,
  // ... and when the dispatcher rejects it inside MULTI (arity, auth ...), the transaction is
  // aborted at once instead of being marked failed (EXEC).
  kCmdAbortsMultiOnReject = 1ULL << 41,
  // ... and it may run while a RESP2 connection is in Pub/Sub subscribed mode ((P|S)SUBSCRIBE,
  // (P|S)UNSUBSCRIBE, PING, QUIT, RESET); every other command is refused there.
  kCmdSubscribedContext = 1ULL << 42,
};

// ACL categories (COMMAND INFO shows them as "@name").
enum AclCategory : uint64_t {
  kAclKeyspace = 1ULL << 0,
  kAclRead = 1ULL << 1,
  kAclWrite = 1ULL << 2,
  kAclSet = 1ULL << 3,
  kAclSortedSet = 1ULL << 4,
  kAclList = 1ULL << 5,
  kAclHash = 1ULL << 6,
  kAclString = 1ULL << 7,
  kAclBitmap = 1ULL << 8,
  kAclHyperLogLog = 1ULL << 9,
  kAclGeo = 1ULL << 10,
  kAclStream = 1ULL << 11,
  kAclPubSub = 1ULL << 12,
  kAclAdmin = 1ULL << 13,
  kAclFast = 1ULL << 14,
  kAclSlow = 1ULL << 15,
  kAclBlocking = 1ULL << 16,
  kAclDangerous = 1ULL << 17,
  kAclConnection = 1ULL << 18,
  kAclTransaction = 1ULL << 19,
  kAclScripting = 1ULL << 20,
};

struct CommandStats {
  uint64_t calls = 0;
  uint64_t usec = 0;
  uint64_t rejected_calls = 0;
  uint64_t failed_calls = 0;
  // Execution times while latency-tracking is on (INFO latencystats, LATENCY HISTOGRAM).
  LatencyHistogram latency;
};

// Hides secrets (AUTH's password, HELLO's AUTH pair) in `shown`, the copy of a command line
// SLOWLOG and MONITOR are about to record, by pointing the secret arguments at kRedactedArg.
// `shown` starts equal to the command line, args[0] being the command name.
using ArgRedactor = void (*)(std::vector<std::string_view>& shown);
inline constexpr std::string_view kRedactedArg = "(redacted)";

// The flags of one invocation of a command whose flags depend on its arguments: EVAL's shebang,
// EVALSHA's cached script, FCALL's function (a script that declares no-writes neither writes
// nor may replicate). `flags` is the row's. Read by the CLIENT PAUSE WRITE rule.
using InvocationFlags = uint64_t (*)(Server& server, const std::vector<std::string_view>& args,
                                     uint64_t flags);

// A newer server's option that Redis 7.0's arity refuses (ZRANK key member WITHSCORE, Redis
// 7.2). The row keeps 7.0's arity, which COMMAND INFO reports and which refuses every other
// shape exactly as 7.0 does (at admission: EXECABORT in MULTI, the script's arity error); the
// widening admits the newer shape alone. `args` is the whole line (args[0] the command name).
// Asked only after the arity refused, so the common path pays nothing for it.
using ArityWidening = bool (*)(const std::vector<std::string_view>& args);

struct CommandSpec {
  std::string name;  // lower case; for a subcommand just the subcommand ("get")
  int arity = 0;
  ArityWidening widen_arity = nullptr;
  uint64_t flags = 0;
  int first_key = 0;
  int last_key = 0;
  int key_step = 0;
  uint64_t acl = 0;
  CommandDoc doc;
  ArgRedactor redact = nullptr;
  CommandHandler handler = nullptr;
  InvocationFlags invocation_flags = nullptr;  // nullptr: every invocation has `flags`
  std::vector<CommandSpec> subcommands;
  // Subcommands that are records of the propagation stream (SESSION CREATE/OWN/DROP), not
  // commands: the dispatcher finds them only for the AOF's loader (and the replication link),
  // and for everyone else they do not exist (unknown subcommand). COMMAND never lists them.
  std::vector<CommandSpec> internal_subcommands;

  // Filled in by the table.
  std::string full_name;  // "config|get"
  uint32_t id = 0;        // dense, unique in its table: the ACL's command bitmaps index it
  const CommandSpec* parent = nullptr;
  mutable CommandStats stats;

  const CommandSpec* FindSubcommand(std::string_view name) const;
  const CommandSpec* FindInternalSubcommand(std::string_view name) const;
};

// Whether a line of `args.size()` words (the name counted) fits the row's arity (N exact, -N at
// least N) or its widening: the one arity rule of admission, COMMAND GETKEYS, ACL DRYRUN and
// redis.acl_check_cmd.
bool ArityAdmits(const CommandSpec& spec, const std::vector<std::string_view>& args);

class CommandTable {
 public:
  // Adds a top-level row (with its subcommands). Fails, leaving the table unchanged, when the
  // name (case-insensitively) is already registered or two of its subcommands share a name.
  // The first failure is also remembered in first_error(), so a family can register row after
  // row and the caller of all families checks once.
  Status Register(CommandSpec spec);
  const Status& first_error() const { return first_error_; }
  // Case-insensitive lookup of a top-level command by the name clients call it by (a
  // rename-command's new name); nullptr if unknown.
  const CommandSpec* Find(std::string_view name) const;
  // The same by the command's own name, whatever rename-command did, removed commands too:
  // ACL rules name commands so, as Redis's look them up in its table of original commands.
  const CommandSpec* FindByOwnName(std::string_view name) const;
  // Every top-level command, in registration order.
  const std::vector<std::unique_ptr<CommandSpec>>& all() const { return commands_; }
  size_t size() const { return commands_.size(); }
  // One more than the largest CommandSpec::id given out (rows and subcommands).
  uint32_t id_count() const { return next_id_; }

  // redis.conf's `rename-command <from> <to>`: the command found by the name `from` answers to
  // `to` from now on (it keeps its own name in COMMAND, INFO and the ACL, as in Redis); an
  // empty `to` removes it (it leaves every listing; its row stays alive, unreachable). Errors
  // are Redis's config-file texts; the table is unchanged then.
  Status Rename(std::string_view from, std::string_view to);

 private:
  // A slot of the name table: the name a command is looked up by (its own, or the one a
  // rename-command gave it) and the command.
  struct Slot {
    std::string_view name;
    const CommandSpec* spec = nullptr;
  };
  // Case-insensitive FNV-1a of a name; the slot table below is indexed by it.
  static uint64_t HashName(std::string_view name);
  void Insert(std::string_view name, const CommandSpec* spec);

  std::vector<std::unique_ptr<CommandSpec>> commands_;
  // Open addressing with linear probing, a power-of-two size kept at most a quarter full: the
  // dispatcher looks a name up for every request, and a short probe over a flat array costs
  // a fraction of a node-based map's lookup.
  std::vector<Slot> slots_;
  // The slot Find found last: a pipeline, or a client's loop, asks for the same name again and
  // again, and comparing the name against it costs less than hashing and probing. Cleared
  // whenever the slots change.
  mutable Slot last_hit_;
  // Names given by rename-command (a deque: the slots' views of them stay valid) and the rows
  // removed by a rename to "" (kept alive: ids and pointers to them must not dangle).
  std::deque<std::string> renamed_names_;
  std::vector<std::unique_ptr<CommandSpec>> removed_;
  Status first_error_;
  uint32_t next_id_ = 0;
};

}  // namespace redistp
