// Seeded hashing of byte strings, and the random source the hash tables sample with.
//
// Every table of the server that is keyed by client-supplied bytes (the keyspace, the members
// of sets, the fields of hashes, the members of sorted sets) hashes with HashBytes: XXH3-64
// keyed by one process-wide seed drawn at startup, so a client cannot precompute keys that all
// land in one bucket (hash flooding). The seed is set once, before any table holds anything:
// changing it later would strand every element already placed.
#pragma once

#include <cstdint>
#include <string_view>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace redistp {

namespace hash_internal {
extern uint64_t g_seed;
}  // namespace hash_internal

// Sets the process-wide seed. Call before any table is filled.
void SetHashSeed(uint64_t seed);

inline uint64_t HashBytes(std::string_view bytes) {
  return XXH3_64bits_withSeed(bytes.data(), bytes.size(), hash_internal::g_seed);
}

// A 64-bit finalizer (the murmur3 mix): spreads any word, such as a pointer, over all 64 bits.
inline uint64_t MixBits(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return x;
}

// A fast per-thread pseudo-random word (for sampling: random elements, skiplist levels). Not
// for anything secret.
uint64_t RandomWord();

}  // namespace redistp
