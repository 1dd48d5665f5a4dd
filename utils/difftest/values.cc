// Argument pools of the generator and its random source (see generator.h): keys that collide,
// numbers at and past the 64-bit edges, floats with inf/nan, empty and binary strings, and
// times that can never race the clock.
#include <cctype>

#include "generator.h"

using namespace std::string_literals;

namespace difftest {

Rng::Rng(uint64_t seed) {
  // splitmix64 spreads the seed over the four words of state.
  uint64_t x = seed;
  for (auto& s : s_) {
    x += 0x9e3779b97f4a7c15ULL;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    s = z ^ (z >> 31);
  }
}

uint64_t Rng::Next() {
  auto rotl = [](uint64_t v, int k) { return (v << k) | (v >> (64 - k)); };
  uint64_t result = rotl(s_[1] * 5, 7) * 9;
  uint64_t t = s_[1] << 17;
  s_[2] ^= s_[0];
  s_[3] ^= s_[1];
  s_[1] ^= s_[2];
  s_[0] ^= s_[3];
  s_[2] ^= t;
  s_[3] = rotl(s_[3], 45);
  return result;
}

std::string RenderArgv(const std::vector<std::string>& argv) {
  std::string out;
  for (const auto& a : argv) {
    if (!out.empty()) out += ' ';
    bool plain = !a.empty();
    for (unsigned char c : a) {
      if (!std::isgraph(c) || c == '"' || c == '\\' || c == '\'') plain = false;
    }
    out += plain ? a : Quote(a);
  }
  return out;
}

namespace {

const std::vector<std::string> kKeys = {"a",     "a",    "a", "b", "b",         "c",
                                        "key:1", "{t}x", "n", "",  "k\x00\xff"s};

const std::vector<std::string> kEdgeNumbers = {"9223372036854775807",
                                               "-9223372036854775808",
                                               "9223372036854775806",
                                               "9223372036854775808",
                                               "-9223372036854775809",
                                               "18446744073709551615",
                                               "18446744073709551616",
                                               "4294967295",
                                               "4294967296",
                                               "2147483647",
                                               "-2147483648",
                                               "1e3",
                                               "1.5",
                                               "-0",
                                               "+1",
                                               "01",
                                               " 1",
                                               "1 ",
                                               "0x1A",
                                               "3.14159",
                                               "-2.5",
                                               "1e308",
                                               "1e309",
                                               "inf",
                                               "-inf",
                                               "nan",
                                               "+inf",
                                               "Infinity",
                                               "5e-324",
                                               ".5",
                                               "5.",
                                               "",
                                               "abc",
                                               "10000",
                                               "9999",
                                               "-1",
                                               "0",
                                               "1",
                                               "100000000000000000000"};

const std::vector<std::string> kWords = {
    "hello", "world", "foo",  "bar", "",   "x",   "Hello World", "\t\n", "\xc3\xbcn\xc3\xaf",
    "OK",    "nil",   "-ERR", "*1",  "$3", "\r\n"};

const std::vector<std::string> kFloats = {
    "0.1",    "1.5",    "-2",   "1e10",  "inf",  "-inf", "nan",   "1e308",
    "-1e308", "abc",    "",     "3.0e3", "5",    "0",    "-0",    "1.7976931348623157e308",
    "2.5e-3", "1e-320", " 1.5", "1.5 ",  "0x10", "+inf", "10.50", "17"};

const std::vector<std::string> kPatterns = {"*",    "a*",   "?",     "[a-c]", "*:*", "\\*",
                                            "[^a]", "k?y*", "",      "[",     "a[",  "*\\",
                                            "{t}*", "[a-",  "*a*b*", "n"};

const std::vector<std::string> kJunk = {
    "FOO",       "",           "-1",    "abc",     "NX",
    "XX",        "GET",        "EX",    "1.5",     "9223372036854775808",
    "\x00\xff"s, "WITHSCORES", "LIMIT", "KEEPTTL", "COUNT",
    "MATCH",     "TYPE"};

}  // namespace

std::string Generator::Key() { return rng_.Pick(kKeys); }

std::string Generator::AnyValue() {
  uint64_t r = rng_.Below(100);
  if (r < 30)
    return std::to_string(
        rng_.Pick(std::vector<long long>{-1, 0, 1, 2, 7, 10, 42, 100, -100, 9999, 10000, 123456}));
  if (r < 40) return rng_.Pick(kEdgeNumbers);
  if (r < 62) return rng_.Pick(kWords);
  if (r < 72) {
    std::string s(static_cast<size_t>(rng_.Range(1, 16)), '\0');
    for (auto& c : s) c = static_cast<char>(rng_.Below(256));
    return s;
  }
  if (r < 90) {
    std::string s(static_cast<size_t>(rng_.Range(1, 20)), 'a');
    for (auto& c : s) c = "abcdefghijklmnopqrstuvwxyz0123456789"[rng_.Below(36)];
    return s;
  }
  if (r < 95) {
    std::string s(static_cast<size_t>(rng_.Range(40, 400)), 'a');
    for (auto& c : s) c = "abcxyz"[rng_.Below(6)];
    return s;
  }
  return rng_.Pick(std::vector<std::string>{"\xff"s, "\xff\xf0\x00"s, "\x01"s, "\x80\x00\x01"s,
                                            "\x00"s, "\xaa\x55"s});
}

std::string Generator::Int() {
  uint64_t r = rng_.Below(100);
  if (r < 45) return std::to_string(rng_.Range(-5, 20));
  if (r < 70) return std::to_string(rng_.Range(-1000, 1000));
  return rng_.Pick(kEdgeNumbers);
}

std::string Generator::Float() { return rng_.Pick(kFloats); }

std::string Generator::Pattern() { return rng_.Pick(kPatterns); }

// Relative expiry: already past (<= 0), far away (>= 100,000 s), or invalid.
std::string Generator::RelativeTime(bool millis) {
  uint64_t r = rng_.Below(100);
  long long scale = millis ? 1000 : 1;
  if (r < 15) return std::to_string(-rng_.Range(0, 100) * scale);
  if (r < 80) return std::to_string(rng_.Range(100000, 100000000) * scale);
  return rng_.Pick(std::vector<std::string>{"0", "-1", "9223372036854775807",
                                            "-9223372036854775808", "9223372036854775",
                                            "9223372036854776", "9223372036854775808", "abc", "",
                                            "1.5", "100000 ", "4611686018427387904"});
}

// Absolute expiry: before 2021 (already past) or after 2096, never near the present.
std::string Generator::AbsoluteTime(bool millis, bool future_only) {
  uint64_t r = rng_.Below(100);
  if (future_only && r < 25) r += 25;
  long long scale = millis ? 1000 : 1;
  if (r < 25) return std::to_string(rng_.Range(1, 1600000000) * scale);
  if (r < 80) return std::to_string(rng_.Range(4000000000LL, 90000000000LL) * scale);
  return rng_.Pick(std::vector<std::string>{"0", "-1", "9223372036854775807", "-5",
                                            "9223372036854775", "9223372036854776", "abc",
                                            "-9223372036854775808", "1e10"});
}

// Byte and bit offsets: small valid ones, or invalid; never a valid offset that would make a
// server allocate hundreds of megabytes.
std::string Generator::Offset() {
  uint64_t r = rng_.Below(100);
  if (r < 70) return std::to_string(rng_.Range(0, 64));
  if (r < 85) return std::to_string(rng_.Range(0, 4000));
  return rng_.Pick(std::vector<std::string>{"-1", "536870912", "4294967296", "abc", "",
                                            "9223372036854775807", "-9223372036854775808", "1.5",
                                            "536870913", "17179869184"});
}

std::string Generator::Db() {
  uint64_t r = rng_.Below(100);
  if (r < 80) return std::to_string(rng_.Range(0, 2));
  return rng_.Pick(std::vector<std::string>{"15", "16", "-1", "abc", "", "1.0",
                                            "9223372036854775808", "2147483648"});
}

std::string Generator::Junk() { return rng_.Percent(60) ? rng_.Pick(kJunk) : AnyValue(); }

// Tokens are case-insensitive; send them in lower or mixed case now and then.
std::string Generator::Token(const std::string& token) {
  if (!rng_.Percent(15)) return token;
  std::string t = token;
  for (auto& c : t) {
    if (rng_.Percent(50)) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return t;
}

}  // namespace difftest
