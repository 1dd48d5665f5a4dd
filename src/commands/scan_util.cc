#include "commands/scan_util.h"

#include <limits>

#include "protocol/errors.h"
#include "util/numbers.h"

namespace redistp {

bool ParseScanCursor(std::string_view s, uint64_t* out) {
  s = s.substr(0, s.find('\0'));
  size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) {
    negative = s[i] == '-';
    ++i;
  }
  if (i == s.size()) {
    // "" parses as 0 (nothing consumed, nothing left); a lone sign leaves the sign unparsed.
    *out = 0;
    return s.empty();
  }
  uint64_t v = 0;
  for (; i < s.size(); ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    uint64_t d = static_cast<uint64_t>(s[i] - '0');
    if (v > (std::numeric_limits<uint64_t>::max() - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = negative ? (~v + 1) : v;
  return true;
}

bool ParseScanOptions(const std::vector<std::string_view>& args, size_t first, bool allow_type,
                      ReplyBuilder& reply, ScanOptions* out, std::string_view lone_word) {
  size_t step = 2;
  for (size_t j = first; j < args.size(); j += step) {
    step = 2;
    if (!lone_word.empty() && EqualsIgnoreCase(args[j], lone_word)) {
      // A word without a value (HSCAN's NOVALUES, ZSCAN's NOSCORES): one step, not two.
      out->no_values = true;
      step = 1;
      continue;
    }
    if (j + 1 >= args.size()) {
      reply.Error(err::kSyntax);
      return false;
    }
    std::string_view opt = args[j];
    std::string_view val = args[j + 1];
    if (EqualsIgnoreCase(opt, "count")) {
      if (!ParseInt64(val, &out->count)) {
        reply.Error(err::kNotInteger);
        return false;
      }
      if (out->count < 1) {
        reply.Error(err::kSyntax);
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "match")) {
      out->pattern = val;
      out->has_pattern = val != "*";
    } else if (allow_type && EqualsIgnoreCase(opt, "type")) {
      out->type = val;
      out->has_type = true;
    } else {
      reply.Error(err::kSyntax);
      return false;
    }
  }
  return true;
}

void ReplyScanCursor(ReplyBuilder& reply, uint64_t cursor) {
  char buf[kMaxInt64Chars + 1];
  // The cursor is unsigned: format it by hand rather than through the signed formatter.
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + cursor % 10);
    cursor /= 10;
  } while (cursor != 0);
  reply.Bulk(std::string_view(p, static_cast<size_t>(end - p)));
}

}  // namespace redistp
