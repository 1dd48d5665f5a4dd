// The command table's registration rules: names are unique among top-level commands and among
// the subcommands of one container, case-insensitively; a refused row leaves the table as it
// was, and the first refusal is remembered for the caller of every family.
#include <gtest/gtest.h>

#include "commands/register.h"
#include "server/command.h"

namespace redistp {
namespace {

void Noop(CommandContext&) {}

CommandSpec Row(const char* name) { return {.name = name, .arity = 1, .handler = Noop}; }

TEST(CommandTable, RegistersAndFindsCaseInsensitively) {
  CommandTable t;
  ASSERT_TRUE(t.Register(Row("get")).ok());
  ASSERT_NE(t.Find("GeT"), nullptr);
  EXPECT_EQ(t.Find("GeT")->full_name, "get");
  EXPECT_TRUE(t.first_error().ok());
}

// Find remembers its last hit; a rename or a removal must not leave it answering to the old
// name, and a lookup of another name (of any case, or a prefix) must not take it.
TEST(CommandTable, TheLastHitNeverOutlivesARename) {
  CommandTable t;
  ASSERT_TRUE(t.Register(Row("get")).ok());
  ASSERT_TRUE(t.Register(Row("flushall")).ok());
  const CommandSpec* get = t.Find("get");
  ASSERT_NE(get, nullptr);
  EXPECT_EQ(t.Find("GET"), get);
  EXPECT_EQ(t.Find("ge"), nullptr);
  EXPECT_EQ(t.Find("gets"), nullptr);
  EXPECT_EQ(t.Find("get"), get);
  ASSERT_TRUE(t.Rename("get", "fetch").ok());
  EXPECT_EQ(t.Find("get"), nullptr);
  EXPECT_EQ(t.Find("FETCH"), get);
  ASSERT_NE(t.Find("flushall"), nullptr);
  ASSERT_TRUE(t.Rename("flushall", "").ok());
  EXPECT_EQ(t.Find("flushall"), nullptr);
  EXPECT_EQ(t.Find("fetch"), get);
}

TEST(CommandTable, RefusesADuplicateCommandName) {
  CommandTable t;
  ASSERT_TRUE(t.Register(Row("get")).ok());
  Status s = t.Register(Row("GET"));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'GET'"), std::string::npos) << s.message();
  EXPECT_EQ(t.size(), 1u);
  EXPECT_FALSE(t.first_error().ok());
  EXPECT_EQ(t.first_error().message(), s.message());
  // A later failure does not overwrite the first one.
  EXPECT_FALSE(t.Register(Row("get")).ok());
  EXPECT_EQ(t.first_error().message(), s.message());
}

TEST(CommandTable, RefusesDuplicateSubcommandNames) {
  CommandTable t;
  CommandSpec container = {.name = "box", .arity = -2, .subcommands = {Row("a"), Row("A")}};
  Status s = t.Register(std::move(container));
  EXPECT_FALSE(s.ok());
  EXPECT_NE(s.message().find("'box|A'"), std::string::npos) << s.message();
  EXPECT_EQ(t.Find("box"), nullptr);
  // The same subcommand name under two containers is fine.
  EXPECT_TRUE(t.Register({.name = "one", .arity = -2, .subcommands = {Row("help")}}).ok());
  EXPECT_TRUE(t.Register({.name = "two", .arity = -2, .subcommands = {Row("help")}}).ok());
  ASSERT_NE(t.Find("two"), nullptr);
  EXPECT_EQ(t.Find("two")->FindSubcommand("HELP")->full_name, "two|help");
}

// The widening a row with a newer server's option carries (ZRANK's WITHSCORE): the row's own
// arity answers first, the widening only for what it refused.
bool FourthWordIsTag(const std::vector<std::string_view>& args) {
  return args.size() == 4 && args[3] == "tag";
}

TEST(CommandTable, ArityAdmitsTheRowsArityAndItsWideningAlone) {
  CommandSpec exact = {.name = "z", .arity = 3, .handler = Noop};
  EXPECT_TRUE(ArityAdmits(exact, {"z", "k", "m"}));
  EXPECT_FALSE(ArityAdmits(exact, {"z", "k"}));
  EXPECT_FALSE(ArityAdmits(exact, {"z", "k", "m", "tag"}));
  exact.widen_arity = FourthWordIsTag;
  EXPECT_TRUE(ArityAdmits(exact, {"z", "k", "m"}));
  EXPECT_TRUE(ArityAdmits(exact, {"z", "k", "m", "tag"}));
  EXPECT_FALSE(ArityAdmits(exact, {"z", "k", "m", "other"}));
  EXPECT_FALSE(ArityAdmits(exact, {"z", "k", "m", "tag", "x"}));
  EXPECT_FALSE(ArityAdmits(exact, {"z", "k"}));
  CommandSpec at_least = {.name = "y", .arity = -2, .handler = Noop};
  EXPECT_FALSE(ArityAdmits(at_least, {"y"}));
  EXPECT_TRUE(ArityAdmits(at_least, {"y", "a", "b", "c"}));
}

TEST(CommandTable, ZRankKeepsRedis70sArityWidenedToWithScore) {
  CommandTable t;
  ASSERT_TRUE(RegisterCommands(t).ok());
  for (const char* name : {"zrank", "zrevrank"}) {
    const CommandSpec* spec = t.Find(name);
    ASSERT_NE(spec, nullptr) << name;
    EXPECT_EQ(spec->arity, 3) << name;
    EXPECT_TRUE(ArityAdmits(*spec, {name, "k", "m", "WithScore"})) << name;
    EXPECT_FALSE(ArityAdmits(*spec, {name, "k", "m", "withscores"})) << name;
    EXPECT_FALSE(ArityAdmits(*spec, {name, "k", "m", "withscore", "x"})) << name;
  }
}

TEST(CommandTable, TheRealTableHasNoDuplicatesAndEveryRowIsDocumented) {
  CommandTable t;
  Status s = RegisterCommands(t);
  ASSERT_TRUE(s.ok()) << s.message();
  // Registering every family a second time must fail on the first row.
  EXPECT_FALSE(RegisterCommands(t).ok());
  for (const auto& spec : t.all()) {
    EXPECT_FALSE(spec->doc.summary.empty()) << spec->full_name;
    EXPECT_FALSE(spec->doc.group.empty()) << spec->full_name;
    for (const CommandSpec& sub : spec->subcommands) {
      EXPECT_FALSE(sub.doc.summary.empty()) << sub.full_name;
    }
  }
}

}  // namespace
}  // namespace redistp
