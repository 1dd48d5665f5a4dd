// ACL: the container of the commands that manage users (src/acl holds the model and the
// rules; this file parses arguments and shapes replies as Redis 7.0 does).
//
// Reply shapes worth knowing: GETUSER answers a map of six fields (flags as a set, passwords as
// hashes, then commands/keys/channels as rule strings, then the selectors, each a map of the
// last three) or a null for an unknown user; LOG answers maps of seven fields, newest first,
// age-seconds a double; DRYRUN answers OK or a plain bulk string saying what was refused.
#include <openssl/rand.h>

#include <string>
#include <vector>

#include "acl/acl.h"
#include "commands/help_reply.h"
#include "commands/register.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void AclSetUserCommand(CommandContext& c) {
  std::vector<std::string> rules(c.args.begin() + 3, c.args.end());
  std::string e = Acl::Of(c.server).SetUser(c.args[2], rules, &c.client);
  if (!e.empty()) {
    c.reply.Error(e);
    return;
  }
  c.reply.Ok();
}

void AclGetUserCommand(CommandContext& c) {
  Acl& acl = Acl::Of(c.server);
  AclUser* u = acl.Find(c.args[2]);
  if (u == nullptr) {
    c.reply.Null();
    return;
  }
  AclRuleContext ctx = acl.rule_context();
  c.reply.Map(6);
  c.reply.Bulk("flags");
  size_t n = 0;
  for (const auto& [bit, name] : kAclUserFlagNames) n += (u->flags & bit) != 0;
  c.reply.Set(n);
  for (const auto& [bit, name] : kAclUserFlagNames) {
    if (u->flags & bit) c.reply.Bulk(name);
  }
  c.reply.Bulk("passwords");
  c.reply.Array(u->passwords.size());
  for (const std::string& p : u->passwords) c.reply.Bulk(p);
  const AclSelector& root = u->selectors[0];
  c.reply.Bulk("commands");
  c.reply.Bulk(DescribeSelectorCommands(root, ctx));
  c.reply.Bulk("keys");
  c.reply.Bulk(DescribeSelectorKeys(root));
  c.reply.Bulk("channels");
  c.reply.Bulk(DescribeSelectorChannels(root));
  c.reply.Bulk("selectors");
  c.reply.Array(u->selectors.size() - 1);
  for (size_t i = 1; i < u->selectors.size(); ++i) {
    const AclSelector& s = u->selectors[i];
    c.reply.Map(3);
    c.reply.Bulk("commands");
    c.reply.Bulk(DescribeSelectorCommands(s, ctx));
    c.reply.Bulk("keys");
    c.reply.Bulk(DescribeSelectorKeys(s));
    c.reply.Bulk("channels");
    c.reply.Bulk(DescribeSelectorChannels(s));
  }
}

void AclDelUserCommand(CommandContext& c) {
  std::vector<std::string_view> names(c.args.begin() + 2, c.args.end());
  for (std::string_view n : names) {
    if (n == "default") {
      c.reply.Error(err::kAclCantDeleteDefault);
      return;
    }
  }
  c.reply.Int(Acl::Of(c.server).DelUsers(names, &c.client));
}

void AclListCommand(CommandContext& c) {
  Acl& acl = Acl::Of(c.server);
  AclRuleContext ctx = acl.rule_context();
  c.reply.Array(acl.users().size());
  for (const auto& [name, u] : acl.users()) {
    c.reply.Bulk("user " + name + " " + DescribeUser(*u, ctx));
  }
}

void AclUsersCommand(CommandContext& c) {
  Acl& acl = Acl::Of(c.server);
  c.reply.Array(acl.users().size());
  for (const auto& [name, u] : acl.users()) c.reply.Bulk(name);
}

void AclWhoAmICommand(CommandContext& c) {
  c.reply.Bulk(Acl::Of(c.server).UserOf(c.client).name());
}

void CollectCategory(const std::vector<CommandSpec>& rows, uint64_t bit,
                     std::vector<std::string_view>* out) {
  for (const CommandSpec& s : rows) {
    if (EffectiveAclCategories(s) & bit) out->push_back(s.full_name);
    CollectCategory(s.subcommands, bit, out);
  }
}

void AclCatCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "ACL"));
    return;
  }
  if (c.args.size() == 2) {
    c.reply.Array(AclCategories().size());
    for (const AclCategoryName& cat : AclCategories()) c.reply.Bulk(cat.name);
    return;
  }
  uint64_t bit = AclCategoryBit(c.args[2]);
  if (bit == 0) {
    c.reply.Error(err::AclUnknownCategory(c.args[2]));
    return;
  }
  std::vector<std::string_view> names;
  for (const auto& s : c.server.commands().all()) {
    if (EffectiveAclCategories(*s) & bit) names.push_back(s->full_name);
    CollectCategory(s->subcommands, bit, &names);
  }
  c.reply.Array(names.size());
  for (std::string_view n : names) c.reply.Bulk(n);
}

void AclGenPassCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "ACL"));
    return;
  }
  int64_t bits = 256;
  if (c.args.size() == 3) {
    if (!ParseInt64(c.args[2], &bits)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (bits <= 0 || bits > 4096) {
      c.reply.Error(err::kAclGenpassBits);
      return;
    }
  }
  // Hex digits of fresh random bytes: four bits a character, rounded up.
  size_t chars = static_cast<size_t>((bits + 3) / 4);
  std::vector<unsigned char> raw((chars + 1) / 2);
  if (RAND_bytes(raw.data(), static_cast<int>(raw.size())) != 1) {
    c.reply.Error("ERR Failed to generate random bytes");
    return;
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned char b : raw) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 15]);
  }
  out.resize(chars);
  c.reply.Bulk(out);
}

void AclLogCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "ACL"));
    return;
  }
  Acl& acl = Acl::Of(c.server);
  int64_t count = 10;
  if (c.args.size() == 3) {
    if (EqualsIgnoreCase(c.args[2], "reset")) {
      acl.ResetLog();
      c.reply.Ok();
      return;
    }
    if (!ParseInt64(c.args[2], &count)) {
      c.reply.Error(err::kNotInteger);
      return;
    }
    if (count < 0) count = 0;
  }
  const auto& log = acl.log();
  size_t n = std::min(log.size(), static_cast<size_t>(count));
  int64_t now = c.server.NowMs();
  c.reply.Array(n);
  for (size_t i = 0; i < n; ++i) {
    const Acl::LogEntry& e = log[i];
    c.reply.Map(7);
    c.reply.Bulk("count");
    c.reply.Int(static_cast<int64_t>(e.count));
    c.reply.Bulk("reason");
    c.reply.Bulk(e.reason);
    c.reply.Bulk("context");
    c.reply.Bulk(e.context);
    c.reply.Bulk("object");
    c.reply.Bulk(e.object);
    c.reply.Bulk("username");
    c.reply.Bulk(e.username);
    c.reply.Bulk("age-seconds");
    // Redis 7.0 counts the age from the latest occurrence of a grouped entry.
    c.reply.Double(static_cast<double>(now - e.updated_ms) / 1000.0);
    c.reply.Bulk("client-info");
    c.reply.Bulk(e.client_info);
  }
}

void AclLoadCommand(CommandContext& c) {
  Status s = Acl::Of(c.server).LoadFile(&c.client);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void AclSaveCommand(CommandContext& c) {
  Status s = Acl::Of(c.server).SaveFile();
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void AclDryRunCommand(CommandContext& c) {
  Acl& acl = Acl::Of(c.server);
  AclUser* u = acl.Find(c.args[2]);
  if (u == nullptr) {
    c.reply.Error(err::AclUserNotFound(c.args[2]));
    return;
  }
  std::vector<std::string_view> args(c.args.begin() + 3, c.args.end());
  const CommandSpec* spec = c.server.commands().Find(args[0]);
  if (spec != nullptr && !spec->subcommands.empty()) {
    spec = args.size() >= 2 ? spec->FindSubcommand(args[1]) : nullptr;
  }
  if (spec == nullptr) {
    c.reply.Error(err::AclDryRunNoCommand(args[0]));
    return;
  }
  if (!ArityAdmits(*spec, args)) {
    c.reply.Error(err::WrongArity(spec->full_name));
    return;
  }
  AclVerdict v = AclCheckCommand(*u, *spec, args);
  switch (v.kind) {
    case AclVerdict::kOk:
      c.reply.Ok();
      break;
    case AclVerdict::kCommand:
      c.reply.Bulk(err::AclDryRunCommand(spec->full_name));
      break;
    case AclVerdict::kKey:
      c.reply.Bulk(err::AclDryRunKey(args[static_cast<size_t>(v.position)]));
      break;
    case AclVerdict::kChannel:
      c.reply.Bulk(err::AclDryRunChannel(args[static_cast<size_t>(v.position)]));
      break;
  }
}

void AclHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "ACL",
            {
                "CAT [<category>]",
                "    The categories of commands, or the commands of one category.",
                "DELUSER <username> [<username> ...]",
                "    Removes users and closes their connections.",
                "DRYRUN <username> <command> [<arg> ...]",
                "    Says whether a user could run a command, without running it.",
                "GETUSER <username>",
                "    The rules of one user.",
                "GENPASS [<bits>]",
                "    A random password of 256 bits, or of the bits asked for.",
                "LIST",
                "    Every user as a line of the ACL file.",
                "LOAD",
                "    Replaces the users with those of the ACL file.",
                "LOG [<count> | RESET]",
                "    The latest commands and logins refused, or empties that log.",
                "SAVE",
                "    Writes the users to the ACL file.",
                "SETUSER <username> <attribute> [<attribute> ...]",
                "    Creates a user or changes its rules.",
                "USERS",
                "    The names of the users.",
                "WHOAMI",
                "    The user this connection acts as.",
            });
}

using docs::Integer;
using docs::OneOf;
using docs::PureToken;
using docs::String;

}  // namespace

void RegisterAclCommands(CommandTable& t) {
  constexpr uint64_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kAdmin = kCmdAdmin | kBase;
  constexpr uint64_t kSlow = kAclSlow;
  auto row = [](std::string_view name, int arity, uint64_t flags, std::string_view summary,
                std::string_view complexity, CommandHandler h) {
    CommandSpec s;
    s.name = std::string(name);
    s.arity = arity;
    s.flags = flags;
    s.acl = kAclSlow;
    s.doc.summary = summary;
    s.doc.since = "6.0.0";
    s.doc.group = "server";
    s.doc.complexity = complexity;
    s.handler = h;
    return s;
  };
  CommandSpec acl{.name = "acl",
                  .arity = -2,
                  .acl = kSlow,
                  .doc = {.summary = "Container for the commands that manage ACL users",
                          .since = "6.0.0",
                          .group = "server",
                          .complexity = "Depends on subcommand."}};
  CommandSpec cat = row("cat", -2, kBase, "Lists the ACL categories, or the commands in one",
                        "O(1) since the categories and commands are a fixed set.", AclCatCommand);
  cat.doc.args = {String("categoryname").Optional()};
  CommandSpec deluser = row("deluser", -3, kAdmin, "Deletes ACL users and ends their connections",
                            "O(1) amortized time considering the typical user.", AclDelUserCommand);
  deluser.doc.args = {String("username").Multiple()};
  CommandSpec dryrun =
      row("dryrun", -4, kAdmin, "Says whether a user could run a command, without running it",
          "O(1).", AclDryRunCommand);
  dryrun.doc.since = "7.0.0";
  dryrun.doc.args = {String("username"), String("command"), String("arg").Optional().Multiple()};
  CommandSpec genpass = row("genpass", -2, kBase, "Returns a random password for an ACL user",
                            "O(1)", AclGenPassCommand);
  genpass.doc.args = {Integer("bits").Optional()};
  CommandSpec getuser = row("getuser", 3, kAdmin, "Returns the rules of one ACL user",
                            "O(N). Where N is the number of password, command and pattern rules "
                            "that the user has.",
                            AclGetUserCommand);
  getuser.doc.args = {String("username")};
  getuser.doc.history = {{"6.2.0", "Channel patterns added."},
                         {"7.0.0", "Selectors added; key and channel patterns are rule strings."}};
  CommandSpec help =
      row("help", 2, kCmdLoading | kCmdStale,
          "Lists the ACL subcommands with a short description of each", "O(1)", AclHelpCommand);
  CommandSpec list = row("list", 2, kAdmin, "Lists the users as lines of the ACL file",
                         "O(N). Where N is the number of configured users.", AclListCommand);
  CommandSpec load = row("load", 2, kAdmin, "Replaces the users with those of the ACL file",
                         "O(N). Where N is the number of configured users.", AclLoadCommand);
  CommandSpec log = row("log", -2, kAdmin, "Lists the latest events refused by ACL",
                        "O(N) with N being the number of entries shown.", AclLogCommand);
  log.doc.args = {OneOf("operation", {Integer("count"), PureToken("RESET")}).Optional()};
  CommandSpec save = row("save", 2, kAdmin, "Writes the users to the ACL file",
                         "O(N). Where N is the number of configured users.", AclSaveCommand);
  CommandSpec setuser = row("setuser", -3, kAdmin, "Creates or changes an ACL user",
                            "O(N). Where N is the number of rules provided.", AclSetUserCommand);
  setuser.doc.args = {String("username"), String("rule").Optional().Multiple()};
  setuser.doc.history = {{"6.2.0", "Channel patterns added."}, {"7.0.0", "Selectors added."}};
  // SLOWLOG (and a crash report) show none of its arguments: the user name and every rule,
  // passwords and hashes among them, are "(redacted)", as Redis 7.0 hides them.
  setuser.redact = [](std::vector<std::string_view>& shown) {
    for (size_t i = 2; i < shown.size(); ++i) shown[i] = kRedactedArg;
  };
  CommandSpec users = row("users", 2, kAdmin, "Lists the names of the ACL users",
                          "O(N). Where N is the number of configured users.", AclUsersCommand);
  CommandSpec whoami =
      row("whoami", 2, kBase, "Returns the user this connection acts as", "O(1)", AclWhoAmICommand);
  for (CommandSpec* s : {&cat, &deluser, &dryrun, &genpass, &getuser, &help, &list, &load, &log,
                         &save, &setuser, &users, &whoami}) {
    acl.subcommands.push_back(std::move(*s));
  }
  t.Register(std::move(acl));
}

}  // namespace redistp
