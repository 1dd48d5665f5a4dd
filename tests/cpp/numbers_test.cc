// Unit tests for util/numbers: Redis's strict integer grammar, float parsing, memory units and
// the number formats replies use.
#include "util/numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

namespace redistp {
namespace {

bool Int(std::string_view s, int64_t* v) { return ParseInt64(s, v); }

TEST(ParseInt64Test, AcceptsCanonicalIntegers) {
  int64_t v = 0;
  ASSERT_TRUE(Int("0", &v));
  EXPECT_EQ(v, 0);
  ASSERT_TRUE(Int("7", &v));
  EXPECT_EQ(v, 7);
  ASSERT_TRUE(Int("-1", &v));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(Int("1234567890", &v));
  EXPECT_EQ(v, 1234567890);
  ASSERT_TRUE(Int("9223372036854775807", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::max());
  ASSERT_TRUE(Int("-9223372036854775808", &v));
  EXPECT_EQ(v, std::numeric_limits<int64_t>::min());
}

TEST(ParseInt64Test, RejectsWhatRedisRejects) {
  const char* bad[] = {"",
                       "-",
                       "-0",
                       "01",
                       "00",
                       "-01",
                       "+1",
                       " 1",
                       "1 ",
                       "\t1",
                       "1\n",
                       "1a",
                       "a1",
                       "1.0",
                       "1e3",
                       "0x10",
                       "--1",
                       "1-",
                       "9223372036854775808",
                       "-9223372036854775809",
                       "18446744073709551616",
                       "99999999999999999999",
                       "000000000000000000001"};
  for (const char* s : bad) {
    int64_t v = 42;
    EXPECT_FALSE(Int(s, &v)) << "'" << s << "'";
    EXPECT_EQ(v, 42) << "output untouched on failure for '" << s << "'";
  }
}

TEST(ParseInt64Test, RejectsEmbeddedNul) {
  int64_t v;
  EXPECT_FALSE(Int(std::string_view("1\0", 2), &v));
  EXPECT_FALSE(Int(std::string_view("\0"
                                    "1",
                                    2),
                   &v));
}

TEST(ParseUint64Test, FullUnsignedRange) {
  uint64_t v = 0;
  ASSERT_TRUE(ParseUint64("18446744073709551615", &v));
  EXPECT_EQ(v, std::numeric_limits<uint64_t>::max());
  ASSERT_TRUE(ParseUint64("0", &v));
  EXPECT_EQ(v, 0u);
  EXPECT_FALSE(ParseUint64("18446744073709551616", &v));
  EXPECT_FALSE(ParseUint64("-1", &v));
  EXPECT_FALSE(ParseUint64("01", &v));
  EXPECT_FALSE(ParseUint64("", &v));
}

TEST(ParseDoubleTest, AcceptsStrtodForms) {
  double d = 0;
  ASSERT_TRUE(ParseDouble("1.5", &d));
  EXPECT_EQ(d, 1.5);
  ASSERT_TRUE(ParseDouble("-0.25", &d));
  EXPECT_EQ(d, -0.25);
  ASSERT_TRUE(ParseDouble("10", &d));
  EXPECT_EQ(d, 10.0);
  ASSERT_TRUE(ParseDouble("1e10", &d));
  EXPECT_EQ(d, 1e10);
  ASSERT_TRUE(ParseDouble(".5", &d));
  EXPECT_EQ(d, 0.5);
  ASSERT_TRUE(ParseDouble("+3", &d));
  EXPECT_EQ(d, 3.0);
  ASSERT_TRUE(ParseDouble("inf", &d));
  EXPECT_TRUE(std::isinf(d) && d > 0);
  ASSERT_TRUE(ParseDouble("+inf", &d));
  EXPECT_TRUE(std::isinf(d) && d > 0);
  ASSERT_TRUE(ParseDouble("-inf", &d));
  EXPECT_TRUE(std::isinf(d) && d < 0);
  ASSERT_TRUE(ParseDouble("4.9e-324", &d));
  EXPECT_GT(d, 0.0);
}

TEST(ParseDoubleTest, RejectsSpacesJunkNanAndOverflow) {
  const char* bad[] = {"",    " 1",   "1 ",    "\t1",    "1x",     "abc",   "nan",
                       "NaN", "-nan", "1e400", "-1e400", "1e-400", "1.5.5", "--1"};
  for (const char* s : bad) {
    double d = 7;
    EXPECT_FALSE(ParseDouble(s, &d)) << "'" << s << "'";
    EXPECT_EQ(d, 7) << "output untouched on failure for '" << s << "'";
  }
  double d;
  EXPECT_FALSE(ParseDouble(std::string_view("1\0", 2), &d));
}

TEST(ParseLongDoubleTest, ParsesWithExtendedPrecision) {
  long double v = 0;
  ASSERT_TRUE(ParseLongDouble("10.5", &v));
  EXPECT_EQ(v, 10.5L);
  ASSERT_TRUE(ParseLongDouble("-inf", &v));
  EXPECT_TRUE(std::isinf(v) && v < 0);
  EXPECT_FALSE(ParseLongDouble("nan", &v));
  EXPECT_FALSE(ParseLongDouble(" 1", &v));
  EXPECT_FALSE(ParseLongDouble("1 ", &v));
  EXPECT_FALSE(ParseLongDouble("", &v));
}

// Redis parses float arguments of any length (ZADD reads "1." followed by 400 zeros as 1;
// INCRBYFLOAT allows up to 5 KB of text).
TEST(ParseDoubleTest, AcceptsLongTextLikeRedis) {
  std::string s = "1." + std::string(400, '0');
  double d = 0;
  ASSERT_TRUE(ParseDouble(s, &d));
  EXPECT_EQ(d, 1.0);
  long double ld = 0;
  ASSERT_TRUE(ParseLongDouble(s, &ld));
  EXPECT_EQ(ld, 1.0L);
}

TEST(ParseMemoryTest, UnitsAreCaseInsensitive) {
  struct Case {
    const char* text;
    int64_t value;
  };
  const Case cases[] = {
      {"0", 0},
      {"100", 100},
      {"1b", 1},
      {"1B", 1},
      {"1k", 1000},
      {"1K", 1000},
      {"1kb", 1024},
      {"1KB", 1024},
      {"1kB", 1024},
      {"5m", 5000000},
      {"5mb", 5LL * 1024 * 1024},
      {"5Mb", 5LL * 1024 * 1024},
      {"2g", 2000000000},
      {"1gb", 1024LL * 1024 * 1024},
      {"1Gb", 1024LL * 1024 * 1024},
      {"9223372036854775807", INT64_MAX},
  };
  for (const Case& c : cases) {
    int64_t v = -1;
    ASSERT_TRUE(ParseMemory(c.text, &v)) << c.text;
    EXPECT_EQ(v, c.value) << c.text;
  }
}

TEST(ParseMemoryTest, RejectsJunkNegativesAndOverflow) {
  const char* bad[] = {"",
                       "k",
                       "kb",
                       "1x",
                       "1.5mb",
                       " 1",
                       "1 mb",
                       "+1",
                       "1kbb",
                       "-1",
                       "-1kb",
                       "mb1",
                       "9223372036854775807kb",
                       "9007199254740993kb",
                       "10000000000gb"};
  for (const char* s : bad) {
    int64_t v = 42;
    EXPECT_FALSE(ParseMemory(s, &v)) << "'" << s << "'";
  }
}

TEST(ParseMemoryTest, NegativeOnlyWhenAllowed) {
  int64_t v = 0;
  ASSERT_TRUE(ParseMemory("-1", &v, true));
  EXPECT_EQ(v, -1);
  ASSERT_TRUE(ParseMemory("-2kb", &v, true));
  EXPECT_EQ(v, -2048);
  EXPECT_FALSE(ParseMemory("-2kb", &v, false));
  EXPECT_FALSE(ParseMemory("-9223372036854775807gb", &v, true));
}

// Redis reads the digits of a memory value with strtoull, so "01mb" (a zero-padded size in
// redis.conf or CONFIG SET maxmemory 01mb) is 1048576.
TEST(ParseMemoryTest, LeadingZerosLikeRedis) {
  int64_t v = 0;
  ASSERT_TRUE(ParseMemory("01mb", &v));
  EXPECT_EQ(v, 1024 * 1024);
}

TEST(FormatInt64Test, ExtremesAndZero) {
  char buf[kMaxInt64Chars + 1];
  EXPECT_EQ(std::string(buf, FormatInt64(0, buf)), "0");
  EXPECT_EQ(std::string(buf, FormatInt64(-7, buf)), "-7");
  size_t n = FormatInt64(std::numeric_limits<int64_t>::min(), buf);
  EXPECT_EQ(n, kMaxInt64Chars);
  EXPECT_EQ(std::string(buf, n), "-9223372036854775808");
  EXPECT_EQ(buf[n], '\0');
  EXPECT_EQ(Int64ToString(std::numeric_limits<int64_t>::max()), "9223372036854775807");
}

// Digits come two at a time: every length, and each side of every power of ten, against the
// standard library's text.
TEST(FormatInt64Test, MatchesToStringAtEveryLength) {
  char buf[kMaxInt64Chars + 1];
  auto check = [&](int64_t v) {
    const size_t n = FormatInt64(v, buf);
    EXPECT_EQ(std::string(buf, n), std::to_string(v));
    EXPECT_EQ(buf[n], '\0');
  };
  for (int64_t v = -1000; v <= 1000; ++v) check(v);
  int64_t p = 1;
  for (int i = 0; i < 18; ++i) {  // 10 up to 10^18 (10^19 is past INT64_MAX)
    p *= 10;
    for (int64_t v : {p - 1, p, p + 1, -p + 1, -p, -p - 1}) check(v);
  }
  check(std::numeric_limits<int64_t>::max());
  check(std::numeric_limits<int64_t>::min());
  check(std::numeric_limits<int64_t>::min() + 1);
}

TEST(FormatInt64Test, RoundTripsThroughParse) {
  uint64_t x = 0x9e3779b97f4a7c15ULL;
  for (int i = 0; i < 2000; ++i) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    int64_t v = static_cast<int64_t>(x) >> (i % 60);
    int64_t back = 0;
    ASSERT_TRUE(ParseInt64(Int64ToString(v), &back)) << v;
    EXPECT_EQ(back, v);
  }
}

TEST(FormatDoubleTest, SeventeenSignificantDigits) {
  EXPECT_EQ(FormatDouble(1.5), "1.5");
  EXPECT_EQ(FormatDouble(0.1), "0.10000000000000001");
  EXPECT_EQ(FormatDouble(-3), "-3");
  EXPECT_EQ(FormatDouble(1e300), "1.0000000000000001e+300");
  EXPECT_EQ(FormatDouble(INFINITY), "inf");
  EXPECT_EQ(FormatDouble(-INFINITY), "-inf");
}

TEST(FormatLongDoubleHumanTest, IncrByFloatForm) {
  EXPECT_EQ(FormatLongDoubleHuman(3.0L), "3");
  EXPECT_EQ(FormatLongDoubleHuman(1.5L), "1.5");
  EXPECT_EQ(FormatLongDoubleHuman(-1.25L), "-1.25");
  EXPECT_EQ(FormatLongDoubleHuman(0.1L), "0.1");
  EXPECT_EQ(FormatLongDoubleHuman(10.5L + 0.1L), "10.6");
  EXPECT_EQ(FormatLongDoubleHuman(5000.0L), "5000");
  EXPECT_EQ(FormatLongDoubleHuman(0.000003L), "0.000003");
  EXPECT_EQ(FormatLongDoubleHuman(1.0L / 3), "0.33333333333333333");
  EXPECT_EQ(FormatLongDoubleHuman(1e20L), "100000000000000000000");
  // What Redis answers to INCRBYFLOAT 1e20 on 10.6: the long double's nearest value.
  EXPECT_EQ(FormatLongDoubleHuman(10.6L + 1e20L), "100000000000000000008");
  EXPECT_EQ(FormatLongDoubleHuman(1.0L + 1e-20L), "1");
  EXPECT_EQ(FormatLongDoubleHuman(1e-20L), "0");
}

TEST(FormatLongDoubleHumanTest, SignedZeroAndInfinities) {
  EXPECT_EQ(FormatLongDoubleHuman(-0.0L), "0");
  EXPECT_EQ(FormatLongDoubleHuman(-1e-20L), "0");
  EXPECT_EQ(FormatLongDoubleHuman(static_cast<long double>(INFINITY)), "inf");
  EXPECT_EQ(FormatLongDoubleHuman(-static_cast<long double>(INFINITY)), "-inf");
}

TEST(FormatLongDoubleHumanTest, HugeValuesKeepEveryDigit) {
  std::string s = FormatLongDoubleHuman(1e300L);
  EXPECT_EQ(s.size(), 301u);
  EXPECT_EQ(s[0], '1');
  EXPECT_EQ(s.find('.'), std::string::npos);
}

TEST(BytesToHumanTest, Units) {
  EXPECT_EQ(BytesToHuman(0), "0B");
  EXPECT_EQ(BytesToHuman(923), "923B");
  EXPECT_EQ(BytesToHuman(1023), "1023B");
  EXPECT_EQ(BytesToHuman(1024), "1.00K");
  EXPECT_EQ(BytesToHuman(1536), "1.50K");
  EXPECT_EQ(BytesToHuman(1024 * 1024), "1.00M");
  EXPECT_EQ(BytesToHuman(5ULL * 1024 * 1024 * 1024 / 2), "2.50G");
  EXPECT_EQ(BytesToHuman(3ULL << 40), "3.00T");
  EXPECT_EQ(BytesToHuman(1ULL << 50), "1.00P");
}

TEST(CaseTest, EqualsIgnoreCaseAndToLower) {
  EXPECT_TRUE(EqualsIgnoreCase("GeT", "get"));
  EXPECT_TRUE(EqualsIgnoreCase("", ""));
  EXPECT_FALSE(EqualsIgnoreCase("get", "gets"));
  EXPECT_FALSE(EqualsIgnoreCase("get", "gex"));
  EXPECT_TRUE(EqualsIgnoreCase("\xc3\xa9", "\xc3\xa9"));
  EXPECT_FALSE(EqualsIgnoreCase("\xc3\xa9", "\xc3\x89"));
  EXPECT_EQ(ToLower("MiXeD-123_Z"), "mixed-123_z");
  EXPECT_EQ(ToLower(std::string_view("A\0B", 3)), std::string("a\0b", 3));
}

}  // namespace
}  // namespace redistp
