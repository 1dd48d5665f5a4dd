// Number parsing and formatting with Redis's exact acceptance rules.
//
// Redis is strict where C's strtol is lenient: an integer argument has no sign other than a
// leading '-', no leading zeros (except "0" itself), no spaces, and must fit in 64 bits. Floats
// go through strtod/strtold but reject leading space, trailing junk and NaN. Every command that
// reads a number uses these functions, so "value is not an integer" means the same everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace redistp {

// Longest text ParseInt64 accepts / FormatInt64 produces ("-9223372036854775808").
inline constexpr size_t kMaxInt64Chars = 20;

bool ParseInt64(std::string_view s, int64_t* out);
bool ParseUint64(std::string_view s, uint64_t* out);
// Parses a double; rejects NaN, empty text, surrounding spaces and trailing bytes.
// Accepts "inf", "+inf", "-inf" (as strtod does).
bool ParseDouble(std::string_view s, double* out);
bool ParseLongDouble(std::string_view s, long double* out);
// Memory sizes as in redis.conf: "100", "1k"(1000) "1kb"(1024) "5m" "5mb" "1g" "1gb", any case.
// Negative values are accepted when allow_negative (e.g. for signed memory params).
bool ParseMemory(std::string_view s, int64_t* out, bool allow_negative = false);

// Writes the decimal form of v into buf (at least kMaxInt64Chars + 1 bytes); returns the length.
size_t FormatInt64(int64_t v, char* buf);
std::string Int64ToString(int64_t v);
// "%.17g" form used for RESP3 doubles and scores ("inf", "-inf" for infinities).
std::string FormatDouble(double v);
// The human form INCRBYFLOAT replies with: fixed notation, 17 decimals, trailing zeros dropped.
std::string FormatLongDoubleHuman(long double v);
// Bytes as Redis's INFO shows them: "1.00M", "923B", "2.50G".
std::string BytesToHuman(uint64_t n);

// Case-insensitive ASCII equality, for command and option names.
bool EqualsIgnoreCase(std::string_view a, std::string_view b);
std::string ToLower(std::string_view s);

}  // namespace redistp
