// Command documentation and key specifications: the part of a command's row (server/command.h)
// behind COMMAND DOCS, the key-spec half of COMMAND INFO, and COMMAND GETKEYS/GETKEYSANDFLAGS.
//
// Every row carries a CommandDoc next to its arity, flags and handler, written in the family file
// that registers the command, so a command is described in exactly one place. The versions,
// groups, complexities, argument trees and key specs are transcribed from what a running Redis
// 7.0 reports; summaries and history notes are our own words. What a CommandDoc holds:
//
//   - documentation: summary, since-version, group, complexity, deprecation, history, and the
//     argument tree (name, type, token, optional/multiple flags, nested oneof/block groups) that
//     redis-cli turns into its inline hints;
//   - command tips ("nondeterministic_output", "request_policy:all_shards", ...);
//   - key specifications: where the keys begin (an argument index or after a keyword) and how
//     to find the rest (a range or a key count), plus what the command does to each key (RO,
//     RW, OW, RM and the access/update/insert/delete refinements).
//
// Key search (FindKeys) is one function over a row with two modes, because Redis 7.0 has two
// searches that differ on purpose for a malformed line:
//   - kSpecs (COMMAND GETKEYS/GETKEYSANDFLAGS, the ACL's key checks) walks the key specs; when
//     they cannot say (an unknown or incomplete spec, a key count that is not a strict
//     positive integer, a key past the end of the line) it asks the row's key procedure
//     instead, and finds nothing when the row has none;
//   - kProcedure (tracking: what the command will really read) asks the row's key procedure
//     (Redis's getkeys procedure: a key count read as C's atoi does, STORE found anywhere),
//     else the legacy first/last/step triple, none of it when a position falls past the end.
// So "ZUNIONSTORE dst 1e3 a b" has keys a, dst by the procedure, which the specs also give
// (they cannot read "1e3"), while "ZUNIONSTORE dst 2 a" has none in either mode. A few
// commands decide a key's flags from their arguments (SET is read-write only with GET,
// BITFIELD only with SET/INCRBY); their doc carries a function that refines the flags of one
// invocation, which GETKEYSANDFLAGS reports. A procedure reports the flags Redis's does: the
// key-count procedures none at all.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace redistp {

struct CommandSpec;

// --- Arguments --------------------------------------------------------------------------------

enum class ArgType : uint8_t {
  kString,
  kInteger,
  kDouble,
  kKey,
  kPattern,
  kUnixTime,
  kPureToken,
  kOneOf,
  kBlock,
};

// The wire name of an argument type ("pure-token", "unix-time" ...).
std::string_view ArgTypeName(ArgType type);

enum ArgFlag : uint8_t {
  kArgOptional = 1 << 0,
  kArgMultiple = 1 << 1,
  kArgMultipleToken = 1 << 2,
};

// One node of a command's argument tree. Leaves are values or pure tokens; kOneOf and kBlock
// nodes hold their alternatives/parts in `args`. The chainable setters below exist so the
// tables read like the command's usage line.
struct ArgDoc {
  std::string name;
  ArgType type = ArgType::kString;
  int key_spec_index = -1;  // kKey only: which key spec finds this argument
  std::string_view token;   // literal word that precedes the value ("EX"), or the pure token
  std::string_view since;   // set when the argument is newer than its command
  std::string_view deprecated_since;
  uint8_t flags = 0;  // ArgFlag bits
  std::vector<ArgDoc> args;

  ArgDoc Token(std::string_view t) &&;
  ArgDoc Since(std::string_view version) &&;
  ArgDoc DeprecatedSince(std::string_view version) &&;
  ArgDoc Named(std::string_view n) &&;
  ArgDoc Optional() &&;
  ArgDoc Multiple() &&;
  ArgDoc MultipleToken() &&;
};

// Builders used by the tables.
namespace docs {
ArgDoc Key(std::string_view name, int key_spec_index);
ArgDoc String(std::string_view name);
ArgDoc Integer(std::string_view name);
ArgDoc Double(std::string_view name);
ArgDoc Pattern(std::string_view name);
ArgDoc UnixTime(std::string_view name);
// A literal word on its own; its name is the token in lower case unless Named() says otherwise.
ArgDoc PureToken(std::string_view token);
ArgDoc OneOf(std::string_view name, std::vector<ArgDoc> alternatives);
ArgDoc Block(std::string_view name, std::vector<ArgDoc> parts);
}  // namespace docs

// --- Key specifications -----------------------------------------------------------------------

// Key-spec flags, in the order Redis lists them.
enum KeyFlag : uint32_t {
  kKeyRO = 1 << 0,  // read only
  kKeyRW = 1 << 1,  // read and modify
  kKeyOW = 1 << 2,  // overwrite without reading
  kKeyRM = 1 << 3,  // remove
  kKeyAccess = 1 << 4,
  kKeyUpdate = 1 << 5,
  kKeyInsert = 1 << 6,
  kKeyDelete = 1 << 7,
  kKeyNotKey = 1 << 8,
  kKeyIncomplete = 1 << 9,
  kKeyVariableFlags = 1 << 10,
};

// Writes the names of the set KeyFlag bits ("RW", "access" ...) in Redis's order.
std::vector<std::string_view> KeyFlagNames(uint32_t flags);

enum class KeyBegin : uint8_t { kIndex, kKeyword, kUnknown };
enum class KeyFind : uint8_t { kRange, kKeynum, kUnknown };

// Where one group of keys sits in argv. Defaults describe "one key at argv[index]".
struct KeySpec {
  uint32_t flags = 0;
  std::string_view notes;
  KeyBegin begin = KeyBegin::kIndex;
  int index = 0;             // kIndex: the first key's position in argv
  std::string_view keyword;  // kKeyword: keys start right after this word ...
  int start_from = 0;        // ... searched from here (negative: backwards from the end)
  KeyFind find = KeyFind::kRange;
  int last_key = 0;      // kRange: last key relative to the first; -1 = last argument
  int key_step = 1;      // kRange and kKeynum: distance between keys
  int limit = 0;         // kRange with last_key -1: use 1/limit of what remains (0 = all)
  int keynum_index = 0;  // kKeynum: count position, relative to the begin position
  int first_key = 0;     // kKeynum: first key, relative to the begin position
};

// --- Command documents ------------------------------------------------------------------------

enum DocFlag : uint8_t {
  kDocDeprecated = 1 << 0,
  kDocSysCmd = 1 << 1,
};

struct HistoryEntry {
  std::string_view version;
  std::string_view change;
};

struct KeyRef;

// Finds the keys of one invocation by reading its arguments, for the rare command whose key
// specs cannot say where a key is (SORT's STORE destination may come anywhere); args[0] is the
// command name. Redis calls this a command's getkeys procedure.
using KeyFinder = std::vector<KeyRef> (*)(const std::vector<std::string_view>& args);

// Decides the flags of key spec `spec_index` for one invocation (args[0] is the command name).
using KeyFlagsRefiner = uint32_t (*)(const std::vector<std::string_view>& args, size_t spec_index,
                                     uint32_t declared_flags);

// The documentation half of a command's row. Empty fields are left out of COMMAND DOCS.
struct CommandDoc {
  std::string_view summary;
  std::string_view since;
  std::string_view group;
  std::string_view complexity;
  uint8_t doc_flags = 0;  // DocFlag bits
  std::string_view deprecated_since;
  std::string_view replaced_by;
  std::vector<HistoryEntry> history;
  std::vector<std::string_view> tips;
  std::vector<KeySpec> key_specs;
  KeyFlagsRefiner refine_key_flags = nullptr;
  // The row's key procedure (Redis's getkeys procedure), see FindKeys; nullptr: the legacy
  // first/last/step triple stands for it.
  KeyFinder find_keys = nullptr;
  std::vector<ArgDoc> args;
};

// --- Key extraction ---------------------------------------------------------------------------

struct KeyRef {
  int index;       // position in args
  uint32_t flags;  // KeyFlag bits for this key
};

// True when the command can name keys at all: a key spec not flagged not_key, a key finder, or
// (without key specs) legacy key positions.
bool CommandHasKeys(const CommandSpec& spec);

// True when the keys' positions depend on the arguments (keyword or key-count specs), which
// COMMAND INFO reports as the "movablekeys" flag.
bool CommandHasMovableKeys(const CommandSpec& spec);

// Which of a row's two key searches to run (see the file comment).
enum class KeySearch : uint8_t {
  kSpecs,      // COMMAND GETKEYS, the ACL: key specs, the procedure when they cannot say
  kProcedure,  // tracking: the procedure, else the legacy first/last/step triple
};

// The keys of one invocation, args[0] being the (sub)command's name as the caller would send it
// (for a subcommand, args[0] is the container and args[1] the subcommand). Specs flagged
// not_key (shard channels) are never keys. Every returned index is below args.size(); the
// caller has checked arity. The one key search of the tree: every caller asks it.
std::vector<KeyRef> FindKeys(const CommandSpec& spec, const std::vector<std::string_view>& args,
                             KeySearch mode);

// FindKeys(spec, args, KeySearch::kSpecs) for the rows most commands are (GET, SET, INCR ...):
// one key spec naming one key at a fixed position. Answers without building a list: true and
// *key (its flags refined for this invocation when the row refines them, as SET's GET option
// does) when the row has that shape and the line reaches the key; false otherwise (the caller
// then asks FindKeys). The ACL's per-command check runs this first.
bool FindSingleFixedKey(const CommandSpec& spec, const std::vector<std::string_view>& args,
                        KeyRef* key);

// Key procedures shared by several rows, as Redis's: a count read with C's atoi at args[at],
// the keys right after it, none when the count is below 1 or more than what follows.
//   KeysAfterCount<1>: ZUNION ZINTER ZDIFF SINTERCARD ZINTERCARD LMPOP ZMPOP
//   KeysAfterCount<2>: EVAL EVALSHA EVAL_RO EVALSHA_RO FCALL FCALL_RO BLMPOP BZMPOP
// StoreAndKeysAfterCount (ZUNIONSTORE ZINTERSTORE ZDIFFSTORE): the count at 2, those keys,
// then the destination args[1] last.
std::vector<KeyRef> KeysAfterCountAt(const std::vector<std::string_view>& args, int at);
template <int kAt>
std::vector<KeyRef> KeysAfterCount(const std::vector<std::string_view>& args) {
  return KeysAfterCountAt(args, kAt);
}
std::vector<KeyRef> StoreAndKeysAfterCount(const std::vector<std::string_view>& args);

// C's atoi as glibc's (leading white space, a sign, digits up to the first other byte; out of
// range clamped as strtol then truncated to int): how Redis's key procedures read a count.
int AtoiLike(std::string_view s);

}  // namespace redistp
