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

// Can `pattern` match some string that starts with `prefix` (case-sensitive, as Pub/Sub
// patterns are)? Answers in O(pattern + prefix) without building a string. It may say yes for a
// pattern that matches nothing at all (an impossible set after a star), never no for one that
// can match: callers use it to skip work ("no pattern can see `__watchex@` channels").
bool GlobCanMatchPrefix(std::string_view pattern, std::string_view prefix);

}  // namespace redistp
