// Compare-and-set and compare-and-delete (src/commands/strings_cas.cc, SET's compare options in
// strings.cc) in the in-process harness: what each form records for replicas and the AOF
// (docs/compare-and-set.md: a deletion as DEL, a conditional SET as SET without its condition,
// nothing when the condition fails), and the digest text against XXH3-64 values a client
// library computes (leading zeros kept).
#include "commands/string_cas.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

std::string Digest(std::string_view bytes) {
  char out[kDigestHexLength];
  FormatValueDigest(bytes, out);
  return std::string(out, kDigestHexLength);
}

TEST(StringCas, DigestIsXxh3AsSixteenLowercaseHexDigits) {
  EXPECT_EQ(Digest("hello"), "9555e8555c62dcfd");
  EXPECT_EQ(Digest(""), "2d06800538d394c2");
  EXPECT_EQ(Digest("123"), "404a763b3f4c8c9a");
  EXPECT_EQ(Digest("v8"), "0cc76dbb41381419");
}

TEST(StringCas, ConditionWordsInAnyCase) {
  EXPECT_EQ(ParseCasCondition("ifeq"), CasCondition::kIfEq);
  EXPECT_EQ(ParseCasCondition("IfNe"), CasCondition::kIfNe);
  EXPECT_EQ(ParseCasCondition("IFDEQ"), CasCondition::kIfDeq);
  EXPECT_EQ(ParseCasCondition("ifdne"), CasCondition::kIfDne);
  EXPECT_EQ(ParseCasCondition("IFEQX"), CasCondition::kNone);
  EXPECT_EQ(ParseCasCondition(""), CasCondition::kNone);
}

TEST(StringCas, ConditionalSetRecordsPlainSet) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"SET", "k", "w", "IFEQ", "v"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"SET", "k", "x", "ifdeq", Digest("w"), "KEEPTTL"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"SET", "k", "y", "IFEQ", "v", "GET"}).Text(), "\"x\"");
  EXPECT_EQ(h.Run("a", {"SET", "n", "1", "IFNE", "x", "GET"}).Text(), "(nil)");
  EXPECT_EQ(h.Propagated(),
            (Records{{"SET", "k", "w"}, {"SET", "k", "x", "KEEPTTL"}, {"SET", "n", "1"}}));
  EXPECT_EQ(h.Run("a", {"SET", "k", "z", "IFNE", "x", "PX", "1000"}).Text(), "(nil)");
  EXPECT_EQ(h.Run("a", {"SET", "k", "z", "IFEQ", "x", "PX", "1000"}).Text(), "OK");
  EXPECT_EQ(h.Propagated(),
            (Records{{"SET", "k", "z", "PXAT", std::to_string(h.clock().WallMs() + 1000)}}));
}

TEST(StringCas, RefusedConditionsRecordNothing) {
  Harness h;
  h.Run("a", {"SET", "k", "v"});
  h.Run("a", {"RPUSH", "l", "a"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"SET", "k", "w", "IFEQ", "other"}).Text(), "(nil)");
  EXPECT_EQ(h.Run("a", {"SET", "none", "w", "IFDEQ", Digest("w")}).Text(), "(nil)");
  EXPECT_EQ(h.Run("a", {"SET", "k", "w", "IFDNE", "short"}).Text(),
            "(error) ERR must be exactly 16 hexadecimal characters");
  EXPECT_EQ(h.Run("a", {"DELIFEQ", "k", "other"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"DELEX", "k", "IFNE", "v"}).Text(), "(integer) 0");
  EXPECT_EQ(h.Run("a", {"DELEX", "l", "IFEQ", "a"}).Text(),
            "(error) ERR Key should be of string type if conditions are specified");
  EXPECT_EQ(h.Run("a", {"DELIFEQ", "l", "a"}).Text(),
            "(error) WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(h.Run("a", {"DIGEST", "k"}).Text(), "\"" + Digest("v") + "\"");
  EXPECT_EQ(h.Propagated(), Records{});
}

TEST(StringCas, DeletionsRecordDel) {
  Harness h;
  for (const char* k : {"a", "b", "c", "d"}) h.Run("a", {"SET", k, "v"});
  h.Run("a", {"HSET", "h", "f", "v"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"DELIFEQ", "a", "v"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"DELEX", "b", "IFEQ", "v"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"DELEX", "c", "IFDEQ", Digest("v")}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("a", {"DELEX", "h"}).Text(), "(integer) 1");
  // lazyfree-lazy-user-del frees in the background but still records DEL (not UNLINK).
  h.Run("a", {"CONFIG", "SET", "lazyfree-lazy-user-del", "yes"});
  EXPECT_EQ(h.Run("a", {"DELEX", "d", "IFNE", "x"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Propagated(),
            (Records{{"DEL", "a"}, {"DEL", "b"}, {"DEL", "c"}, {"DEL", "h"}, {"DEL", "d"}}));
}

}  // namespace
}  // namespace redistp::testing
