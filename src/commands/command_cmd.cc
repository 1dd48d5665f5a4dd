// COMMAND: the server describing its own command table.
//
// Everything comes from the command table's rows (server/command.h): arity, flags, legacy key
// positions and ACL categories, and each row's CommandDoc (server/command_docs.h) with its
// summary, argument tree, tips and key specs. Replies are shaped like Redis 7.0's, RESP3 types
// included:
//
//   COMMAND / COMMAND INFO  one 10-element array per command: name, arity, flags (set of status
//                           strings), first key, last key, step, ACL categories ("@read" ...),
//                           tips, key specs (maps), subcommands (an array of such entries; an
//                           empty set when there are none, as Redis writes it).
//   COMMAND DOCS            a map from full name to a map of documentation fields; fields that
//                           do not apply are left out, subcommands nest in "subcommands".
//   COMMAND LIST            full names (subcommands included), optionally filtered.
//   COMMAND GETKEYS[ANDFLAGS]  the keys of a full command line, from key specs.
//
// ACL categories are reported the way Redis derives them: the row's own categories plus the
// ones implied by its flags (write -> @write, admin -> @admin and @dangerous, not fast -> @slow
// ...). Flags Redis keeps private (may_replicate, sentinel, protected) are not listed.
#include <iterator>
#include <string>
#include <utility>

#include "acl/acl_user.h"
#include "commands/help_reply.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/server.h"
#include "util/glob.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// --- Names ------------------------------------------------------------------------------------

constexpr std::pair<uint64_t, std::string_view> kFlagNames[] = {
    {kCmdWrite, "write"},
    {kCmdReadOnly, "readonly"},
    {kCmdDenyOom, "denyoom"},
    {kCmdAdmin, "admin"},
    {kCmdPubSub, "pubsub"},
    {kCmdNoScript, "noscript"},
    {kCmdBlocking, "blocking"},
    {kCmdLoading, "loading"},
    {kCmdStale, "stale"},
    {kCmdSkipMonitor, "skip_monitor"},
    {kCmdSkipSlowlog, "skip_slowlog"},
    {kCmdAsking, "asking"},
    {kCmdFast, "fast"},
    {kCmdNoAuth, "no_auth"},
    {kCmdNoMandatoryKeys, "no_mandatory_keys"},
    {kCmdNoAsyncLoading, "no_async_loading"},
    {kCmdNoMulti, "no_multi"},
    {kCmdMovableKeys, "movablekeys"},
    {kCmdAllowBusy, "allow_busy"},
};

// The flags COMMAND INFO shows: the row's, plus movablekeys when the key specs move.
uint64_t ReportedFlags(const CommandSpec& spec) {
  uint64_t flags = spec.flags;
  if (CommandHasMovableKeys(spec)) flags |= kCmdMovableKeys;
  return flags;
}

// The row's ACL categories plus those its flags imply (the ACL layer's rule, which +@category
// and ACL CAT use too).
uint64_t EffectiveAcl(const CommandSpec& spec) { return EffectiveAclCategories(spec); }

template <size_t N>
size_t CountBits(uint64_t bits, const std::pair<uint64_t, std::string_view> (&names)[N]) {
  size_t n = 0;
  for (const auto& entry : names) n += (bits & entry.first) != 0;
  return n;
}

// Resolves "name" or "container|sub" (case-insensitive) to a live command; nullptr if unknown.
const CommandSpec* LookupFullName(const CommandTable& table, std::string_view full_name) {
  size_t bar = full_name.find('|');
  if (bar == std::string_view::npos) return table.Find(full_name);
  std::string_view sub = full_name.substr(bar + 1);
  if (sub.find('|') != std::string_view::npos) return nullptr;
  const CommandSpec* parent = table.Find(full_name.substr(0, bar));
  return parent == nullptr ? nullptr : parent->FindSubcommand(sub);
}

// --- COMMAND INFO -----------------------------------------------------------------------------

void ReplyKeySpec(ReplyBuilder& r, const KeySpec& ks) {
  r.Map(ks.notes.empty() ? 3 : 4);
  if (!ks.notes.empty()) {
    r.Bulk("notes");
    r.Bulk(ks.notes);
  }
  r.Bulk("flags");
  std::vector<std::string_view> flags = KeyFlagNames(ks.flags);
  r.Set(flags.size());
  for (std::string_view f : flags) r.Simple(f);

  r.Bulk("begin_search");
  r.Map(2);
  r.Bulk("type");
  switch (ks.begin) {
    case KeyBegin::kIndex:
      r.Bulk("index");
      r.Bulk("spec");
      r.Map(1);
      r.Bulk("index");
      r.Int(ks.index);
      break;
    case KeyBegin::kKeyword:
      r.Bulk("keyword");
      r.Bulk("spec");
      r.Map(2);
      r.Bulk("keyword");
      r.Bulk(ks.keyword);
      r.Bulk("startfrom");
      r.Int(ks.start_from);
      break;
    case KeyBegin::kUnknown:
      r.Bulk("unknown");
      r.Bulk("spec");
      r.Map(0);
      break;
  }

  r.Bulk("find_keys");
  r.Map(2);
  r.Bulk("type");
  switch (ks.find) {
    case KeyFind::kRange:
      r.Bulk("range");
      r.Bulk("spec");
      r.Map(3);
      r.Bulk("lastkey");
      r.Int(ks.last_key);
      r.Bulk("keystep");
      r.Int(ks.key_step);
      r.Bulk("limit");
      r.Int(ks.limit);
      break;
    case KeyFind::kKeynum:
      r.Bulk("keynum");
      r.Bulk("spec");
      r.Map(3);
      r.Bulk("keynumidx");
      r.Int(ks.keynum_index);
      r.Bulk("firstkey");
      r.Int(ks.first_key);
      r.Bulk("keystep");
      r.Int(ks.key_step);
      break;
    case KeyFind::kUnknown:
      r.Bulk("unknown");
      r.Bulk("spec");
      r.Map(0);
      break;
  }
}

// One COMMAND INFO entry (recursing into subcommands).
void ReplyCommandInfo(ReplyBuilder& r, const CommandSpec& spec) {
  const CommandDoc& doc = spec.doc;
  r.Array(10);
  r.Bulk(spec.full_name);
  r.Int(spec.arity);

  uint64_t flags = ReportedFlags(spec);
  r.Set(CountBits(flags, kFlagNames));
  for (const auto& [bit, name] : kFlagNames) {
    if (flags & bit) r.Simple(name);
  }

  r.Int(spec.first_key);
  r.Int(spec.last_key);
  r.Int(spec.key_step);

  uint64_t acl = EffectiveAcl(spec);
  // The category names are the ACL layer's (acl/acl_user.h), in ACL CAT's order.
  size_t categories = 0;
  for (const AclCategoryName& c : AclCategories()) categories += (acl & c.bit) != 0;
  r.Set(categories);
  for (const AclCategoryName& c : AclCategories()) {
    if (acl & c.bit) r.Simple("@" + std::string(c.name));
  }

  r.Set(doc.tips.size());
  for (std::string_view tip : doc.tips) r.Bulk(tip);
  r.Set(doc.key_specs.size());
  for (const KeySpec& ks : doc.key_specs) ReplyKeySpec(r, ks);

  // Redis writes "no subcommands" as an empty set but a list of them as an array.
  if (spec.subcommands.empty()) {
    r.Set(0);
  } else {
    r.Array(spec.subcommands.size());
    for (const CommandSpec& sub : spec.subcommands) ReplyCommandInfo(r, sub);
  }
}

void ReplyAllCommandInfo(CommandContext& c) {
  const auto& all = c.server.commands().all();
  c.reply.Array(all.size());
  for (const auto& spec : all) ReplyCommandInfo(c.reply, *spec);
}

void CommandCommand(CommandContext& c) { ReplyAllCommandInfo(c); }

void CommandInfoCommand(CommandContext& c) {
  if (c.args.size() == 2) {
    ReplyAllCommandInfo(c);
    return;
  }
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    const CommandSpec* spec = LookupFullName(c.server.commands(), c.args[i]);
    if (spec == nullptr) {
      c.reply.Null();
    } else {
      ReplyCommandInfo(c.reply, *spec);
    }
  }
}

void CommandCountCommand(CommandContext& c) {
  c.reply.Int(static_cast<int64_t>(c.server.commands().size()));
}

// --- COMMAND DOCS -----------------------------------------------------------------------------

void ReplyArgDoc(ReplyBuilder& r, const ArgDoc& a) {
  // A pure token always shows its token, even MIGRATE's empty string.
  const bool has_token = !a.token.empty() || a.type == ArgType::kPureToken;
  size_t fields = 2 + (a.key_spec_index >= 0) + has_token + !a.since.empty() +
                  !a.deprecated_since.empty() + (a.flags != 0) + !a.args.empty();
  r.Map(fields);
  r.Bulk("name");
  r.Bulk(a.name);
  r.Bulk("type");
  r.Bulk(ArgTypeName(a.type));
  if (a.key_spec_index >= 0) {
    r.Bulk("key_spec_index");
    r.Int(a.key_spec_index);
  }
  if (has_token) {
    r.Bulk("token");
    r.Bulk(a.token);
  }
  if (!a.since.empty()) {
    r.Bulk("since");
    r.Bulk(a.since);
  }
  if (!a.deprecated_since.empty()) {
    r.Bulk("deprecated_since");
    r.Bulk(a.deprecated_since);
  }
  if (a.flags != 0) {
    r.Bulk("flags");
    r.Set(((a.flags & kArgOptional) != 0) + ((a.flags & kArgMultiple) != 0) +
          ((a.flags & kArgMultipleToken) != 0));
    if (a.flags & kArgOptional) r.Simple("optional");
    if (a.flags & kArgMultiple) r.Simple("multiple");
    if (a.flags & kArgMultipleToken) r.Simple("multiple_token");
  }
  if (!a.args.empty()) {
    r.Bulk("arguments");
    r.Array(a.args.size());
    for (const ArgDoc& sub : a.args) ReplyArgDoc(r, sub);
  }
}

// The group of a row whose doc names none, judged by its ACL categories. Redis always sends a
// group, and redis-cli 7.0 crashes on "help @group" when one is missing.
std::string_view GuessGroup(const CommandSpec& spec) {
  static constexpr std::pair<uint64_t, std::string_view> kGroups[] = {
      {kAclString, "string"},
      {kAclBitmap, "bitmap"},
      {kAclList, "list"},
      {kAclHash, "hash"},
      {kAclSet, "set"},
      {kAclSortedSet, "sorted-set"},
      {kAclHyperLogLog, "hyperloglog"},
      {kAclGeo, "geo"},
      {kAclStream, "stream"},
      {kAclPubSub, "pubsub"},
      {kAclTransaction, "transactions"},
      {kAclScripting, "scripting"},
      {kAclConnection, "connection"},
      {kAclKeyspace, "generic"},
  };
  uint64_t acl = EffectiveAcl(spec);
  for (const auto& [bit, group] : kGroups) {
    if (acl & bit) return group;
  }
  return "server";
}

// The documentation map of one command: the non-empty fields of its row's doc (the group always,
// guessed when the row names none), then its subcommands' maps.
void ReplyCommandDocs(ReplyBuilder& r, const CommandSpec& spec) {
  const CommandDoc& doc = spec.doc;
  bool has_subs = !spec.subcommands.empty();
  size_t fields = !doc.summary.empty() + !doc.since.empty() + 1 + !doc.complexity.empty() +
                  (doc.doc_flags != 0) + !doc.deprecated_since.empty() + !doc.replaced_by.empty() +
                  !doc.history.empty() + !doc.args.empty() + has_subs;
  r.Map(fields);
  std::pair<std::string_view, std::string_view> texts[] = {
      {"summary", doc.summary},
      {"since", doc.since},
      {"group", doc.group.empty() ? GuessGroup(spec) : doc.group},
      {"complexity", doc.complexity},
  };
  for (const auto& [field, value] : texts) {
    if (value.empty()) continue;
    r.Bulk(field);
    r.Bulk(value);
  }
  if (doc.doc_flags != 0) {
    r.Bulk("doc_flags");
    r.Set(((doc.doc_flags & kDocDeprecated) != 0) + ((doc.doc_flags & kDocSysCmd) != 0));
    if (doc.doc_flags & kDocDeprecated) r.Simple("deprecated");
    if (doc.doc_flags & kDocSysCmd) r.Simple("syscmd");
  }
  if (!doc.deprecated_since.empty()) {
    r.Bulk("deprecated_since");
    r.Bulk(doc.deprecated_since);
  }
  if (!doc.replaced_by.empty()) {
    r.Bulk("replaced_by");
    r.Bulk(doc.replaced_by);
  }
  if (!doc.history.empty()) {
    r.Bulk("history");
    r.Set(doc.history.size());
    for (const HistoryEntry& h : doc.history) {
      r.Array(2);
      r.Bulk(h.version);
      r.Bulk(h.change);
    }
  }
  if (!doc.args.empty()) {
    r.Bulk("arguments");
    r.Array(doc.args.size());
    for (const ArgDoc& a : doc.args) ReplyArgDoc(r, a);
  }
  if (has_subs) {
    r.Bulk("subcommands");
    r.Map(spec.subcommands.size());
    for (const CommandSpec& sub : spec.subcommands) {
      r.Bulk(sub.full_name);
      ReplyCommandDocs(r, sub);
    }
  }
}

// COMMAND DOCS [name ...]: unknown names are left out of the map.
void CommandDocsCommand(CommandContext& c) {
  if (c.args.size() == 2) {
    const auto& all = c.server.commands().all();
    c.reply.Map(all.size());
    for (const auto& spec : all) {
      c.reply.Bulk(spec->full_name);
      ReplyCommandDocs(c.reply, *spec);
    }
    return;
  }
  std::vector<const CommandSpec*> found;
  for (size_t i = 2; i < c.args.size(); ++i) {
    const CommandSpec* spec = LookupFullName(c.server.commands(), c.args[i]);
    if (spec != nullptr) found.push_back(spec);
  }
  c.reply.Map(found.size());
  for (const CommandSpec* spec : found) {
    c.reply.Bulk(spec->full_name);
    ReplyCommandDocs(c.reply, *spec);
  }
}

// --- COMMAND LIST -----------------------------------------------------------------------------

// Which commands COMMAND LIST keeps.
struct ListFilter {
  enum class Kind { kAll, kModule, kAclCategory, kPattern } kind = Kind::kAll;
  std::string_view value;
  uint64_t acl_bit = 0;  // kAclCategory: 0 when the category does not exist
};

bool ListFilterAccepts(const ListFilter& f, const CommandSpec& spec) {
  switch (f.kind) {
    case ListFilter::Kind::kAll:
      return true;
    case ListFilter::Kind::kModule:
      return false;  // no modules are loaded, ever
    case ListFilter::Kind::kAclCategory:
      return (EffectiveAcl(spec) & f.acl_bit) != 0;
    case ListFilter::Kind::kPattern:
      return GlobMatch(f.value, spec.full_name, true);
  }
  return false;
}

void CollectListed(const ListFilter& f, const CommandSpec& spec,
                   std::vector<std::string_view>* out) {
  if (ListFilterAccepts(f, spec)) out->push_back(spec.full_name);
  for (const CommandSpec& sub : spec.subcommands) CollectListed(f, sub, out);
}

// COMMAND LIST [FILTERBY MODULE name | ACLCAT category | PATTERN pattern]
void CommandListCommand(CommandContext& c) {
  ListFilter filter;
  if (c.args.size() != 2) {
    if (c.args.size() != 5 || !EqualsIgnoreCase(c.args[2], "filterby")) {
      c.reply.Error(err::kSyntax);
      return;
    }
    std::string_view kind = c.args[3];
    filter.value = c.args[4];
    if (EqualsIgnoreCase(kind, "module")) {
      filter.kind = ListFilter::Kind::kModule;
    } else if (EqualsIgnoreCase(kind, "aclcat")) {
      filter.kind = ListFilter::Kind::kAclCategory;
      filter.acl_bit = AclCategoryBit(filter.value);
    } else if (EqualsIgnoreCase(kind, "pattern")) {
      filter.kind = ListFilter::Kind::kPattern;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  std::vector<std::string_view> names;
  for (const auto& spec : c.server.commands().all()) CollectListed(filter, *spec, &names);
  c.reply.Array(names.size());
  for (std::string_view name : names) c.reply.Bulk(name);
}

// --- COMMAND GETKEYS / GETKEYSANDFLAGS --------------------------------------------------------

// Shared by both: resolves the command line at args[2...], validates it like the dispatcher
// would and replies with its keys, with their flags when `with_flags`.
void ReplyKeysOf(CommandContext& c, bool with_flags) {
  std::vector<std::string_view> line(c.args.begin() + 2, c.args.end());
  const CommandSpec* spec = c.server.commands().Find(line[0]);
  if (spec != nullptr && !spec->subcommands.empty() && line.size() >= 2) {
    spec = spec->FindSubcommand(line[1]);
  }
  if (spec == nullptr) {
    c.reply.Error(err::kInvalidCommand);
    return;
  }
  if (!CommandHasKeys(*spec)) {
    c.reply.Error(err::kNoKeyArguments);
    return;
  }
  if (!ArityAdmits(*spec, line)) {
    c.reply.Error(err::kInvalidArgCount);
    return;
  }
  std::vector<KeyRef> keys = FindKeys(*spec, line, KeySearch::kSpecs);
  if (keys.empty() && (spec->flags & kCmdNoMandatoryKeys) == 0) {
    c.reply.Error(err::kInvalidArguments);
    return;
  }
  c.reply.Array(keys.size());
  for (const KeyRef& k : keys) {
    if (!with_flags) {
      c.reply.Bulk(line[static_cast<size_t>(k.index)]);
      continue;
    }
    c.reply.Array(2);
    c.reply.Bulk(line[static_cast<size_t>(k.index)]);
    std::vector<std::string_view> names = KeyFlagNames(k.flags);
    c.reply.Set(names.size());
    for (std::string_view n : names) c.reply.Simple(n);
  }
}

void CommandGetKeysCommand(CommandContext& c) { ReplyKeysOf(c, false); }
void CommandGetKeysAndFlagsCommand(CommandContext& c) { ReplyKeysOf(c, true); }

// --- COMMAND HELP -----------------------------------------------------------------------------

void CommandHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "COMMAND",
            {
                "(no subcommand)",
                "    Describe every command this server knows.",
                "COUNT",
                "    Return how many commands this server knows.",
                "LIST [FILTERBY (MODULE <module-name>|ACLCAT <category>|PATTERN <pattern>)]",
                "    Return the names of all commands, or of the ones that pass the filter.",
                "INFO [<command-name> ...]",
                "    Describe the named commands (\"container|subcommand\" names a subcommand).",
                "    Without names, every command is described.",
                "DOCS [<command-name> ...]",
                "    Return the documentation of the named commands.",
                "    Without names, every command's documentation is returned.",
                "GETKEYS <full-command>",
                "    Return the arguments of <full-command> that are keys.",
                "GETKEYSANDFLAGS <full-command>",
                "    Like GETKEYS, with the way the command uses each key.",
            });
}

}  // namespace

using docs::OneOf;
using docs::Pattern;
using docs::String;

void RegisterCommandCommand(CommandTable& t) {
  constexpr uint64_t kFlags = kCmdLoading | kCmdStale;
  constexpr uint64_t kAcl = kAclSlow | kAclConnection;
  t
      .Register(
          {
              .name = "command",
              .arity = -1,
              .flags = kFlags,
              .acl = kAcl,
              .doc = {.summary = "Describes every command the server knows",
                      .since = "2.8.13",
                      .group = "server",
                      .complexity = "O(N) where N is the total number of Redis commands",
                      .tips = {"nondeterministic_output_order"}},
              .handler = CommandCommand,
              .subcommands =
                  {
                      {.name = "count",
                       .arity = 2,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Returns how many commands the server knows",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(1)"},
                       .handler = CommandCountCommand},
                      {.name = "info",
                       .arity = -2,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Describes the named commands, or all of them",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(N) where N is the number of commands to look up",
                               .history = {{"7.0.0",
                                            "Without arguments it describes every command."}},
                               .tips = {"nondeterministic_output_order"},
                               .args = {String("command-name").Optional().Multiple()}},
                       .handler = CommandInfoCommand},
                      {.name = "docs",
                       .arity = -2,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Returns the documentation of the named commands, or of "
                                          "all of them",
                               .since = "7.0.0",
                               .group = "server",
                               .complexity = "O(N) where N is the number of commands to look up",
                               .tips = {"nondeterministic_output_order"},
                               .args = {String("command-name").Optional().Multiple()}},
                       .handler = CommandDocsCommand},
                      {.name = "list",
                       .arity = -2,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Lists command names, optionally filtered by module, ACL "
                                          "category or pattern",
                               .since = "7.0.0",
                               .group = "server",
                               .complexity = "O(N) where N is the total number of Redis commands",
                               .tips = {"nondeterministic_output_order"},
                               .args = {OneOf("filterby", {String("module-name").Token("MODULE"),
                                                           String("category").Token("ACLCAT"),
                                                           Pattern("pattern").Token("PATTERN")})
                                            .Token("FILTERBY")
                                            .Optional()}},
                       .handler = CommandListCommand},
                      {.name = "getkeys",
                       .arity = -4,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Tells which arguments of a full command line are keys",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity =
                                   "O(N) where N is the number of arguments to the command"},
                       .handler = CommandGetKeysCommand},
                      {.name = "getkeysandflags",
                       .arity = -4,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary = "Tells which arguments of a full command line are keys "
                                          "and how each is used",
                               .since = "7.0.0",
                               .group = "server",
                               .complexity =
                                   "O(N) where N is the number of arguments to the command"},
                       .handler = CommandGetKeysAndFlagsCommand},
                      {.name = "help",
                       .arity = 2,
                       .flags = kFlags,
                       .acl = kAcl,
                       .doc = {.summary =
                                   "Lists the COMMAND subcommands with a short description of each",
                               .since = "5.0.0",
                               .group = "server",
                               .complexity = "O(1)"},
                       .handler = CommandHelpCommand},
                  },
          });
}

}  // namespace redistp
