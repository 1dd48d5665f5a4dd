// RDB loaders of the value encodings Redis 7.0 reads but no longer writes.
//
// Files and DUMP payloads from Redis before 7.0 (RDB version <= 9) hold lists, hashes and
// sorted sets in ziplists (types/ziplist.h), hashes from Redis 2.4 and earlier in zipmaps, and
// sorted sets from before RDB version 8 with their scores as text. Redis 7.0 converts each on
// load into what it would have built itself, and so do these loaders (the rows of type_ops.cc's
// loader table for the RDB types 3, 9, 10, 12, 13 and 14):
//   RDB_TYPE_LIST_ZIPLIST (10)    a quicklist with the converted ziplist as its one node;
//   RDB_TYPE_LIST_QUICKLIST (14)  a quicklist with one node per ziplist (empty ones skipped);
//   RDB_TYPE_HASH_ZIPMAP (9)      a listpack hash, or a hashtable past either hash limit
//                                 (entries, or a field or value longer than the value limit);
//   RDB_TYPE_HASH_ZIPLIST (13)    a listpack hash, a hashtable past the entries limit only;
//   RDB_TYPE_ZSET_ZIPLIST (12)    a listpack zset, a skiplist past the entries limit only;
//   RDB_TYPE_ZSET (3)             as RDB_TYPE_ZSET_2 (zset.h LoadZSetText).
// Every blob is validated whole before use: a corrupt one, a hash field or zset member that
// repeats, an odd count of pair entries are errors; a value with no element is kRdbEmptyKey.
#pragma once

#include "types/serialize.h"
#include "types/type_limits.h"
#include "types/value.h"
#include "util/status.h"

namespace redistp {

Result<Value> LoadListZiplist(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadListQuicklist(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashZipmap(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadHashZiplist(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadZSetZiplist(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
