// Entry: one key of a database, allocated as a single block.
//
//   [ next | value (16) | key_len | lru:24 flags:8 | key bytes ... ]
//     8      16           4         4                 key_len
//
// The key bytes live inline after the header, so a small string key costs one allocation
// (jemalloc's 48-byte class for keys up to 16 bytes, its 64-byte class up to 32), against
// Redis's dictEntry + key sds + robj. A key's TTL is not kept here but in its database's
// ExpireIndex (ptr_set.h), as Redis keeps an expires dict beside its keys: the entry only
// carries kFlagVolatile, so the keys without a TTL, most of a cache's, do not pay 8 bytes
// for it. `next` chains entries of one hash bucket. Entries never move once created: a pointer
// to an Entry stays valid until the database removes the key, which lets the expires index
// (and the owner index of temporary keys) hold plain pointers.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "types/value.h"

namespace redistp {

struct Entry {
  Entry* next;
  Value value;
  uint32_t key_len;
  uint32_t lru_flags;  // low 24 bits: LRU clock (seconds) / LFU data; high 8 bits: flags

  static constexpr uint32_t kLruMask = 0xFFFFFF;
  static constexpr uint32_t kFlagTemporary = 1u << 24;  // owned by a connection (SETTP)
  // Its (db, key) has existence watchers or BSETTP waiters: removal and value-change events
  // consult the watch index only for entries carrying this bit (may be stale-true, never
  // stale-false), so unwatched keys cost no extra lookup.
  static constexpr uint32_t kFlagWatched = 1u << 25;
  // A hash with per-field expire times: the entry is in its database's index of such hashes
  // (active field expiry). May be stale-true (its last field time went), never stale-false.
  static constexpr uint32_t kFlagFieldTtl = 1u << 26;
  // The key has a TTL, kept in its database's ExpireIndex (Database::ExpireOf). Exact.
  static constexpr uint32_t kFlagVolatile = 1u << 27;

  char* key_data() { return reinterpret_cast<char*>(this + 1); }
  const char* key_data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view key() const { return {key_data(), key_len}; }
  bool has_expire() const { return has_flag(kFlagVolatile); }
  uint32_t lru() const { return lru_flags & kLruMask; }
  void set_lru(uint32_t v) { lru_flags = (lru_flags & ~kLruMask) | (v & kLruMask); }
  bool has_flag(uint32_t f) const { return (lru_flags & f) != 0; }
  void set_flag(uint32_t f, bool on) { lru_flags = on ? (lru_flags | f) : (lru_flags & ~f); }

  // Allocates an entry holding a copy of `key` and taking `value`.
  static Entry* Create(std::string_view key, Value&& value);
  static void Destroy(Entry* e);
  // Bytes the entry's block occupies (for MEMORY USAGE).
  size_t AllocSize() const;
};

static_assert(sizeof(Entry) == 32, "Entry header must stay 32 bytes");

}  // namespace redistp
