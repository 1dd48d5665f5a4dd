#include "util/numbers.h"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace redistp {

bool ParseUint64(std::string_view s, uint64_t* out) {
  if (s.empty() || s.size() > kMaxInt64Chars) return false;
  if (s.size() == 1 && s[0] == '0') {
    *out = 0;
    return true;
  }
  if (s[0] < '1' || s[0] > '9') return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (UINT64_MAX - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

bool ParseInt64(std::string_view s, int64_t* out) {
  bool negative = !s.empty() && s[0] == '-';
  if (negative) s.remove_prefix(1);
  uint64_t magnitude;
  if (!ParseUint64(s, &magnitude)) return false;
  if (negative) {
    if (magnitude == 0) return false;  // "-0" is not an integer to Redis
    if (magnitude > static_cast<uint64_t>(INT64_MAX) + 1) return false;
    *out = static_cast<int64_t>(0 - magnitude);
  } else {
    if (magnitude > static_cast<uint64_t>(INT64_MAX)) return false;
    *out = static_cast<int64_t>(magnitude);
  }
  return true;
}

namespace {

// Copies s into a NUL-terminated stack buffer for strto*; rejects what Redis rejects up front.
template <typename T, typename Fn>
bool ParseFloating(std::string_view s, T* out, Fn convert) {
  // Redis accepts float texts up to its long double buffer (5 KB).
  constexpr size_t kMaxFloatText = 5 * 1024;
  if (s.empty() || s.size() >= kMaxFloatText) return false;
  if (std::isspace(static_cast<unsigned char>(s[0]))) return false;
  std::string text(s);
  char* buf = text.data();
  char* end = nullptr;
  errno = 0;
  T v = convert(buf, &end);
  if (end != buf + s.size()) return false;
  if (std::isnan(v)) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) return false;
  *out = v;
  return true;
}

}  // namespace

bool ParseDouble(std::string_view s, double* out) {
  return ParseFloating<double>(s, out, [](const char* b, char** e) { return std::strtod(b, e); });
}

bool ParseLongDouble(std::string_view s, long double* out) {
  return ParseFloating<long double>(s, out,
                                    [](const char* b, char** e) { return std::strtold(b, e); });
}

bool ParseMemory(std::string_view s, int64_t* out, bool allow_negative) {
  std::string lower = ToLower(s);
  int64_t mul = 1;
  struct Unit {
    const char* suffix;
    int64_t mul;
  };
  static constexpr Unit kUnits[] = {{"kb", 1024}, {"mb", 1024 * 1024}, {"gb", 1024LL << 20},
                                    {"k", 1000},  {"m", 1000 * 1000},  {"g", 1000LL * 1000 * 1000},
                                    {"b", 1}};
  std::string_view digits = lower;
  for (const Unit& u : kUnits) {
    size_t n = std::strlen(u.suffix);
    if (digits.size() > n && digits.substr(digits.size() - n) == u.suffix) {
      digits.remove_suffix(n);
      mul = u.mul;
      break;
    }
  }
  // Sizes are read like strtoull: leading zeros are fine ("01mb").
  bool neg = !digits.empty() && digits[0] == '-';
  if (neg) digits.remove_prefix(1);
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  uint64_t mag;
  if (!ParseUint64(digits, &mag) || mag > static_cast<uint64_t>(INT64_MAX)) return false;
  int64_t v = neg ? -static_cast<int64_t>(mag) : static_cast<int64_t>(mag);
  if (neg && mag == 0) v = 0;
  if (v < 0 && !allow_negative) return false;
  if (v != 0 && (v > INT64_MAX / mul || v < INT64_MIN / mul)) return false;
  *out = v * mul;
  return true;
}

size_t FormatInt64(int64_t v, char* buf) {
  // The length first (a few comparisons for a short number), then two digits per division
  // from a table of the 100 pairs "00".."99", written backwards straight into buf: half the
  // divisions of a digit at a time and no copy (every integer reply and every reply's bulk
  // length comes through here, most of them one or two digits long).
  struct DigitPairs {
    char c[200];
    constexpr DigitPairs() : c() {
      for (int i = 0; i < 100; ++i) {
        c[2 * i] = static_cast<char>('0' + i / 10);
        c[2 * i + 1] = static_cast<char>('0' + i % 10);
      }
    }
  };
  static constexpr DigitPairs kPairs;
  uint64_t u = v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v);
  size_t digits = 1;
  for (uint64_t bound = 10; digits < 20 && u >= bound; bound *= 10) ++digits;
  size_t len = 0;
  if (v < 0) buf[len++] = '-';
  len += digits;
  buf[len] = '\0';
  char* p = buf + len;
  while (u >= 100) {
    const size_t pair = static_cast<size_t>(u % 100) * 2;
    u /= 100;
    *--p = kPairs.c[pair + 1];
    *--p = kPairs.c[pair];
  }
  if (u >= 10) {
    *--p = kPairs.c[u * 2 + 1];
    *--p = kPairs.c[u * 2];
  } else {
    *--p = static_cast<char>('0' + u);
  }
  return len;
}

std::string Int64ToString(int64_t v) {
  char buf[kMaxInt64Chars + 1];
  return std::string(buf, FormatInt64(v, buf));
}

std::string FormatDouble(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  int n = std::snprintf(buf, sizeof(buf), "%.17g", v);
  return std::string(buf, static_cast<size_t>(n));
}

std::string FormatLongDoubleHuman(long double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[5600];
  int n = std::snprintf(buf, sizeof(buf), "%.17Lf", v);
  if (n <= 0 || static_cast<size_t>(n) >= sizeof(buf)) return "0";
  std::string out(buf, static_cast<size_t>(n));
  if (out.find('.') != std::string::npos) {
    while (!out.empty() && out.back() == '0') out.pop_back();
    if (!out.empty() && out.back() == '.') out.pop_back();
  }
  if (out == "-0") out = "0";
  return out;
}

std::string BytesToHuman(uint64_t n) {
  char buf[64];
  const double d = static_cast<double>(n);
  if (n < 1024) {
    std::snprintf(buf, sizeof(buf), "%lluB", static_cast<unsigned long long>(n));
  } else if (n < (1ULL << 20)) {
    std::snprintf(buf, sizeof(buf), "%.2fK", d / 1024);
  } else if (n < (1ULL << 30)) {
    std::snprintf(buf, sizeof(buf), "%.2fM", d / (1 << 20));
  } else if (n < (1ULL << 40)) {
    std::snprintf(buf, sizeof(buf), "%.2fG", d / (1ULL << 30));
  } else if (n < (1ULL << 50)) {
    std::snprintf(buf, sizeof(buf), "%.2fT", d / (1ULL << 40));
  } else {
    std::snprintf(buf, sizeof(buf), "%.2fP", d / (1ULL << 50));
  }
  return buf;
}

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string ToLower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace redistp
