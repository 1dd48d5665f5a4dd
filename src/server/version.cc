// compat-version's accepted values (see version.h).
#include "server/version.h"

#include <cstddef>

namespace redistp {

bool ParseCompatVersion(std::string_view text, CompatVersion* out, std::string_view* why) {
  *why = "compat-version must be 7.0.15, 7.2.<patch> or 7.4.<patch>";
  if (text == kRedisVersion) {
    *out = CompatVersion{};
    return true;
  }
  int minor = 0;
  if (text.starts_with("7.2.")) {
    minor = 2;
  } else if (text.starts_with("7.4.")) {
    minor = 4;
  } else {
    return false;
  }
  std::string_view patch = text.substr(4);
  // Plain decimal, no sign, no leading zero (so each version has one spelling), 0..255.
  if (patch.empty() || patch.size() > 3 || (patch.size() > 1 && patch[0] == '0')) return false;
  int p = 0;
  for (char ch : patch) {
    if (ch < '0' || ch > '9') return false;
    p = p * 10 + (ch - '0');
  }
  if (p > 255) return false;
  out->num = (7 << 16) | (minor << 8) | p;
  out->rdb_version = minor == 2 ? 11 : 12;
  return true;
}

}  // namespace redistp
