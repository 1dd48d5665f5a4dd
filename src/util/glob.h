// Glob matching with Redis's pattern syntax, used by KEYS, SCAN MATCH, CONFIG GET and
// CLIENT KILL filters.
//
// Syntax: `*` any run (possibly empty), `?` any one byte, `[abc]` a set, `[^abc]` a negated set,
// `[a-z]` a range (reversed ranges work: `[z-a]` equals `[a-z]`), `\x` the literal x.
// Matching is byte-wise; `nocase` folds ASCII letters. An unterminated `[` takes the rest of the
// pattern as the set, as Redis does. Runtime is bounded: consecutive stars collapse and the
// matcher backtracks only to the last star, so a hostile pattern costs O(pattern * string).
#pragma once

#include <string_view>

namespace redistp {

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

}  // namespace redistp
