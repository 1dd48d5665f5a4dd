// Glob matching with Redis's pattern syntax, used by KEYS, SCAN MATCH, CONFIG GET and
// CLIENT KILL filters.
//
// Syntax: `*` any run (possibly empty), `?` any one byte, `[abc]` a set, `[^abc]` a negated set,
// `[a-z]` a range (reversed ranges work: `[z-a]` equals `[a-z]`), `\x` the literal x.
// Matching is byte-wise; `nocase` folds ASCII letters. An unterminated `[` takes the rest of the
// pattern as the set, as Redis does. Runtime is bounded: consecutive stars collapse and the
// matcher backtracks only to the last star, so a hostile pattern costs O(pattern * string).
#pragma once

#include <cstddef>
#include <string_view>

namespace redistp {

bool GlobMatch(std::string_view pattern, std::string_view str, bool nocase = false);

// Can `pattern` match some string that starts with `prefix` (case-sensitive, as Pub/Sub
// patterns are)? Answers in O(pattern + prefix) without building a string. It may say yes for a
// pattern that matches nothing at all (an impossible set after a star), never no for one that
// can match: callers use it to skip work ("no pattern can see `__watchex@` channels").
bool GlobCanMatchPrefix(std::string_view pattern, std::string_view prefix);

// A pattern's shape, worked out once for a pattern that is matched many times (ACL key
// patterns are matched on every command of a restricted user). Most such patterns are a literal
// (`cache:config`) or a literal followed by one star (`app:*`); both match with one compare
// instead of the general matcher. `literal` is the length of the literal part.
struct GlobShape {
  enum Kind : unsigned char { kGeneral, kExact, kPrefix };
  Kind kind = kGeneral;
  size_t literal = 0;
};
GlobShape ShapeOfGlob(std::string_view pattern);

// GlobMatch(pattern, str) for a pattern whose shape is `shape` (case-sensitive).
inline bool GlobMatchShaped(const GlobShape& shape, std::string_view pattern,
                            std::string_view str) {
  switch (shape.kind) {
    case GlobShape::kExact:
      return str == pattern;
    case GlobShape::kPrefix:
      // Most keys differ from most patterns in their first byte: test it before the compare.
      if (str.size() < shape.literal) return false;
      if (shape.literal == 0) return true;
      return str[0] == pattern[0] &&
             str.substr(0, shape.literal) == pattern.substr(0, shape.literal);
    case GlobShape::kGeneral:
      break;
  }
  return GlobMatch(pattern, str);
}

}  // namespace redistp
