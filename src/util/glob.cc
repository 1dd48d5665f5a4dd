#include "util/glob.h"

#include <cctype>
#include <cstddef>

namespace redistp {
namespace {

unsigned char Fold(unsigned char c, bool nocase) {
  return nocase ? static_cast<unsigned char>(std::tolower(c)) : c;
}

// Matches one byte `c` against the bracket expression starting after '[' at pattern[p].
// Sets *end to the index just past the closing ']' (or the pattern end when unterminated).
bool MatchSet(std::string_view pat, size_t p, unsigned char c, bool nocase, size_t* end) {
  bool negate = false;
  if (p < pat.size() && pat[p] == '^') {
    negate = true;
    ++p;
  }
  bool hit = false;
  c = Fold(c, nocase);
  while (p < pat.size() && pat[p] != ']') {
    if (pat[p] == '\\' && p + 1 < pat.size()) {
      ++p;
      if (Fold(pat[p], nocase) == c) hit = true;
      ++p;
    } else if (p + 2 < pat.size() && pat[p + 1] == '-') {
      // As in Redis, the range end may be any byte, ']' included: "[a-]" is ']'..'a'.
      unsigned char lo = Fold(pat[p], nocase);
      unsigned char hi = Fold(pat[p + 2], nocase);
      if (lo > hi) std::swap(lo, hi);
      if (c >= lo && c <= hi) hit = true;
      p += 3;
    } else {
      if (Fold(pat[p], nocase) == c) hit = true;
      ++p;
    }
  }
  *end = p < pat.size() ? p + 1 : p;
  return negate ? !hit : hit;
}

}  // namespace

bool GlobMatch(std::string_view pat, std::string_view str, bool nocase) {
  // Redis's matcher consumes a pattern only while string bytes remain, so an empty string
  // matches only an empty pattern; KEYS and SCAN special-case the lone "*" (match all).
  if (str.empty()) return pat.empty() || pat == "*";
  size_t p = 0, s = 0;
  // Backtracking point: the pattern index after the last '*' and the string index it covers to.
  size_t star_p = std::string_view::npos, star_s = 0;
  while (s < str.size()) {
    if (p < pat.size()) {
      char pc = pat[p];
      if (pc == '*') {
        while (p < pat.size() && pat[p] == '*') ++p;
        if (p == pat.size()) return true;
        star_p = p;
        star_s = s;
        continue;
      }
      if (pc == '?') {
        ++p;
        ++s;
        continue;
      }
      if (pc == '[') {
        size_t end;
        if (MatchSet(pat, p + 1, str[s], nocase, &end)) {
          p = end;
          ++s;
          continue;
        }
      } else {
        if (pc == '\\' && p + 1 < pat.size()) {
          ++p;
          pc = pat[p];
        }
        if (Fold(pc, nocase) == Fold(str[s], nocase)) {
          ++p;
          ++s;
          continue;
        }
      }
    }
    if (star_p == std::string_view::npos) return false;
    p = star_p;
    s = ++star_s;
  }
  while (p < pat.size() && pat[p] == '*') ++p;
  return p == pat.size();
}

bool GlobCanMatchPrefix(std::string_view pat, std::string_view prefix) {
  // Walk the pattern over the prefix. Before the first star every element consumes exactly one
  // byte, so the walk is deterministic; a star reached while prefix bytes remain can swallow
  // them all (and the rest of the pattern is left to the unknown suffix), and a pattern left
  // over when the prefix ends is matched by a suffix chosen for it. Only a mismatching byte or
  // a pattern that ends before the prefix rules a match out.
  size_t p = 0;
  for (size_t s = 0; s < prefix.size(); ++s) {
    if (p == pat.size()) return false;
    char pc = pat[p];
    if (pc == '*') return true;
    if (pc == '?') {
      ++p;
      continue;
    }
    if (pc == '[') {
      size_t end;
      if (!MatchSet(pat, p + 1, static_cast<unsigned char>(prefix[s]), false, &end)) return false;
      p = end;
      continue;
    }
    if (pc == '\\' && p + 1 < pat.size()) pc = pat[++p];
    if (pc != prefix[s]) return false;
    ++p;
  }
  return true;
}

GlobShape ShapeOfGlob(std::string_view pattern) {
  GlobShape shape;
  size_t i = 0;
  while (i < pattern.size() && pattern[i] != '*' && pattern[i] != '?' && pattern[i] != '[' &&
         pattern[i] != '\\') {
    ++i;
  }
  if (i == pattern.size()) {
    shape.kind = GlobShape::kExact;
  } else if (pattern[i] == '*' && i + 1 == pattern.size()) {
    shape.kind = GlobShape::kPrefix;
  } else {
    return shape;  // kGeneral
  }
  shape.literal = i;
  return shape;
}

}  // namespace redistp
