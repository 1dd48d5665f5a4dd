// Hashes whose fields carry expire times, in RDB form (Redis 7.4's RDB version 12).
//
// Redis 7.4 added four type bytes for them; we load all four and write one:
//   24 RDB_TYPE_HASH_METADATA     <min expire: 8 bytes LE> <count> then per field
//                                 <ttl: a length, 0 = none, else expire - min + 1>
//                                 <field string> <value string>
//   25 RDB_TYPE_HASH_LISTPACK_EX  <min expire: 8 bytes LE> <listpack of (field, value, expire)
//                                 triples; expire 0 = none, else absolute unix ms>
//   22, 23                        7.4's release candidates: the same without the min expire,
//                                 and 22's ttl is the absolute expire time itself.
// Expire times are absolute unix ms. The min expire of 24 is the smallest field time (0 when
// none has one), which makes each field's ttl a small number; 25's is informational and ignored.
// We write 24 for every hash with a field TTL in an RDB 12 image (our hashes with field TTLs are
// all hashtables: types/hash_field_expire.h), which 7.4 loads. Below 12 there is no form for a
// field TTL: the hash is written as 7.0 writes it, fields and values only, and the writers log
// that the TTLs were left out (docs/compat-version.md).
//
// Loading checks everything (counts, listpack integrity, triples, duplicate fields, times
// within 7.4's bound of 2^48 - 1 ms) and keeps every field, expired or not: which fields are past
// due is the caller's policy (a file loaded on a master drops them, persistence/rdb_load.cc;
// RESTORE keeps them for expiry to delete, with its events).
#pragma once

#include <cstdint>

#include "types/type_limits.h"
#include "types/value.h"
#include "util/status.h"

namespace redistp {

class RdbReader;
class RdbWriter;
class HashObject;

// The largest field expire time 7.4 stores (48 bits of ms, the year 10889).
inline constexpr int64_t kMaxFieldExpireMs = (int64_t{1} << 48) - 1;

// Whether `v` is a hash some of whose fields carry expire times (what a format below 12
// cannot hold).
bool CarriesFieldExpires(const Value& v);

// RDB_TYPE_HASH_METADATA's payload for `h` (after the type byte).
void SerializeHashMetadata(const HashObject& h, RdbWriter& w);

Result<Value> LoadHashMetadata(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashMetadataPreGa(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashListpackEx(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashListpackExPreGa(RdbReader& r, const TypeLimits& limits);

// Deletes the fields of hash `v` whose expire time is at or before `now_ms`; returns how many
// went (the hash may be left empty: the caller drops the key then).
size_t DropExpiredFields(Value& v, int64_t now_ms);

}  // namespace redistp
