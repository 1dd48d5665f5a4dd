// Unit tests for GlobMatch: Redis's KEYS/SCAN MATCH pattern syntax. Expected answers were
// checked against Redis 7.0's KEYS on the same keys and patterns.
#include "util/glob.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace redistp {
namespace {

TEST(GlobTest, Literals) {
  EXPECT_TRUE(GlobMatch("hello", "hello"));
  EXPECT_FALSE(GlobMatch("hello", "hell"));
  EXPECT_FALSE(GlobMatch("hell", "hello"));
  EXPECT_FALSE(GlobMatch("hello", "Hello"));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  EXPECT_FALSE(GlobMatch("a", ""));
}

TEST(GlobTest, Star) {
  EXPECT_TRUE(GlobMatch("*", "anything"));
  EXPECT_TRUE(GlobMatch("h*o", "hello"));
  EXPECT_TRUE(GlobMatch("h*o", "ho"));
  EXPECT_FALSE(GlobMatch("h*o", "hola"));
  EXPECT_TRUE(GlobMatch("*llo", "hello"));
  EXPECT_TRUE(GlobMatch("he*", "he"));
  EXPECT_TRUE(GlobMatch("a*b*c", "a-b-b-c"));
  EXPECT_FALSE(GlobMatch("a*b*c", "a-b-b-"));
  EXPECT_TRUE(GlobMatch("a**b", "ab"));
  EXPECT_TRUE(GlobMatch("user:*:name", "user:42:name"));
  EXPECT_FALSE(GlobMatch("user:*:name", "user:42:mail"));
  // The star backtracks past a partial match of the rest.
  EXPECT_TRUE(GlobMatch("*aab", "aaaab"));
  EXPECT_TRUE(GlobMatch("*a?c*", "xxabxabcxx"));
}

TEST(GlobTest, QuestionMark) {
  EXPECT_TRUE(GlobMatch("h?llo", "hello"));
  EXPECT_TRUE(GlobMatch("h?llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h?llo", "hllo"));
  EXPECT_TRUE(GlobMatch("???", "abc"));
  EXPECT_FALSE(GlobMatch("???", "ab"));
  EXPECT_FALSE(GlobMatch("?", ""));
  EXPECT_TRUE(GlobMatch("?*", "x"));
}

TEST(GlobTest, Sets) {
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hello"));
  EXPECT_TRUE(GlobMatch("h[ae]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hillo"));
  EXPECT_FALSE(GlobMatch("h[ae]llo", "hllo"));
  EXPECT_TRUE(GlobMatch("[abc]*", "cat"));
  // ']' right after '[' closes an empty set, which matches nothing.
  EXPECT_FALSE(GlobMatch("[]a]", "a"));
  EXPECT_FALSE(GlobMatch("[]a]", "]"));
}

TEST(GlobTest, NegatedSets) {
  EXPECT_TRUE(GlobMatch("h[^e]llo", "hallo"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hello"));
  EXPECT_FALSE(GlobMatch("h[^e]llo", "hllo"));
  EXPECT_TRUE(GlobMatch("[^a-c]", "d"));
  EXPECT_FALSE(GlobMatch("[^a-c]", "b"));
  EXPECT_TRUE(GlobMatch("[^a]", "^"));
}

TEST(GlobTest, Ranges) {
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hallo"));
  EXPECT_TRUE(GlobMatch("h[a-b]llo", "hbllo"));
  EXPECT_FALSE(GlobMatch("h[a-b]llo", "hcllo"));
  EXPECT_TRUE(GlobMatch("[0-9][0-9]", "42"));
  EXPECT_FALSE(GlobMatch("[0-9][0-9]", "4x"));
  // Reversed ranges work as the forward range.
  EXPECT_TRUE(GlobMatch("[z-a]", "m"));
  EXPECT_TRUE(GlobMatch("[9-0]", "5"));
  // A range plus single members in one set.
  EXPECT_TRUE(GlobMatch("[a-cx]", "x"));
  EXPECT_TRUE(GlobMatch("[a-cx]", "b"));
  EXPECT_FALSE(GlobMatch("[a-cx]", "d"));
  // A leading or doubled '-' that is not between two members is a literal.
  EXPECT_TRUE(GlobMatch("[-a]", "-"));
  EXPECT_TRUE(GlobMatch("[-a]", "a"));
}

TEST(GlobTest, Escapes) {
  EXPECT_TRUE(GlobMatch("\\*", "*"));
  EXPECT_FALSE(GlobMatch("\\*", "a"));
  EXPECT_TRUE(GlobMatch("a\\?", "a?"));
  EXPECT_FALSE(GlobMatch("a\\?", "ab"));
  EXPECT_TRUE(GlobMatch("\\[x]", "[x]"));
  EXPECT_TRUE(GlobMatch("\\\\", "\\"));
  EXPECT_TRUE(GlobMatch("\\a", "a"));
  // A lone trailing backslash is itself.
  EXPECT_TRUE(GlobMatch("\\", "\\"));
  EXPECT_FALSE(GlobMatch("a\\", "a"));
  // Escapes inside sets.
  EXPECT_TRUE(GlobMatch("[\\]]", "]"));
  EXPECT_TRUE(GlobMatch("[\\^a]", "^"));
  EXPECT_TRUE(GlobMatch("[a\\-z]", "-"));
  EXPECT_FALSE(GlobMatch("[a\\-z]", "m"));
  // "[\]" is an escaped ']' in a set left open; it matches exactly "]".
  EXPECT_TRUE(GlobMatch("[\\]", "]"));
  EXPECT_FALSE(GlobMatch("[\\]", "\\"));
}

TEST(GlobTest, UnterminatedSetTakesTheRestOfThePattern) {
  EXPECT_TRUE(GlobMatch("[abc", "b"));
  EXPECT_FALSE(GlobMatch("[abc", "bc"));
  EXPECT_TRUE(GlobMatch("x[ab*", "x*"));
  EXPECT_FALSE(GlobMatch("x[ab*", "xab"));
}

TEST(GlobTest, NoCase) {
  EXPECT_TRUE(GlobMatch("HeLLo", "hello", true));
  EXPECT_FALSE(GlobMatch("HeLLo", "hello", false));
  EXPECT_TRUE(GlobMatch("h[A-C]t", "hbt", true));
  EXPECT_TRUE(GlobMatch("h[a-c]t", "HBT", true));
  EXPECT_TRUE(GlobMatch("[^X]", "y", true));
  EXPECT_FALSE(GlobMatch("[^X]", "x", true));
  EXPECT_TRUE(GlobMatch("MAX*", "maxmemory-policy", true));
  // Only ASCII letters fold.
  EXPECT_FALSE(GlobMatch("\xc3\x89", "\xc3\xa9", true));
}

TEST(GlobTest, BinarySafe) {
  EXPECT_TRUE(GlobMatch(std::string_view("a\0*", 3), std::string_view("a\0zz", 4)));
  EXPECT_FALSE(GlobMatch(std::string_view("a\0*", 3), std::string_view("a\1zz", 4)));
  EXPECT_TRUE(GlobMatch("?\xff", "\x80\xff"));
  EXPECT_TRUE(GlobMatch("[\x80-\xff]", "\xc3"));
  EXPECT_FALSE(GlobMatch("[\x80-\xff]", "a"));
}

// Exponential backtracking would take ages on these; the matcher must stay polynomial.
TEST(GlobTest, PathologicalPatternsFinishFast) {
  auto start = std::chrono::steady_clock::now();
  std::string many_a(30000, 'a');
  std::string stars;
  for (int i = 0; i < 40; ++i) stars += "a*";
  EXPECT_FALSE(GlobMatch(stars + "b", many_a));
  EXPECT_TRUE(GlobMatch(stars + "a", many_a));
  EXPECT_FALSE(GlobMatch("*?*?*?*?*?*?*?*?*?*?*?*?*?*?*b", many_a));
  std::string sets;
  for (int i = 0; i < 30; ++i) sets += "*[a-z]";
  EXPECT_FALSE(GlobMatch(sets + "1", many_a));
  auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                  start)
                .count();
  EXPECT_LT(ms, 2000);
}

// Redis 7.0 KEYS "[a-]" answers the keys "a", "_", "^" and "]": a '-' after a member starts a
// range even when the next byte is ']', so the set is the range ']'..'a' left unterminated.
// Likewise "[--]" matches "-", "]" and "\".
TEST(GlobTest, RangeEndingInBracketLikeRedis) {
  EXPECT_TRUE(GlobMatch("[a-]", "a"));
  EXPECT_TRUE(GlobMatch("[a-]", "_"));
  EXPECT_TRUE(GlobMatch("[a-]", "]"));
  EXPECT_FALSE(GlobMatch("[a-]", "-"));
  EXPECT_TRUE(GlobMatch("[--]", "\\"));
}

// Redis's matcher never lets a star match when the string is empty: KEYS "**" on a database
// holding the empty key "" leaves it out. KEYS "*" and SCAN MATCH "*" show it because they skip
// matching for the lone "*"; GlobMatch builds that shortcut in, so every caller agrees.
TEST(GlobTest, StarsDoNotMatchTheEmptyStringLikeRedis) {
  EXPECT_FALSE(GlobMatch("**", ""));
  EXPECT_FALSE(GlobMatch("?", ""));
  EXPECT_TRUE(GlobMatch("", ""));
  EXPECT_TRUE(GlobMatch("*", ""));
}

// A shaped match (ShapeOfGlob once, GlobMatchShaped per string) answers exactly as the general
// matcher for every pattern, whichever shape it gets.
TEST(GlobTest, ShapedMatchAgreesWithTheMatcher) {
  const char* patterns[] = {"",      "*",      "abc",   "ab*",   "ab**", "a*c", "a?",
                            "a[bc]", "ab\\*",  "\\*",   "key:*", "*:x",  "[",   "ab*c*",
                            "?*",    "k\\ey*", "abc*d", "x*",    "abcd", "a\\b"};
  const char* strings[] = {"",     "a",     "ab",     "abc",   "abcd", "ab*",  "*",
                           "key:", "key:1", "key:12", "k:1",   "acc",  "ab\\", "x",
                           "xy",   "key",   "a*c",    "abc*d", "kaey", "ab"};
  for (const char* p : patterns) {
    const GlobShape shape = ShapeOfGlob(p);
    for (const char* s : strings) {
      EXPECT_EQ(GlobMatchShaped(shape, p, s), GlobMatch(p, s))
          << "pattern '" << p << "' on '" << s << "'";
    }
  }
  EXPECT_EQ(ShapeOfGlob("abc").kind, GlobShape::kExact);
  EXPECT_EQ(ShapeOfGlob("app:*").kind, GlobShape::kPrefix);
  EXPECT_EQ(ShapeOfGlob("app:*").literal, 4u);
  EXPECT_EQ(ShapeOfGlob("*").kind, GlobShape::kPrefix);
  EXPECT_EQ(ShapeOfGlob("a*b").kind, GlobShape::kGeneral);
  EXPECT_EQ(ShapeOfGlob("a\\*").kind, GlobShape::kGeneral);
}

}  // namespace
}  // namespace redistp
