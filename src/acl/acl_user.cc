#include "acl/acl_user.h"

#include <openssl/evp.h>

#include <algorithm>

#include "protocol/errors.h"
#include "server/command_docs.h"
#include "server/watchex_pubsub.h"
#include "util/glob.h"
#include "util/numbers.h"

namespace redistp {

namespace {

const std::string_view kSyntax = err::kAclRuleSyntax;
const std::string_view kUnknown = err::kAclUnknownName;

void SetBit(AclSelector& sel, uint32_t id, bool on) {
  size_t w = id >> 6;
  if (w >= sel.commands.size()) sel.commands.resize(w + 1, 0);
  if (on) {
    sel.commands[w] |= 1ULL << (id & 63);
  } else {
    sel.commands[w] &= ~(1ULL << (id & 63));
    sel.all_commands = false;  // a command taken away: future commands are not allowed
  }
}

// Allows or denies one row; a container's subcommands follow it. Any first-argument
// exceptions of the row are dropped (the row is now wholly on or off).
void ChangePerm(AclSelector& sel, const CommandSpec& spec, bool on) {
  SetBit(sel, spec.id, on);
  sel.first_args.erase(spec.id);
  for (const CommandSpec& sub : spec.subcommands) SetBit(sel, sub.id, on);
}

void ChangeCategory(AclSelector& sel, const std::vector<CommandSpec>& rows, uint64_t bit, bool on);

void ChangeCategoryRow(AclSelector& sel, const CommandSpec& spec, uint64_t bit, bool on) {
  if ((EffectiveAclCategories(spec) & bit) != 0) ChangePerm(sel, spec, on);
  if (!spec.subcommands.empty()) ChangeCategory(sel, spec.subcommands, bit, on);
}

void ChangeCategory(AclSelector& sel, const std::vector<CommandSpec>& rows, uint64_t bit, bool on) {
  for (const CommandSpec& s : rows) ChangeCategoryRow(sel, s, bit, on);
}

void ChangeCategoryAll(AclSelector& sel, const CommandTable& table, uint64_t bit, bool on) {
  for (const auto& s : table.all()) ChangeCategoryRow(sel, *s, bit, on);
}

void SetAll(AclSelector& sel, const CommandTable& table, bool on) {
  sel.commands.assign((table.id_count() + 63) / 64, on ? ~0ULL : 0ULL);
  sel.all_commands = sel.future_commands = on;
  sel.first_args.clear();
}

// "name" or "container|sub", case-insensitive; nullptr when unknown (or more than one '|').
const CommandSpec* LookupRow(const CommandTable& table, std::string_view name) {
  size_t bar = name.find('|');
  if (bar == std::string_view::npos) return table.FindByOwnName(name);
  if (name.find('|', bar + 1) != std::string_view::npos) return nullptr;
  const CommandSpec* top = table.FindByOwnName(name.substr(0, bar));
  if (top == nullptr || top->subcommands.empty()) return nullptr;
  return top->FindSubcommand(name.substr(bar + 1));
}

bool IsHexHash(std::string_view h) {
  if (h.size() != 64) return false;
  return std::all_of(h.begin(), h.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

std::string AllowRule(AclSelector& sel, std::string_view name, const AclRuleContext& ctx) {
  size_t bar = name.rfind('|');
  if (bar == std::string_view::npos) {
    const CommandSpec* spec = ctx.commands->FindByOwnName(name);
    if (spec == nullptr) return std::string(kUnknown);
    ChangePerm(sel, *spec, true);
    return "";
  }
  const CommandSpec* spec = LookupRow(*ctx.commands, name.substr(0, bar));
  if (spec == nullptr) return std::string(kUnknown);
  if (spec->parent != nullptr) return std::string(err::kAclFirstArgSub);
  std::string_view sub = name.substr(bar + 1);
  if (sub.empty()) return std::string(kSyntax);
  if (!spec->subcommands.empty()) {
    const CommandSpec* s = spec->FindSubcommand(sub);
    if (s == nullptr) return std::string(kUnknown);
    ChangePerm(sel, *s, true);
    return "";
  }
  // A first argument of a command without subcommands ("+select|0"), kept in lower case.
  std::string arg(sub);
  for (char& c : arg) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::vector<std::string>& list = sel.first_args[spec->id];
  if (std::find(list.begin(), list.end(), arg) == list.end()) list.push_back(std::move(arg));
  return "";
}

std::string KeyRule(AclSelector& sel, std::string_view rule) {
  uint8_t perms = kAclKeyAll;
  size_t offset = 1;
  if (rule[0] == '%') {
    perms = 0;
    size_t i = 1;
    for (; i < rule.size() && rule[i] != '~'; ++i) {
      char c = static_cast<char>(std::toupper(static_cast<unsigned char>(rule[i])));
      if (c == 'R') {
        perms |= kAclKeyRead;
      } else if (c == 'W') {
        perms |= kAclKeyWrite;
      } else {
        return std::string(kSyntax);
      }
    }
    // Without a '~' the pattern is empty: Redis 7.0 keeps "%R" as "%R~" (a rule that matches no
    // key name but the empty one).
    if (perms == 0) return std::string(kSyntax);
    offset = std::min(i + 1, rule.size());
  }
  if (sel.all_keys) return std::string(err::kAclKeyAfterAll);
  std::string_view pattern = rule.substr(offset);
  if (pattern == "*" && perms == kAclKeyAll) {
    sel.all_keys = true;
    sel.keys.clear();
    return "";
  }
  for (AclKeyPattern& k : sel.keys) {
    if (k.pattern == pattern) {
      k.perms |= perms;
      return "";
    }
  }
  sel.keys.push_back(AclKeyPattern{std::string(pattern), perms, ShapeOfGlob(pattern)});
  return "";
}

}  // namespace

const std::vector<AclCategoryName>& AclCategories() {
  static const std::vector<AclCategoryName> kNames = {
      {kAclKeyspace, "keyspace"},
      {kAclRead, "read"},
      {kAclWrite, "write"},
      {kAclSet, "set"},
      {kAclSortedSet, "sortedset"},
      {kAclList, "list"},
      {kAclHash, "hash"},
      {kAclString, "string"},
      {kAclBitmap, "bitmap"},
      {kAclHyperLogLog, "hyperloglog"},
      {kAclGeo, "geo"},
      {kAclStream, "stream"},
      {kAclPubSub, "pubsub"},
      {kAclAdmin, "admin"},
      {kAclFast, "fast"},
      {kAclSlow, "slow"},
      {kAclBlocking, "blocking"},
      {kAclDangerous, "dangerous"},
      {kAclConnection, "connection"},
      {kAclTransaction, "transaction"},
      {kAclScripting, "scripting"},
  };
  return kNames;
}

uint64_t AclCategoryBit(std::string_view name) {
  for (const AclCategoryName& c : AclCategories()) {
    if (EqualsIgnoreCase(c.name, name)) return c.bit;
  }
  return 0;
}

uint64_t EffectiveAclCategories(const CommandSpec& spec) {
  uint64_t acl = spec.acl;
  if (spec.flags & kCmdWrite) acl |= kAclWrite;
  // Read-only scripting commands (EVAL_RO, FCALL_RO) do not read keys on their own account.
  if ((spec.flags & kCmdReadOnly) && !(acl & kAclScripting)) acl |= kAclRead;
  if (spec.flags & kCmdAdmin) acl |= kAclAdmin | kAclDangerous;
  if (spec.flags & kCmdPubSub) acl |= kAclPubSub;
  if (spec.flags & kCmdFast) acl |= kAclFast;
  if (spec.flags & kCmdBlocking) acl |= kAclBlocking;
  if (!(spec.flags & kCmdFast)) acl |= kAclSlow;
  return acl;
}

std::string AclHashPassword(std::string_view password) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(password.data(), password.size(), digest, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(len * 2);
  for (unsigned int i = 0; i < len; ++i) {
    out.push_back(kHex[digest[i] >> 4]);
    out.push_back(kHex[digest[i] & 15]);
  }
  return out;
}

std::string ApplySelectorRule(AclSelector& sel, std::string_view rule, const AclRuleContext& ctx) {
  if (EqualsIgnoreCase(rule, "allkeys") || rule == "~*") {
    sel.all_keys = true;
    sel.keys.clear();
  } else if (EqualsIgnoreCase(rule, "resetkeys")) {
    sel.all_keys = false;
    sel.keys.clear();
  } else if (EqualsIgnoreCase(rule, "allchannels") || rule == "&*") {
    sel.all_channels = true;
    sel.channels.clear();
  } else if (EqualsIgnoreCase(rule, "resetchannels")) {
    sel.all_channels = false;
    sel.channels.clear();
  } else if (EqualsIgnoreCase(rule, "allcommands") || EqualsIgnoreCase(rule, "+@all")) {
    SetAll(sel, *ctx.commands, true);
  } else if (EqualsIgnoreCase(rule, "nocommands") || EqualsIgnoreCase(rule, "-@all")) {
    SetAll(sel, *ctx.commands, false);
  } else if (!rule.empty() && (rule[0] == '~' || rule[0] == '%')) {
    return KeyRule(sel, rule);
  } else if (!rule.empty() && rule[0] == '&') {
    if (sel.all_channels) return std::string(err::kAclChannelAfterAll);
    std::string_view ch = rule.substr(1);
    if (std::find(sel.channels.begin(), sel.channels.end(), ch) == sel.channels.end()) {
      sel.channels.emplace_back(ch);
    }
  } else if (rule.size() >= 2 && (rule[0] == '+' || rule[0] == '-') && rule[1] == '@') {
    uint64_t bit = AclCategoryBit(rule.substr(2));
    if (bit == 0) return std::string(kUnknown);
    if (sel.commands.empty()) sel.commands.assign((ctx.commands->id_count() + 63) / 64, 0);
    ChangeCategoryAll(sel, *ctx.commands, bit, rule[0] == '+');
  } else if (rule.size() >= 2 && rule[0] == '+') {
    return AllowRule(sel, rule.substr(1), ctx);
  } else if (rule.size() >= 2 && rule[0] == '-') {
    const CommandSpec* spec = LookupRow(*ctx.commands, rule.substr(1));
    if (spec == nullptr) return std::string(kUnknown);
    ChangePerm(sel, *spec, false);
  } else {
    return std::string(kSyntax);
  }
  return "";
}

std::unique_ptr<AclUser> NewAclUser(std::string_view name, const AclRuleContext& ctx) {
  auto u = std::make_unique<AclUser>(std::string(name));
  u->selectors.emplace_back();
  SetAll(u->selectors[0], *ctx.commands, false);
  u->selectors[0].all_channels = ctx.pubsub_default_all;
  return u;
}

std::string ApplyUserRule(AclUser& user, std::string_view rule, const AclRuleContext& ctx) {
  if (rule.empty()) return {};  // an empty word changes nothing, as in Redis
  if (EqualsIgnoreCase(rule, "on")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kAclUserOff) | kAclUserOn);
  } else if (EqualsIgnoreCase(rule, "off")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kAclUserOn) | kAclUserOff);
  } else if (EqualsIgnoreCase(rule, "skip-sanitize-payload")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kAclUserSanitize) | kAclUserSkipSanitize);
  } else if (EqualsIgnoreCase(rule, "sanitize-payload")) {
    user.flags = static_cast<uint8_t>((user.flags & ~kAclUserSkipSanitize) | kAclUserSanitize);
  } else if (EqualsIgnoreCase(rule, "nopass")) {
    user.flags |= kAclUserNoPass;
    user.passwords.clear();
  } else if (EqualsIgnoreCase(rule, "resetpass")) {
    user.flags &= static_cast<uint8_t>(~kAclUserNoPass);
    user.passwords.clear();
  } else if (EqualsIgnoreCase(rule, "clearselectors")) {
    user.selectors.resize(1);
  } else if (EqualsIgnoreCase(rule, "reset")) {
    for (std::string_view r : {"resetpass", "resetkeys", "resetchannels"}) {
      ApplyUserRule(user, r, ctx);
    }
    if (ctx.pubsub_default_all) ApplyUserRule(user, "allchannels", ctx);
    for (std::string_view r : {"off", "sanitize-payload", "clearselectors", "-@all"}) {
      ApplyUserRule(user, r, ctx);
    }
  } else if (!rule.empty() && (rule[0] == '>' || rule[0] == '#')) {
    std::string hash;
    if (rule[0] == '>') {
      hash = AclHashPassword(rule.substr(1));
    } else {
      if (!IsHexHash(rule.substr(1))) return std::string(err::kAclBadHash);
      hash.assign(rule.substr(1));
    }
    if (std::find(user.passwords.begin(), user.passwords.end(), hash) == user.passwords.end()) {
      user.passwords.push_back(std::move(hash));
    }
    user.flags &= static_cast<uint8_t>(~kAclUserNoPass);
  } else if (!rule.empty() && (rule[0] == '<' || rule[0] == '!')) {
    std::string hash;
    if (rule[0] == '<') {
      hash = AclHashPassword(rule.substr(1));
    } else {
      if (!IsHexHash(rule.substr(1))) return std::string(err::kAclBadHash);
      hash.assign(rule.substr(1));
    }
    auto it = std::find(user.passwords.begin(), user.passwords.end(), hash);
    if (it == user.passwords.end()) return std::string(err::kAclNoSuchPassword);
    user.passwords.erase(it);
    user.flags &= static_cast<uint8_t>(~kAclUserNoPass);
  } else if (!rule.empty() && rule[0] == '(') {
    if (rule.size() < 2 || rule.back() != ')') return std::string(kSyntax);
    AclSelector sel;
    SetAll(sel, *ctx.commands, false);
    sel.all_channels = ctx.pubsub_default_all;
    // The inside is split on spaces, as Redis does (no quoting inside a selector).
    std::string_view inner = rule.substr(1, rule.size() - 2);
    size_t i = 0;
    while (i < inner.size()) {
      while (i < inner.size() && inner[i] == ' ') ++i;
      size_t j = i;
      while (j < inner.size() && inner[j] != ' ') ++j;
      if (j > i) {
        std::string e = ApplySelectorRule(sel, inner.substr(i, j - i), ctx);
        if (!e.empty()) return e;
      }
      i = j;
    }
    user.selectors.push_back(std::move(sel));
  } else {
    // Every selector rule is judged before it changes anything, so no copy is needed.
    return ApplySelectorRule(user.selectors[0], rule, ctx);
  }
  return "";
}

bool JoinSelectorWords(const std::vector<std::string>& in, std::vector<std::string>* out,
                       std::string* bad) {
  out->clear();
  for (size_t i = 0; i < in.size(); ++i) {
    const std::string& w = in[i];
    if (w.empty() || w[0] != '(' || w.back() == ')') {
      out->push_back(w);
      continue;
    }
    // "(+get" "~x)": joined with single spaces up to the word that closes it.
    std::string joined = w;
    size_t j = i + 1;
    for (; j < in.size(); ++j) {
      joined.push_back(' ');
      joined += in[j];
      if (!in[j].empty() && in[j].back() == ')') break;
    }
    if (j == in.size()) {
      *bad = w;
      return false;
    }
    out->push_back(std::move(joined));
    i = j;
  }
  return true;
}

void RefreshUnrestricted(AclUser& user, const AclRuleContext& ctx) {
  (void)ctx;
  const AclSelector& root = user.selectors[0];
  user.unrestricted = root.all_commands && root.all_keys && root.all_channels;
}

// --- Checking ---------------------------------------------------------------------------------

namespace {

bool KeyAllowed(const AclSelector& sel, std::string_view key, uint8_t need) {
  if (sel.all_keys) return true;
  for (const AclKeyPattern& p : sel.keys) {
    if ((p.perms & need) != need) continue;
    if (GlobMatchShaped(p.shape, p.pattern, key)) return true;
  }
  return false;
}

bool ChannelAllowed(const AclSelector& sel, std::string_view channel, bool is_pattern) {
  if (sel.all_channels) return true;
  for (const std::string& p : sel.channels) {
    // A subscriber's pattern must be granted literally: a narrower grant does not cover it.
    if (is_pattern ? p == channel : GlobMatch(p, channel)) return true;
  }
  return false;
}

// redis-tp's `__watchex@<db>__:<key>` channels tell when a key appears or disappears, so
// hearing one needs read access to its key; a pattern that may match such channels needs read
// access to every key. Other channels are not keys.
bool WatchexChannelAllowed(const AclSelector& sel, std::string_view channel, bool is_pattern) {
  if (sel.all_keys) return true;
  if (is_pattern) return !GlobCanMatchPrefix(channel, WatchexPublisher::kPrefix);
  int db = 0;
  std::string_view key;
  if (!WatchexPublisher::ParseChannel(channel, &db, &key)) return true;
  return KeyAllowed(sel, key, kAclKeyRead);
}

// The permission a key needs from the key-spec flags of its position.
uint8_t NeededPerms(uint32_t key_flags) {
  uint8_t need = 0;
  if (key_flags & kKeyAccess) need |= kAclKeyRead;
  if (key_flags & (kKeyInsert | kKeyDelete | kKeyUpdate)) need |= kAclKeyWrite;
  return need;
}

// The channel arguments of the Pub/Sub commands that publish or subscribe (UNSUBSCRIBE and the
// PUBSUB introspection commands are never refused, as in Redis).
enum class ChannelArgs : uint8_t { kNone, kFirst, kAll, kAllPatterns };
ChannelArgs ChannelArgsOf(const CommandSpec& spec) {
  if ((spec.flags & kCmdPubSub) == 0 || spec.parent != nullptr) return ChannelArgs::kNone;
  const std::string& n = spec.name;
  if (n == "publish" || n == "spublish") return ChannelArgs::kFirst;
  if (n == "subscribe" || n == "ssubscribe") return ChannelArgs::kAll;
  if (n == "psubscribe") return ChannelArgs::kAllPatterns;
  return ChannelArgs::kNone;
}

AclVerdict CheckSelector(const AclSelector& sel, const CommandSpec& spec,
                         const std::vector<std::string_view>& args) {
  if (!sel.all_commands && (spec.flags & kCmdNoAuth) == 0 && !sel.Allows(spec.id)) {
    auto it = args.size() >= 2 ? sel.first_args.find(spec.id) : sel.first_args.end();
    bool ok = false;
    if (it != sel.first_args.end()) {
      for (const std::string& a : it->second) {
        if (EqualsIgnoreCase(a, args[1])) ok = true;
      }
    }
    if (!ok) return {AclVerdict::kCommand, 0};
  }
  if (!sel.all_keys && CommandHasKeys(spec)) {
    KeyRef one{};
    if (FindSingleFixedKey(spec, args, &one)) {
      if (!KeyAllowed(sel, args[static_cast<size_t>(one.index)], NeededPerms(one.flags))) {
        return {AclVerdict::kKey, one.index};
      }
    } else {
      for (const KeyRef& k : FindKeys(spec, args, KeySearch::kSpecs)) {
        if (!KeyAllowed(sel, args[static_cast<size_t>(k.index)], NeededPerms(k.flags))) {
          return {AclVerdict::kKey, k.index};
        }
      }
    }
  }
  if (!sel.all_channels || !sel.all_keys) {
    ChannelArgs ca = ChannelArgsOf(spec);
    size_t last = ca == ChannelArgs::kFirst ? std::min<size_t>(2, args.size()) : args.size();
    for (size_t i = 1; ca != ChannelArgs::kNone && i < last; ++i) {
      const bool pattern = ca == ChannelArgs::kAllPatterns;
      if (!ChannelAllowed(sel, args[i], pattern) || !WatchexChannelAllowed(sel, args[i], pattern)) {
        return {AclVerdict::kChannel, static_cast<int>(i)};
      }
    }
  }
  return {};
}

}  // namespace

AclVerdict AclCheckCommand(const AclUser& user, const CommandSpec& spec,
                           const std::vector<std::string_view>& args) {
  AclVerdict worst{AclVerdict::kCommand, 0};
  for (const AclSelector& sel : user.selectors) {
    AclVerdict v = CheckSelector(sel, spec, args);
    if (v.kind == AclVerdict::kOk) return v;
    if (v.kind > worst.kind || (v.kind == worst.kind && v.position > worst.position)) worst = v;
  }
  return worst;
}

bool AclMayReadEveryKey(const AclUser& user, const CommandSpec& spec,
                        const std::vector<std::string_view>& args) {
  for (const AclSelector& sel : user.selectors) {
    bool every = sel.all_keys;
    for (const AclKeyPattern& p : sel.keys) {
      if (p.pattern == "*" && (p.perms & kAclKeyRead) != 0) every = true;
    }
    if (every && CheckSelector(sel, spec, args).kind == AclVerdict::kOk) return true;
  }
  return false;
}

bool AclCheckChannel(const AclUser& user, std::string_view channel, bool is_pattern) {
  for (const AclSelector& sel : user.selectors) {
    if (ChannelAllowed(sel, channel, is_pattern)) return true;
  }
  return false;
}

bool AclMaySubscribe(const AclUser& user, std::string_view channel, bool is_pattern) {
  for (const AclSelector& sel : user.selectors) {
    if (ChannelAllowed(sel, channel, is_pattern) &&
        WatchexChannelAllowed(sel, channel, is_pattern)) {
      return true;
    }
  }
  return false;
}

bool AclTouchesWatchexChannels(std::string_view channel, bool is_pattern) {
  if (is_pattern) return GlobCanMatchPrefix(channel, WatchexPublisher::kPrefix);
  int db = 0;
  std::string_view key;
  return WatchexPublisher::ParseChannel(channel, &db, &key);
}

bool AclCheckKey(const AclUser& user, std::string_view key, uint8_t perms) {
  for (const AclSelector& sel : user.selectors) {
    if (KeyAllowed(sel, key, perms)) return true;
  }
  return false;
}

}  // namespace redistp
