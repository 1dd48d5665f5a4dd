// TypeLimits: the encoding thresholds of the aggregate types, from the server's configuration.
//
// Small aggregates use a packed encoding (listpack, intset) and convert to a large one
// (hashtable, skiplist) once an element count or an element size passes these limits, exactly
// where Redis 7.0 converts, so OBJECT ENCODING answers as Redis does. The values are Redis's
// config parameters of the same names; the server keeps one TypeLimits up to date (CONFIG SET
// applies to values created or converted afterwards, as in Redis) and hands it to the types.
#pragma once

#include <cstddef>

namespace redistp {

struct TypeLimits {
  int list_max_listpack_size = -2;  // list-max-listpack-size (quicklist node fill)
  int list_compress_depth = 0;      // list-compress-depth
  // Elements of this many bytes or more get a plain quicklist node of their own (1 GB, as
  // Redis; no config parameter: DEBUG QUICKLIST-PACKED-THRESHOLD sets it, for every list).
  size_t list_packed_threshold = size_t{1} << 30;
  size_t hash_max_listpack_entries = 512;
  size_t hash_max_listpack_value = 64;
  size_t set_max_intset_entries = 512;
  size_t zset_max_listpack_entries = 128;
  size_t zset_max_listpack_value = 64;
  size_t stream_node_max_bytes = 4096;   // stream-node-max-bytes (0 = no byte limit)
  size_t stream_node_max_entries = 100;  // stream-node-max-entries (0 = no count limit)
};

}  // namespace redistp
