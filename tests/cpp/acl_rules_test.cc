// ACL rules against the real command table: what each rule word does to a user, what a user may
// run, touch and hear, and how the rules are written back (replaying the description must give
// the same permissions).
#include <gtest/gtest.h>

#include "acl/acl_user.h"
#include "commands/register.h"
#include "server/command.h"

namespace redistp {
namespace {

class AclRules : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(RegisterCommands(table_).ok());
    ctx_.commands = &table_;
  }

  std::unique_ptr<AclUser> User(std::initializer_list<std::string_view> rules) {
    auto u = NewAclUser("u", ctx_);
    for (std::string_view r : rules) EXPECT_EQ(ApplyUserRule(*u, r, ctx_), "") << r;
    RefreshUnrestricted(*u, ctx_);
    return u;
  }

  AclVerdict::Kind Judge(const AclUser& u, std::vector<std::string_view> args) {
    const CommandSpec* spec = table_.Find(args[0]);
    if (!spec->subcommands.empty()) spec = spec->FindSubcommand(args[1]);
    return AclCheckCommand(u, *spec, args).kind;
  }

  CommandTable table_;
  AclRuleContext ctx_;
};

TEST_F(AclRules, NewUserMayRunNothing) {
  auto u = User({});
  EXPECT_EQ(Judge(*u, {"get", "k"}), AclVerdict::kCommand);
  EXPECT_EQ(DescribeUser(*u, ctx_), "off resetchannels -@all");
}

TEST_F(AclRules, NoAuthCommandsAreAlwaysAllowed) {
  auto u = User({"nocommands"});
  EXPECT_EQ(Judge(*u, {"auth", "a", "b"}), AclVerdict::kOk);
}

TEST_F(AclRules, CategoriesAndSubcommands) {
  auto u = User({"+@all", "-@dangerous", "+config|get", "~*"});
  EXPECT_EQ(Judge(*u, {"get", "k"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"flushall"}), AclVerdict::kCommand);
  EXPECT_EQ(Judge(*u, {"config", "get", "x"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"config", "set", "x", "y"}), AclVerdict::kCommand);
}

TEST_F(AclRules, FirstArgumentRule) {
  auto u = User({"+select|0"});
  EXPECT_EQ(Judge(*u, {"select", "0"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"select", "1"}), AclVerdict::kCommand);
  EXPECT_EQ(DescribeSelectorCommands(u->selectors[0], ctx_), "-@all +select|0");
}

TEST_F(AclRules, KeyPermissionsFollowKeySpecs) {
  auto u = User({"+@all", "%R~r*", "%W~w*"});
  EXPECT_EQ(Judge(*u, {"get", "r1"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"set", "r1", "v"}), AclVerdict::kKey);
  EXPECT_EQ(Judge(*u, {"set", "w1", "v"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"get", "w1"}), AclVerdict::kKey);
  AclVerdict v = AclCheckCommand(*u, *table_.Find("mget"), {"mget", "r1", "x", "r2"});
  EXPECT_EQ(v.kind, AclVerdict::kKey);
  EXPECT_EQ(v.position, 2);
}

TEST_F(AclRules, ChannelsAndPatterns) {
  auto u = User({"+@all", "resetchannels", "&news.*"});
  EXPECT_EQ(Judge(*u, {"publish", "news.x", "m"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"publish", "other", "m"}), AclVerdict::kChannel);
  EXPECT_EQ(Judge(*u, {"psubscribe", "news.*"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"psubscribe", "news.a*"}), AclVerdict::kChannel);
  EXPECT_EQ(Judge(*u, {"unsubscribe", "other"}), AclVerdict::kOk);
}

TEST_F(AclRules, SelectorsAllowWhenAnyAllowsWhole) {
  auto u = User({"+get", "~r*", "(+set ~w*)"});
  EXPECT_EQ(Judge(*u, {"get", "r"}), AclVerdict::kOk);
  EXPECT_EQ(Judge(*u, {"set", "w", "v"}), AclVerdict::kOk);
  // The most advanced refusal is reported: a key beats a command.
  EXPECT_EQ(Judge(*u, {"set", "r", "v"}), AclVerdict::kKey);
  EXPECT_EQ(Judge(*u, {"del", "r"}), AclVerdict::kCommand);
}

TEST_F(AclRules, BadRulesChangeNothing) {
  auto u = User({"~a"});
  std::string before = DescribeUser(*u, ctx_);
  EXPECT_EQ(ApplyUserRule(*u, "+nosuch", ctx_), "Unknown command or category name in ACL");
  EXPECT_EQ(ApplyUserRule(*u, "%X~a", ctx_), "Syntax error");
  EXPECT_EQ(ApplyUserRule(*u, "#12", ctx_).substr(0, 17), "The password hash");
  EXPECT_EQ(ApplyUserRule(*u, "+config|get|x", ctx_),
            "Allowing first-arg of a subcommand is not supported");
  EXPECT_EQ(DescribeUser(*u, ctx_), before);
}

TEST_F(AclRules, DescriptionReplaysToTheSamePermissions) {
  auto u = User({"+@all", "-@admin", "+config|get", "-get", "+@hash", "-hset", "~*"});
  std::string rules = DescribeSelectorCommands(u->selectors[0], ctx_);
  AclSelector again;
  size_t i = 0;
  while (i < rules.size()) {
    size_t j = rules.find(' ', i);
    if (j == std::string::npos) j = rules.size();
    EXPECT_EQ(ApplySelectorRule(again, rules.substr(i, j - i), ctx_), "");
    i = j + 1;
  }
  for (const auto& s : table_.all()) {
    EXPECT_EQ(again.Allows(s->id), u->selectors[0].Allows(s->id)) << s->full_name;
    for (const CommandSpec& sub : s->subcommands) {
      EXPECT_EQ(again.Allows(sub.id), u->selectors[0].Allows(sub.id)) << sub.full_name;
    }
  }
  EXPECT_EQ(rules.substr(0, 14), "+@all -@admin ");
}

TEST_F(AclRules, PasswordsAreSha256) {
  EXPECT_EQ(AclHashPassword("first"),
            "a7937b64b8caa58f03721bb6bacf5c78cb235febe0e70b1b84cd99541461a08e");
}

}  // namespace
}  // namespace redistp
