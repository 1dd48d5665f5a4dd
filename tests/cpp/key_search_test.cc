// The key search of every command row (FindKeys, server/command_docs.h), walked over the whole
// table. For each row (subcommands included) two sample lines are generated from the row's own
// argument documentation: the shortest one (required arguments only) and a long one (every
// optional argument too, the first alternative of each choice, one of each repeated group).
// Every key-typed argument gets a distinct name, so its position is known. Then:
//   - both search modes return positions inside the line, never the command name;
//   - a row with key specs finds, by its specs, exactly the key-typed arguments of the sample
//     (the specs, the argument docs and COMMAND GETKEYS agree);
//   - on those well-formed samples the procedure finds the same keys as the specs, but for
//     the documented few whose procedure Redis 7.0 defines otherwise (listed below with why).
// The cases where the two modes differ on purpose (malformed counts) are checked by hand at
// the end, as Redis 7.0.15 answers them.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "harness.h"
#include "server/command.h"
#include "server/command_docs.h"

namespace redistp {
namespace {

using testing::Harness;

struct Sample {
  std::vector<std::string> words;
  std::set<int> keys;  // positions of key-typed arguments
};

// Appends one instance of `a` to the sample (with optional arguments when `full`).
void Generate(const ArgDoc& a, bool full, Sample* s) {
  if ((a.flags & kArgOptional) != 0 && !full) return;
  if (!a.token.empty() && a.type != ArgType::kPureToken) s->words.emplace_back(a.token);
  switch (a.type) {
    case ArgType::kPureToken:
      s->words.emplace_back(a.token);
      break;
    case ArgType::kOneOf:
      if (!a.args.empty()) Generate(a.args[0], full, s);
      break;
    case ArgType::kBlock:
      for (const ArgDoc& part : a.args) Generate(part, full, s);
      break;
    case ArgType::kKey:
      s->keys.insert(static_cast<int>(s->words.size()));
      s->words.push_back("key:" + std::to_string(s->words.size()));
      break;
    case ArgType::kInteger:
    case ArgType::kUnixTime:
      s->words.emplace_back("1");  // one instance of each repeated group: a count of 1 fits
      break;
    case ArgType::kDouble:
      s->words.emplace_back("1.5");
      break;
    case ArgType::kPattern:
      s->words.emplace_back("pat*");
      break;
    case ArgType::kString:
      s->words.push_back("s" + std::to_string(s->words.size()));
      break;
  }
}

Sample SampleOf(const CommandSpec& spec, bool full) {
  Sample s;
  if (spec.parent != nullptr) s.words.push_back(spec.parent->name);
  s.words.push_back(spec.name);
  for (const ArgDoc& a : spec.doc.args) Generate(a, full, &s);
  return s;
}

std::set<int> Positions(const std::vector<KeyRef>& keys) {
  std::set<int> out;
  for (const KeyRef& k : keys) out.insert(k.index);
  return out;
}

bool HasRealSpecs(const CommandSpec& spec) {
  for (const KeySpec& ks : spec.doc.key_specs) {
    if ((ks.flags & kKeyNotKey) == 0) return true;
  }
  return false;
}

// Rows whose generated samples are not lines the command accepts, or whose procedure Redis
// 7.0 defines to differ from the specs on them. Each is checked by hand below instead.
bool SampleExempt(const std::string& full_name, bool full) {
  // MIGRATE: KEYS needs the key argument empty; the long sample gives both.
  // GEORADIUS(BYMEMBER): with both STORE and STOREDIST given, the procedure keeps only the
  // last one, which is the one the command writes; the specs report both.
  return full &&
         (full_name == "migrate" || full_name == "georadius" || full_name == "georadiusbymember");
}

template <typename Fn>
void ForEachRow(const CommandTable& table, Fn fn) {
  for (const auto& row : table.all()) {
    fn(*row);
    for (const CommandSpec& sub : row->subcommands) fn(sub);
  }
}

TEST(KeySearchTest, EveryRowsKeysLieInsideTheLine) {
  Harness h;
  size_t rows = 0;
  ForEachRow(h.server().commands(), [&](const CommandSpec& spec) {
    ++rows;
    for (bool full : {false, true}) {
      Sample s = SampleOf(spec, full);
      std::vector<std::string_view> args(s.words.begin(), s.words.end());
      for (KeySearch mode : {KeySearch::kSpecs, KeySearch::kProcedure}) {
        for (const KeyRef& k : FindKeys(spec, args, mode)) {
          EXPECT_GE(k.index, spec.parent != nullptr ? 2 : 1) << spec.full_name;
          EXPECT_LT(k.index, static_cast<int>(args.size())) << spec.full_name;
        }
      }
      // Every prefix of the line too: a short line never yields a position past its end.
      for (size_t n = 1; n < args.size(); ++n) {
        std::vector<std::string_view> cut(args.begin(), args.begin() + static_cast<ptrdiff_t>(n));
        for (KeySearch mode : {KeySearch::kSpecs, KeySearch::kProcedure}) {
          for (const KeyRef& k : FindKeys(spec, cut, mode)) {
            EXPECT_LT(k.index, static_cast<int>(n)) << spec.full_name << " cut at " << n;
          }
        }
      }
    }
  });
  EXPECT_GT(rows, 200u);
}

// The shortcut for one fixed key answers as the full search wherever it answers, and answers
// for the common rows (it is what keeps a restricted user's check cheap).
TEST(KeySearchTest, TheSingleKeyShortcutAgreesWithTheSearch) {
  Harness h;
  size_t answered = 0;
  ForEachRow(h.server().commands(), [&](const CommandSpec& spec) {
    for (bool full : {false, true}) {
      Sample s = SampleOf(spec, full);
      std::vector<std::string_view> args(s.words.begin(), s.words.end());
      for (size_t n = 1; n <= args.size(); ++n) {
        std::vector<std::string_view> cut(args.begin(), args.begin() + static_cast<ptrdiff_t>(n));
        KeyRef one{};
        if (!FindSingleFixedKey(spec, cut, &one)) continue;
        ++answered;
        std::vector<KeyRef> all = FindKeys(spec, cut, KeySearch::kSpecs);
        ASSERT_EQ(all.size(), 1u) << spec.full_name << " cut at " << n;
        EXPECT_EQ(all[0].index, one.index) << spec.full_name;
        EXPECT_EQ(all[0].flags, one.flags) << spec.full_name;
      }
    }
  });
  EXPECT_GT(answered, 100u);
  const CommandSpec* get = h.server().commands().Find("get");
  ASSERT_NE(get, nullptr);
  KeyRef one{};
  std::vector<std::string_view> line = {"get", "k"};
  EXPECT_TRUE(FindSingleFixedKey(*get, line, &one));
  EXPECT_EQ(one.index, 1);
  line.pop_back();
  EXPECT_FALSE(FindSingleFixedKey(*get, line, &one));  // the line stops before the key
  // SET answers too, with the flags its GET option refines: read access only with GET.
  const CommandSpec* set = h.server().commands().Find("set");
  ASSERT_NE(set, nullptr);
  std::vector<std::string_view> plain = {"set", "k", "v"};
  std::vector<std::string_view> with_get = {"set", "k", "v", "GET"};
  ASSERT_TRUE(FindSingleFixedKey(*set, plain, &one));
  EXPECT_EQ(one.flags & kKeyAccess, 0u);
  ASSERT_TRUE(FindSingleFixedKey(*set, with_get, &one));
  EXPECT_NE(one.flags & kKeyAccess, 0u);
}

TEST(KeySearchTest, SpecsFindTheDocumentedKeysAndTheProcedureAgrees) {
  Harness h;
  size_t checked = 0;
  ForEachRow(h.server().commands(), [&](const CommandSpec& spec) {
    if (!HasRealSpecs(spec)) return;
    for (bool full : {false, true}) {
      Sample s = SampleOf(spec, full);
      if (SampleExempt(spec.full_name, full)) continue;
      std::vector<std::string_view> args(s.words.begin(), s.words.end());
      std::set<int> by_specs = Positions(FindKeys(spec, args, KeySearch::kSpecs));
      std::set<int> by_procedure = Positions(FindKeys(spec, args, KeySearch::kProcedure));
      std::string line;
      for (const std::string& w : s.words) line += w + " ";
      EXPECT_EQ(by_specs, s.keys) << "specs vs argument docs: " << line;
      EXPECT_EQ(by_procedure, by_specs) << "procedure vs specs: " << line;
      ++checked;
    }
  });
  EXPECT_GT(checked, 300u);
}

std::vector<int> Keys(Harness& h, std::vector<std::string_view> args, KeySearch mode) {
  const CommandSpec* spec = h.server().commands().Find(args[0]);
  EXPECT_NE(spec, nullptr) << args[0];
  std::vector<int> at;
  for (const KeyRef& k : FindKeys(*spec, args, mode)) at.push_back(k.index);
  return at;
}

TEST(KeySearchTest, TheModesDifferWhereRedisDiffers) {
  Harness h;
  constexpr KeySearch kSpecs = KeySearch::kSpecs, kProc = KeySearch::kProcedure;
  // XREAD: the specs take COUNT's value "STREAMS" for the keyword, the procedure skips it.
  EXPECT_EQ(Keys(h, {"xread", "COUNT", "STREAMS", "STREAMS", "a", "0"}, kSpecs),
            std::vector<int>{3});
  EXPECT_EQ(Keys(h, {"xread", "COUNT", "STREAMS", "STREAMS", "a", "0"}, kProc),
            std::vector<int>{4});
  // GEORADIUS with both stores: the specs report both, the procedure the one written.
  std::vector<std::string_view> geo = {"georadius", "g",     "1", "2",         "3",
                                       "m",         "STORE", "d", "STOREDIST", "e"};
  EXPECT_EQ(Keys(h, geo, kSpecs), (std::vector<int>{1, 7, 9}));
  EXPECT_EQ(Keys(h, geo, kProc), (std::vector<int>{1, 9}));
  // ZUNIONSTORE: the legacy triple of Redis's table would give only dst; the procedure gives
  // the sources then dst; a count the specs cannot read goes to the procedure in both modes.
  EXPECT_EQ(Keys(h, {"zunionstore", "d", "2", "a", "b"}, kSpecs), (std::vector<int>{1, 3, 4}));
  EXPECT_EQ(Keys(h, {"zunionstore", "d", "2", "a", "b"}, kProc), (std::vector<int>{3, 4, 1}));
  EXPECT_EQ(Keys(h, {"zunionstore", "d", "1e3", "a", "b"}, kSpecs), (std::vector<int>{3, 1}));
  EXPECT_TRUE(Keys(h, {"zunionstore", "d", "0", "a"}, kSpecs).empty());
  EXPECT_TRUE(Keys(h, {"zunionstore", "d", "2", "a"}, kSpecs).empty());
  EXPECT_TRUE(Keys(h, {"zunionstore", "d", "2", "a"}, kProc).empty());
  // A procedure's keys carry the flags Redis's procedure gives: the count procedures none.
  const CommandSpec* eval = h.server().commands().Find("eval");
  std::vector<std::string_view> line = {"eval", "x", "1e0", "a"};
  std::vector<KeyRef> keys = FindKeys(*eval, line, kSpecs);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_EQ(keys[0].flags, 0u);
  line = {"eval", "x", "1", "a"};
  keys = FindKeys(*eval, line, kSpecs);
  ASSERT_EQ(keys.size(), 1u);
  EXPECT_NE(keys[0].flags & kKeyAccess, 0u);
}

}  // namespace
}  // namespace redistp
