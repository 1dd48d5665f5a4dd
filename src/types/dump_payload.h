// DUMP payloads: one value in the form DUMP replies and RESTORE / MIGRATE take.
//
// A payload is the value's RDB object (type byte + payload, exactly what an RDB file holds
// after the key) followed by a 10-byte trailer: the RDB format version that wrote it (2 bytes
// little-endian) and the CRC-64 (util/crc64.h) of every byte before the CRC (8 bytes
// little-endian). Redis writes its own RDB version (7.0: 10, 7.2: 11, 7.4: 12) and accepts any
// version up to it, so a payload from an older server restores and one from a newer server is
// refused. Ours is the RDB version of compat-version (server/version.h), both ways: at the
// default 7.0.15 a 7.2 payload is refused exactly as Redis 7.0 refuses it.
//
// Checking is two steps with two different errors, as in Redis: the trailer (length, version,
// CRC) and then the object itself. Like Redis, the object is read from the whole payload (an
// object that runs into the trailer's bytes loads; bytes left over are ignored), and every
// loader validates deeply (lengths, encodings, ordering, duplicates), so a payload crafted
// with a valid CRC is an error and never a crash, whatever sanitize-dump-payload says.
#pragma once

#include <string>
#include <string_view>

#include "types/serialize.h"
#include "types/type_limits.h"
#include "types/value.h"
#include "util/status.h"

namespace redistp {

inline constexpr size_t kDumpTrailerBytes = 10;

// The DUMP payload of `v` in RDB format `rdb_version` (its encodings and its trailer); strings
// over 20 bytes are LZF-compressed when `compress` (rdbcompression), as Redis does.
std::string CreateDumpPayload(const Value& v, bool compress, int rdb_version = kRdbFormatVersion);

// True when `payload` has a trailer this server accepts: at least 10 bytes, a version not
// newer than `max_rdb_version` and, unless `skip_crc`, a matching CRC-64.
bool VerifyDumpPayload(std::string_view payload, bool skip_crc = false,
                       int max_rdb_version = kRdbFormatVersion);

// The value in a payload VerifyDumpPayload accepted, its aggregates built with `limits`. Any
// malformed object (an empty aggregate, an unknown type byte, a module value) is an error.
Result<Value> LoadDumpPayload(std::string_view payload, const TypeLimits& limits);

}  // namespace redistp
