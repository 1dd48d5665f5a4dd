// Unit tests for GlobCanMatchPrefix: "can this Pub/Sub pattern match some channel that starts
// with this prefix?". The answer may be a conservative yes, never a wrong no: the brute-force
// test below checks that every pattern that matches some prefix+suffix gets a yes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "util/glob.h"

namespace redistp {
namespace {

constexpr std::string_view kPrefix = "__watchex@";

TEST(GlobPrefixTest, PatternsThatCanSeeWatchexChannels) {
  EXPECT_TRUE(GlobCanMatchPrefix("*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__watchex@*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__watchex@0__:jobs:*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__watchex@", kPrefix));  // equal: a suffix is not required
  EXPECT_TRUE(GlobCanMatchPrefix("_*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__w?tchex@*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__[uvw]atchex@*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__[^x]atchex@*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__[a-z]atchex@*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__[z-a]atchex@*", kPrefix));  // reversed range
  EXPECT_TRUE(GlobCanMatchPrefix("\\_\\_watchex@*", kPrefix));  // escaped literals
  EXPECT_TRUE(GlobCanMatchPrefix("__watch*", kPrefix));
  EXPECT_TRUE(GlobCanMatchPrefix("__watchex@[0-9]__:*", kPrefix));
}

TEST(GlobPrefixTest, PatternsThatCannot) {
  EXPECT_FALSE(GlobCanMatchPrefix("__keyspace@*", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("__keyevent@0__:*", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("news.*", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("__watch", kPrefix));  // ends before the prefix does
  EXPECT_FALSE(GlobCanMatchPrefix("__watchex", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("__WATCHEX@*", kPrefix));  // case-sensitive
  EXPECT_FALSE(GlobCanMatchPrefix("__[^w]atchex@*", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("__[a-v]atchex@*", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("?", kPrefix));
  EXPECT_FALSE(GlobCanMatchPrefix("__watchex\\*", kPrefix));  // an escaped star is a literal
}

// Every string over a small alphabet up to `len` bytes.
void AllStrings(const std::string& alphabet, size_t len, std::vector<std::string>* out) {
  std::vector<std::string> level{""};
  out->push_back("");
  for (size_t i = 0; i < len; ++i) {
    std::vector<std::string> next;
    for (const std::string& s : level) {
      for (char c : alphabet) next.push_back(s + c);
    }
    out->insert(out->end(), next.begin(), next.end());
    level.swap(next);
  }
}

TEST(GlobPrefixTest, NeverSaysNoWhenAMatchExists) {
  // Patterns over the pattern syntax, short prefixes over a small alphabet: if GlobMatch accepts
  // prefix+suffix for some suffix, the routine must answer yes; and if it answers no, no suffix
  // may match.
  std::vector<std::string> patterns;
  AllStrings("ab*?", 4, &patterns);
  for (const char* extra : {"[ab]", "[^a]", "[a-b]", "\\*", "\\a", "a[b", "[", "*[^ab]"}) {
    for (const char* head : {"", "a", "*", "?"}) patterns.push_back(std::string(head) + extra);
    patterns.push_back(std::string(extra) + "*");
    patterns.push_back(std::string("a") + extra + "b");
  }
  std::vector<std::string> prefixes;
  AllStrings("ab", 3, &prefixes);
  std::vector<std::string> suffixes;
  AllStrings("ab*", 3, &suffixes);
  size_t checked = 0;
  for (const std::string& pat : patterns) {
    for (const std::string& prefix : prefixes) {
      bool some = false;
      for (const std::string& suffix : suffixes) {
        std::string s = prefix + suffix;
        if (!s.empty() && GlobMatch(pat, s)) {
          some = true;
          break;
        }
      }
      if (some) {
        EXPECT_TRUE(GlobCanMatchPrefix(pat, prefix))
            << "pattern '" << pat << "' prefix '" << prefix << "'";
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000u);
}

TEST(GlobPrefixTest, NoIsExactForStarFreePatterns) {
  // Without a star (and with sets that can match), the answer is exact both ways: a pattern of
  // fixed length n can match a string starting with the prefix iff it can match one of length
  // max(n, prefix) with the right bytes.
  std::vector<std::string> patterns;
  AllStrings("ab?", 4, &patterns);
  std::vector<std::string> prefixes;
  AllStrings("ab", 3, &prefixes);
  std::vector<std::string> suffixes;
  AllStrings("ab", 4, &suffixes);
  for (const std::string& pat : patterns) {
    for (const std::string& prefix : prefixes) {
      if (prefix.empty()) continue;
      bool some = false;
      for (const std::string& suffix : suffixes) {
        if (GlobMatch(pat, prefix + suffix)) some = true;
      }
      EXPECT_EQ(GlobCanMatchPrefix(pat, prefix), some)
          << "pattern '" << pat << "' prefix '" << prefix << "'";
    }
  }
}

}  // namespace
}  // namespace redistp
