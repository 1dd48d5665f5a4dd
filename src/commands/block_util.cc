// ParseBlockTimeout follows what Redis 7.0 computes, not only what it documents: it converts
// the seconds to milliseconds as a C cast of (seconds * 1000) to long long, and calls the result
// negative if it is below zero. So a timeout whose milliseconds overflow 64 bits (1e16, inf,
// 1.7976931348623157e308) is "timeout is negative" (the cast yields LLONG_MIN on x86), and one
// above -1 ms (-0.0001) truncates to 0 and waits forever; both checked on 7.0.15.
#include "commands/block_util.h"

#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "util/numbers.h"

namespace redistp {

bool ParseBlockTimeout(CommandContext& c, std::string_view arg, int64_t* ms) {
  long double secs;
  if (!ParseLongDouble(arg, &secs)) {
    c.reply.Error(err::kTimeoutNotFloat);
    return false;
  }
  const long double msecs = secs * 1000.0L;
  // 2^63: from here up the cast overflows (inf included); -1 and below truncate below zero.
  if (!(msecs < 9223372036854775808.0L) || msecs <= -1.0L) {
    c.reply.Error(err::kTimeoutNegative);
    return false;
  }
  *ms = static_cast<int64_t>(msecs);
  if (secs > 0 && *ms == 0) *ms = 1;
  // Past this a deadline (now + ms) would overflow; ~146 million years is forever anyway.
  constexpr int64_t kForever = INT64_MAX / 2;
  if (*ms > kForever) *ms = kForever;
  return true;
}

}  // namespace redistp
