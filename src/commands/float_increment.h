// The float increment shared by INCRBYFLOAT and HINCRBYFLOAT.
#pragma once

#include <cmath>
#include <string>

#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/command.h"
#include "util/numbers.h"

namespace redistp {

// Stores the text of current + step as INCRBYFLOAT replies it (fixed notation, 17 decimals,
// trailing zeros dropped), or replies "ERR increment would produce NaN or Infinity" and returns
// false, as both commands do before changing anything.
inline bool FloatIncrementText(CommandContext& c, long double current, long double step,
                               std::string* text) {
  const long double result = current + step;
  if (std::isnan(result) || std::isinf(result)) {
    c.reply.Error(err::kIncrFloatNanInf);
    return false;
  }
  *text = FormatLongDoubleHuman(result);
  return true;
}

}  // namespace redistp
