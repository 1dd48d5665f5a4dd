// The argument rules every SCAN-family command shares: the cursor and the MATCH/COUNT/TYPE
// options of SCAN (keys_inspect.cc) and of HSCAN/SSCAN/ZSCAN (aggregate_scan.cc), so all four
// answer one malformed argument with the same error, as Redis's single scan routine does.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "protocol/reply_builder.h"

namespace redistp {

// Parses a SCAN cursor: an unsigned 64-bit number read like C's strtoull (optional sign, a
// minus negating modulo 2^64, decimal digits, nothing after; no leading spaces; "" is 0; the
// parse ends at a NUL byte). False for anything else or a value over 2^64-1.
bool ParseScanCursor(std::string_view s, uint64_t* out);

// The options after the cursor.
struct ScanOptions {
  std::string_view pattern;
  bool has_pattern = false;  // false for no MATCH or MATCH "*" (matches everything)
  std::string_view type;
  bool has_type = false;
  int64_t count = 10;
  bool no_values = false;  // HSCAN NOVALUES (Redis 7.4), ZSCAN NOSCORES (8.0): names only
};

// Parses args[first...] as MATCH/COUNT (and TYPE when allow_type: SCAN only) pairs, and, when
// `lone_word` is given, that word alone anywhere among them (sets no_values). On error replies
// it (syntax error for an unknown or incomplete option or a COUNT below 1, the integer error for
// a COUNT that is not one) and returns false. The newer servers answer NOVALUES or NOSCORES given
// to the wrong command with an error of their own; here, as in Redis 7.0, it is a syntax error.
bool ParseScanOptions(const std::vector<std::string_view>& args, size_t first, bool allow_type,
                      ReplyBuilder& reply, ScanOptions* out, std::string_view lone_word = {});

// Writes a cursor as the bulk string Redis replies it ("%llu").
void ReplyScanCursor(ReplyBuilder& reply, uint64_t cursor);

}  // namespace redistp
