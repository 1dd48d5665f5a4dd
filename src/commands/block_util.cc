#include "commands/block_util.h"

#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "util/numbers.h"

namespace redistp {

bool ParseBlockTimeout(CommandContext& c, std::string_view arg, int64_t* ms) {
  long double secs;
  if (!ParseLongDouble(arg, &secs) || secs > 9.2e15L) {
    c.reply.Error(err::kTimeoutNotFloat);
    return false;
  }
  if (secs < 0) {
    c.reply.Error(err::kTimeoutNegative);
    return false;
  }
  *ms = static_cast<int64_t>(secs * 1000.0L);
  if (secs > 0 && *ms == 0) *ms = 1;
  return true;
}

}  // namespace redistp
