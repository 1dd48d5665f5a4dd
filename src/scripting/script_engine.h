// ScriptEngine: Lua scripting as Redis 7.0 has it (EVAL and friends; functions build on it).
//
// Model. One Lua state serves every EVAL script (lua_env.h builds it: Redis 7.0's libraries,
// the `redis` table, read-only globals). A script's body is compiled once into a function kept
// in the Lua registry under its SHA1 (the cache SCRIPT LOAD/EXISTS/FLUSH manage); EVAL compiles
// and caches, EVALSHA only looks up. Running a script sets the globals KEYS and ARGV, calls the
// function under an error handler that records where the error was raised, and writes the
// value it returns to the caller's reply (lua_reply.h).
//
// Commands the script runs (redis.call/pcall) go through the server's one admission gate,
// Server::Execute, on the engine's own client: a Client with no socket whose database follows
// SELECT inside the script and whose protocol follows redis.setresp. Its `script_caller` is the
// calling connection, so commands that act for a session (SETTP, DELTP, OBJECT OWNER, client
// tracking) act for the caller: a key a script SETTPs is the caller's and goes when it leaves.
// Before the gate the engine applies the checks Redis applies to script calls, in its order:
// unknown command, arity, `noscript` commands, writes from read-only scripts (EVAL_RO, FCALL_RO,
// `no-writes`), and the OOM rule. Each reply is read back from the client's buffer as a Lua
// value. Because every command runs inside the script's own command (EVAL's frame), the
// propagation stream gets the script's effects, wrapped in MULTI/EXEC when more than one
// (server/propagation.h), and EVAL itself is never propagated.
//
// One script runs at a time; scripts do not nest (EVAL is `noscript`). `running()` describes the
// running one for the busy-script machinery and SCRIPT KILL. A script that runs past
// busy-reply-threshold makes the server busy (server/busy.cc): from then on the hook serves the
// other connections, which get BUSY for everything but SCRIPT KILL / FUNCTION KILL, SHUTDOWN
// NOSAVE and the few allow-busy commands, until the script ends, is killed (if it has not
// written) or the server shuts down.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "scripting/lua_debugger.h"
#include "server/command.h"
#include "server/server.h"
#include "util/status.h"

struct lua_State;
struct lua_Debug;

namespace redistp {

// Script flags: the shebang's `flags=` (EVAL) or register_function's flags (functions).
enum ScriptFlag : uint32_t {
  kScriptNoWrites = 1u << 0,
  kScriptAllowOom = 1u << 1,
  kScriptAllowStale = 1u << 2,
  kScriptNoCluster = 1u << 3,
  kScriptAllowCrossSlotKeys = 1u << 4,
  // An EVAL script without a shebang: Redis's pre-7.0 rules (it may write unless run with
  // EVAL_RO; the OOM check applies to its first write, not to the whole script).
  kScriptEvalCompat = 1u << 8,
};

// redis.set_repl targets.
enum ScriptRepl : int { kReplNone = 0, kReplAof = 1, kReplReplica = 2, kReplAll = 3 };

// The script being run (at most one).
struct ScriptRun {
  Client* caller = nullptr;
  uint32_t flags = 0;
  bool read_only = false;  // EVAL_RO / FCALL_RO, or the no-writes flag
  bool is_eval = true;     // EVAL family; false for FCALL (BUSY and KILL texts differ)
  // What error traces name: "script: <name>, on @<chunk>:<line>." (sha or function name).
  std::string name;
  int64_t start_ms = 0;
  bool wrote = false;           // a write command ran: SCRIPT KILL may no longer stop it
  bool kill_requested = false;  // SCRIPT KILL / FUNCTION KILL asked to stop it
  int resp = 2;                 // redis.setresp
  int repl = kReplAll;          // redis.set_repl
  int slot = -1;                // cluster mode: the slot of the keys used so far (-1: none)
};

// The server's scripting subsystem (server/subsystem.h). Its hooks serve the Lua debugger
// (scripting/lua_debugger.h): cron reaps forked debugging sessions, stop kills them, a closing
// connection forgets its SCRIPT DEBUG mode.
class ScriptEngine : public Subsystem {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kScripting;

  explicit ScriptEngine(Server& server);
  ~ScriptEngine() override;
  ScriptEngine(const ScriptEngine&) = delete;
  ScriptEngine& operator=(const ScriptEngine&) = delete;

  // The server's engine, created and attached on first use.
  static ScriptEngine& Of(Server& server);

  void Cron() override;
  void Stop() override;
  void OnClientClose(Client& c) override;

  // SCRIPT DEBUG and the debugging sessions it starts.
  LuaDebugger& debugger() { return debugger_; }
  uint64_t debugger_forks() const { return debugger_.forks(); }

  // EVAL / EVALSHA / EVAL_RO / EVALSHA_RO: args are "eval" body|sha numkeys key... arg...
  void Eval(CommandContext& ctx, bool by_sha, bool read_only);
  // The admission of a script call by the flags its script or function declares, before
  // anything else of the call (Redis's processCommand judges it so): OOM unless no-writes or
  // allow-oom, MISCONF and NOREPLICAS unless no-writes. A script without a shebang
  // (kScriptEvalCompat) passes. Replies the refusal and returns false.
  bool AdmitDeclared(uint32_t flags, ReplyBuilder& reply);
  // Cluster mode: the slot of the call's declared keys (args[3], the first; the admission gate
  // checked they share one), which a script without allow-cross-slot-keys must keep to; -1
  // without keys or cluster mode.
  int DeclaredSlot(const std::vector<std::string_view>& args, size_t numkeys) const;
  // SCRIPT LOAD: compiles and caches `body`; its SHA1 (lower-case hex) or the compile error.
  Result<std::string> Load(std::string_view body);
  bool Exists(std::string_view sha) const;
  // SCRIPT SHOW (Valkey 8.0): the body of the cached script `sha` (any case, as EVALSHA reads
  // it), exactly as it was sent, shebang included; nullptr when it is not cached.
  const std::string* Body(std::string_view sha) const;
  // The flags the cached script `sha` declared (kScriptEvalCompat without a shebang); false when
  // it is not cached. For the CLIENT PAUSE rule (commands/script_rows.h).
  bool CachedFlags(std::string_view sha, uint32_t* flags) const;
  // SCRIPT FLUSH: forgets every cached script (and starts a fresh Lua state, as Redis does).
  void Flush();

  // INFO: number_of_cached_scripts, used_memory_scripts (the cache's bookkeeping: bodies and
  // entries), used_memory_lua (the Lua state's heap).
  size_t cached_scripts() const { return scripts_.size(); }
  size_t cache_memory() const { return cache_bytes_; }
  size_t lua_memory() const;

  // The EVAL scripts' Lua state (tests: tests/fuzz/lua_fuzz.cc makes its allocations fail).
  lua_State* lua_state() const { return lua_; }

  // The running script, or nullptr.
  ScriptRun* running() { return running_ ? &run_ : nullptr; }
  // SCRIPT KILL (eval) / FUNCTION KILL (!eval): asks the running script to stop at its next
  // hook. Errors: NOTBUSY (none running), UNKILLABLE (it wrote), BUSY (the other kind runs).
  Status Kill(bool eval);

  // --- for the redis.* functions (lua_env.cc) and the functions engine --------------------
  Server& server() { return server_; }
  // redis.call (raise = true) / redis.pcall: runs the command whose arguments are on the Lua
  // stack and leaves its reply (or the error table) on the stack; returns the Lua result count
  // or raises the error (call).
  int CallFromLua(lua_State* L, bool raise);
  // redis.acl_check_cmd: whether the script's caller's user may run the command whose arguments
  // are on the Lua stack (its keys and channels included); pushes a boolean or raises the
  // error. Asks the ACL without logging (a question is no refusal).
  int AclCheckFromLua(lua_State* L);
  // Runs the function on top of L's stack with `nargs` arguments below it... as the running
  // script described by `run` for the command in `ctx`: sets up the script client, calls it
  // under the error handler, writes its result or error to ctx.reply, tears down. `chunk` names
  // the source in error traces ("user_script", "user_function").
  void RunScript(CommandContext& ctx, lua_State* L, int nargs, ScriptRun run);
  // Reads the numkeys of EVAL/EVALSHA/FCALL and their _RO forms (args[2]), in Redis 7.0's order:
  // not an integer (answered with `not_integer`, which EVAL and FCALL word differently), more
  // than the arguments after it, negative. On failure replies the error and returns false.
  static bool ParseNumKeys(const std::vector<std::string_view>& args, std::string_view not_integer,
                           ReplyBuilder& reply, size_t* numkeys);
  // Builds KEYS and ARGV from args[first ..] (`keys` of them keys) in a protected call: as the
  // globals KEYS and ARGV (EVAL), or as two tables pushed on L's stack (FCALL). On failure (Lua
  // out of memory) replies the error and returns false.
  bool PushKeysAndArgs(lua_State* L, const std::vector<std::string_view>& args, size_t first,
                       size_t keys, bool as_globals, ReplyBuilder& reply);
  // For the instruction hook of every Lua state RunScript runs functions of (the EVAL state's
  // is Hook below; the functions engine's hook calls it while no library is loading). Past
  // busy-reply-threshold it logs Redis's slow-script warning and makes the server busy (a
  // Server::BusyPeriod), then at each call serves the other connections, and raises the
  // kill error if SCRIPT KILL / FUNCTION KILL asked for it or SHUTDOWN NOSAVE was served; from
  // then on L's hook runs at every line until the script ends (pcall cannot keep it alive).
  void Interrupt(lua_State* L);

 private:
  // Keyed by the 40 lower-case hex digits, stored inline (no heap string per script).
  struct ShaKey {
    char hex[40];
    bool operator==(const ShaKey& o) const;
  };
  struct ShaKeyHash {
    size_t operator()(const ShaKey& k) const;
  };
  // The compiled function lives in the Lua registry (ref). The body is kept for SCRIPT SHOW
  // alone (with effects replication nothing else reads it again); Redis keeps it too, and
  // counts it in used_memory_scripts as we do.
  struct CachedScript {
    int ref = 0;
    uint32_t flags = 0;  // from the shebang
    std::string body;
  };

  // EVAL of a connection that asked for SCRIPT DEBUG: starts the session (forking for YES),
  // runs the script through Eval with the debugger's line hook, ends the session, and closes
  // the connection after the reply (a forked child writes it and exits).
  void DebugEval(CommandContext& ctx, bool by_sha, bool read_only, LuaDebugger::Mode mode);
  // Compiles `body` (after the shebang check) and caches it under `key`.
  Result<const CachedScript*> Compile(const ShaKey& key, std::string_view body);
  const CachedScript* Find(std::string_view sha) const;
  void CreateState();
  // Called by Lua every kHookInstructions instructions of an EVAL script (at every line once
  // the script is being stopped): Interrupt.
  static void Hook(lua_State* L, lua_Debug* ar);
  void CloseState();
  // Replies the script's error table at the top of L's stack (left there).
  void WriteErrorReply(lua_State* L, ReplyBuilder& reply);

  Server& server_;
  LuaDebugger debugger_;
  lua_State* lua_ = nullptr;
  std::unordered_map<ShaKey, CachedScript, ShaKeyHash> scripts_;
  size_t cache_bytes_ = 0;
  std::unique_ptr<Client> client_;  // runs the scripts' commands
  bool running_ = false;
  ScriptRun run_;
  // Engaged once the running script passed busy-reply-threshold: the server is busy
  // (server/busy.cc) until the script ends. A member, not a local of the hook, which longjmps.
  std::optional<Server::BusyPeriod> busy_;
  std::string reply_scratch_;
  std::vector<std::string_view> args_;  // redis.call's arguments (views into Lua strings) ...
  std::vector<std::string> num_args_;   // ... and the text of its number arguments
  int gc_count_ = 0;
  // The state whose hook runs at every line (a script being stopped), and its hook's settings
  // before, restored when the script ends.
  lua_State* line_hook_ = nullptr;
  int saved_hook_mask_ = 0;
  int saved_hook_count_ = 0;
};

// Lower-case hex SHA1 of `data` (script names; redis.sha1hex).
std::string Sha1Hex(std::string_view data);

// Parses a script's first line when it starts with "#!": "#!lua [flags=a,b]". Without a
// shebang the flags are kScriptEvalCompat. `code_start` is where the Lua code begins (the
// newline ending the shebang, so line numbers stay those of the body).
Status ParseShebang(std::string_view body, uint32_t* flags, size_t* code_start);
// One flag name of a shebang or of register_function ("no-writes" ...); 0 if unknown.
uint32_t ScriptFlagByName(std::string_view name);

}  // namespace redistp
