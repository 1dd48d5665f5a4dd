// The quoted, escaped form of a byte string that Redis shows wherever it prints client data
// as text: MONITOR lines, the crash report's argv, CONFIG REWRITE's quoted values and the AOF
// manifest's file names. It is Redis's `sdscatrepr` behaviour: the bytes between double quotes,
// a backslash before `"` and `\`, the C escapes \n \r \t \a \b for those five control bytes,
// printable ASCII (0x20..0x7e) as is, and every other byte as \xHH (two lower-case hex digits).
// The config reader (SplitConfigLine) reads every such form back to the same bytes.
#pragma once

#include <string>
#include <string_view>

namespace redistp {

// Appends the quoted form of `s` (quotes included) to `out`.
void AppendRepr(std::string* out, std::string_view s);

// The quoted form of `s` as a new string.
std::string Repr(std::string_view s);

}  // namespace redistp
