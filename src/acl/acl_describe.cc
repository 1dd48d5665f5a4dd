// Writing users back as rule words (ACL LIST, ACL GETUSER, ACL SAVE, CONFIG REWRITE).
//
// Commands are described from the bitmap, not from the words that built it, as Redis 7.0 does,
// so two users that may run the same commands read alike. The walk: start from "+@all" when the
// selector may run future commands, else "-@all"; then, category by category in Redis's order,
// add the category (or take it away, after "+@all") when that matches more of the commands it
// holds than it misses, keeping a scratch copy in which the chosen categories are undone so
// later categories are judged on what is left; then name each single command (and subcommand)
// where the result still differs, and the first-argument exceptions. Replaying the words gives
// the same bitmap. Single commands come in the command table's order (Redis's come in its hash
// table's order, which changes from run to run).
#include <string>

#include "acl/acl_user.h"

namespace redistp {

namespace {

void CountCategory(const AclSelector& sel, const std::vector<CommandSpec>& rows, uint64_t bit,
                   size_t* on, size_t* off) {
  for (const CommandSpec& s : rows) {
    if ((EffectiveAclCategories(s) & bit) != 0) (sel.Allows(s.id) ? *on : *off) += 1;
    CountCategory(sel, s.subcommands, bit, on, off);
  }
}

void AppendDifferences(const AclSelector& sel, AclSelector& fake, const CommandSpec& spec,
                       const AclRuleContext& ctx, std::string* out) {
  bool want = sel.Allows(spec.id);
  if (want != fake.Allows(spec.id)) {
    std::string word = (want ? "+" : "-") + spec.full_name;
    ApplySelectorRule(fake, word, ctx);
    *out += word;
    *out += ' ';
  }
  auto it = sel.first_args.find(spec.id);
  if (it != sel.first_args.end()) {
    for (const std::string& a : it->second) {
      *out += "+" + spec.full_name + "|" + a + " ";
    }
  }
  for (const CommandSpec& sub : spec.subcommands) AppendDifferences(sel, fake, sub, ctx, out);
}

}  // namespace

std::string DescribeSelectorCommands(const AclSelector& sel, const AclRuleContext& ctx) {
  const bool additive = !sel.future_commands;
  std::string out = additive ? "-@all " : "+@all ";
  AclSelector fake;
  ApplySelectorRule(fake, additive ? "-@all" : "+@all", ctx);
  AclSelector scratch = sel;
  for (const AclCategoryName& cat : AclCategories()) {
    size_t on = 0, off = 0;
    for (const auto& s : ctx.commands->all()) {
      if ((EffectiveAclCategories(*s) & cat.bit) != 0) (scratch.Allows(s->id) ? on : off) += 1;
      CountCategory(scratch, s->subcommands, cat.bit, &on, &off);
    }
    if ((additive && on > off) || (!additive && off > on)) {
      std::string name(cat.name);
      std::string word = (additive ? "+@" : "-@") + name;
      ApplySelectorRule(fake, word, ctx);
      ApplySelectorRule(scratch, (additive ? "-@" : "+@") + name, ctx);
      out += word;
      out += ' ';
    }
  }
  for (const auto& s : ctx.commands->all()) AppendDifferences(sel, fake, *s, ctx, &out);
  out.pop_back();
  return out;
}

std::string DescribeSelectorKeys(const AclSelector& sel) {
  if (sel.all_keys) return "~*";
  std::string out;
  for (const AclKeyPattern& k : sel.keys) {
    if (!out.empty()) out += ' ';
    if (k.perms == kAclKeyRead) {
      out += "%R";
    } else if (k.perms == kAclKeyWrite) {
      out += "%W";
    }
    out += '~';
    out += k.pattern;
  }
  return out;
}

std::string DescribeSelectorChannels(const AclSelector& sel) {
  if (sel.all_channels) return "&*";
  std::string out;
  for (const std::string& c : sel.channels) {
    if (!out.empty()) out += ' ';
    out += '&';
    out += c;
  }
  return out;
}

std::string DescribeSelector(const AclSelector& sel, const AclRuleContext& ctx) {
  std::string out = DescribeSelectorKeys(sel);
  if (!out.empty()) out += ' ';
  if (!sel.all_channels) out += "resetchannels ";
  std::string channels = DescribeSelectorChannels(sel);
  if (!channels.empty()) out += channels + " ";
  out += DescribeSelectorCommands(sel, ctx);
  return out;
}

std::string DescribeUser(const AclUser& user, const AclRuleContext& ctx) {
  std::string out;
  for (const auto& [bit, name] : kAclUserFlagNames) {
    if (user.flags & bit) {
      out += name;
      out += ' ';
    }
  }
  for (const std::string& h : user.passwords) out += "#" + h + " ";
  out += DescribeSelector(user.selectors[0], ctx);
  for (size_t i = 1; i < user.selectors.size(); ++i) {
    out += " (" + DescribeSelector(user.selectors[i], ctx) + ")";
  }
  return out;
}

}  // namespace redistp
