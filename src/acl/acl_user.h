// ACL users and selectors: the rules a user is made of, how a rule word changes them, how a
// command is judged against them, and how they are written back as rule words.
//
// Model (Redis 7.0's). A user has flags (on/off, nopass, the payload sanitizing choice), a set
// of SHA-256 password hashes, and a list of selectors: the first is the root selector (the
// rules written outside parentheses), the others come from "(...)" words. A command is allowed
// when any one selector allows it whole: the command itself, every key it names with the
// access it needs (read for keys it reads, write for keys it inserts, updates or deletes), and
// every channel it publishes or subscribes to.
//
// A selector's commands are a bitmap over the command table's ids (CommandSpec::id), so a
// check costs a bit test. Containers (CONFIG, CLIENT ...) have a bit of their own that stands
// for "all of my subcommands" and is set and cleared with them; only a subcommand's own bit
// decides whether it may run. `future_commands` is Redis's "future commands" mark: set by
// +@all and cleared only by -@all, it makes the rules read "+@all -..." instead of a list;
// `all_commands` is set with it but cleared by any rule that takes a command away, so a user
// that may run everything skips the bitmap test.
//
// Rules are applied one word at a time (ApplyUserRule); a word that fails leaves the user as it
// was before that word, and the caller (ACL SETUSER) applies a whole line to a copy, so a bad
// line changes nothing. The written form (DescribeUser) is recomputed from the bitmap rather
// than kept as typed, as Redis 7.0 does: "+@all" or "-@all", then each category that covers
// more commands than it misses, then the single commands left over.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "server/command.h"
#include "util/glob.h"

namespace redistp {

// What a key pattern allows (%R~, %W~, %RW~ or ~).
enum AclKeyPerm : uint8_t {
  kAclKeyRead = 1 << 0,
  kAclKeyWrite = 1 << 1,
  kAclKeyAll = kAclKeyRead | kAclKeyWrite,
};

struct AclKeyPattern {
  std::string pattern;
  uint8_t perms = kAclKeyAll;
  GlobShape shape;  // ShapeOfGlob(pattern), so the per-command check rarely runs the matcher
};

struct AclSelector {
  bool all_commands = false;       // +@all and nothing taken away since: no bitmap test needed
  bool future_commands = false;    // +@all not undone by -@all: commands added later are allowed
  bool all_keys = false;           // ~* / allkeys
  bool all_channels = false;       // &* / allchannels
  std::vector<uint64_t> commands;  // bit per CommandSpec::id
  std::unordered_map<uint32_t, std::vector<std::string>> first_args;
  std::vector<AclKeyPattern> keys;
  std::vector<std::string> channels;

  bool Allows(uint32_t id) const {
    size_t w = id >> 6;
    return w < commands.size() && ((commands[w] >> (id & 63)) & 1) != 0;
  }
};

enum AclUserFlag : uint8_t {
  kAclUserOn = 1 << 0,
  kAclUserOff = 1 << 1,
  kAclUserNoPass = 1 << 2,
  kAclUserSkipSanitize = 1 << 3,
  kAclUserSanitize = 1 << 4,
};

// The user flags' names in the order ACL LIST and ACL GETUSER show them.
inline constexpr std::pair<uint8_t, std::string_view> kAclUserFlagNames[] = {
    {kAclUserOn, "on"},
    {kAclUserOff, "off"},
    {kAclUserNoPass, "nopass"},
    {kAclUserSkipSanitize, "skip-sanitize-payload"},
    {kAclUserSanitize, "sanitize-payload"},
};

class AclUser {
 public:
  explicit AclUser(std::string name) : name_(std::move(name)) {}

  const std::string& name() const { return name_; }
  uint8_t flags = kAclUserOff;
  std::vector<std::string> passwords;  // SHA-256 hex digests, in the order added
  std::vector<AclSelector> selectors;  // [0] is the root selector
  // True when the root selector allows every command, key and channel: the check is skipped.
  bool unrestricted = false;

  bool enabled() const { return (flags & kAclUserOn) != 0; }

 private:
  std::string name_;
};

// What the rules need from the rest of the server: the command table (names, ids, categories)
// and acl-pubsub-default (whether new users and selectors start with every channel).
struct AclRuleContext {
  const CommandTable* commands = nullptr;
  bool pubsub_default_all = false;
};

// Applies one rule word to `user`; an empty word changes nothing. On error returns Redis's
// reason text ("Syntax error", "Unknown command or category name in ACL" ...) and leaves `user`
// unchanged; an unmatched "(" is reported by SplitRules, not here.
std::string ApplyUserRule(AclUser& user, std::string_view rule, const AclRuleContext& ctx);

// Applies one rule word to one selector (the part of ApplyUserRule that is not about the user
// itself). Same error contract.
std::string ApplySelectorRule(AclSelector& sel, std::string_view rule, const AclRuleContext& ctx);

// A fresh user as ACL SETUSER creates it: off, no password, no commands, no keys, channels as
// acl-pubsub-default says.
std::unique_ptr<AclUser> NewAclUser(std::string_view name, const AclRuleContext& ctx);

// Joins the words of "(" ... ")" selectors that a client sent as several arguments into one
// word each, as Redis does. Returns false with `bad` set to the word that opened an unmatched
// selector.
bool JoinSelectorWords(const std::vector<std::string>& in, std::vector<std::string>* out,
                       std::string* bad);

// Recomputes `unrestricted` after a change.
void RefreshUnrestricted(AclUser& user, const AclRuleContext& ctx);

// The rule words of one selector ("~* &* +@all") and its three parts as GETUSER shows them.
std::string DescribeSelectorCommands(const AclSelector& sel, const AclRuleContext& ctx);
std::string DescribeSelectorKeys(const AclSelector& sel);
std::string DescribeSelectorChannels(const AclSelector& sel);
std::string DescribeSelector(const AclSelector& sel, const AclRuleContext& ctx);
// "on nopass #... ~* &* +@all (...)": the user as ACL LIST and ACL SAVE write it, after
// "user <name> ".
std::string DescribeUser(const AclUser& user, const AclRuleContext& ctx);

// Lower-case hex SHA-256 of a password.
std::string AclHashPassword(std::string_view password);

// Outcome of judging one command against one user.
struct AclVerdict {
  enum Kind : uint8_t { kOk = 0, kCommand = 1, kKey = 2, kChannel = 4 } kind = kOk;
  int position = 0;  // the argument denied (key or channel)
};

// Judges `spec` with `args` (args[0] the command name) against every selector of `user`.
// When none allows it, the most advanced refusal wins (channel over key over command), and
// among equals the one at the later argument, as Redis reports it.
AclVerdict AclCheckCommand(const AclUser& user, const CommandSpec& spec,
                           const std::vector<std::string_view>& args);

// Whether one selector of `user` allows `spec` with `args` and may read every key.
bool AclMayReadEveryKey(const AclUser& user, const CommandSpec& spec,
                        const std::vector<std::string_view>& args);

// Whether `user` may use `channel` (a literal pattern when `is_pattern`) in any selector.
bool AclCheckChannel(const AclUser& user, std::string_view channel, bool is_pattern);
// Whether SUBSCRIBE (PSUBSCRIBE when `is_pattern`) to `channel` would be allowed: one selector
// grants the channel and, for a `__watchex` channel, read access to its key.
bool AclMaySubscribe(const AclUser& user, std::string_view channel, bool is_pattern);
// Whether `channel` (a pattern when `is_pattern`) is or may match a `__watchex` channel.
bool AclTouchesWatchexChannels(std::string_view channel, bool is_pattern);
// Whether `user` may read (perms kAclKeyRead) / write a key in any selector.
bool AclCheckKey(const AclUser& user, std::string_view key, uint8_t perms);

// The categories, in Redis's order, and the ones a row belongs to (its own plus those its flags
// imply, as COMMAND INFO shows them).
struct AclCategoryName {
  uint64_t bit;
  std::string_view name;
};
const std::vector<AclCategoryName>& AclCategories();
uint64_t AclCategoryBit(std::string_view name);  // 0 when unknown (case-insensitive)
uint64_t EffectiveAclCategories(const CommandSpec& spec);

}  // namespace redistp
