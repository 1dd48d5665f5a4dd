// Argument rules shared by every blocking command (BSETTP, BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP,
// BZPOPMIN/BZPOPMAX/BZMPOP, and XREAD/XREADGROUP BLOCK later).
#pragma once

#include <cstdint>
#include <string_view>

#include "server/command.h"

namespace redistp {

// A blocking command's timeout in seconds, Redis 7.0's rules: a float (`1.5`, `0.01`), 0 =
// forever, negative -> "ERR timeout is negative", not a float or too large -> "ERR timeout is
// not a float or out of range". Stores milliseconds (a positive timeout under 1 ms waits 1 ms)
// or replies the error and returns false.
bool ParseBlockTimeout(CommandContext& c, std::string_view arg, int64_t* ms);

}  // namespace redistp
