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

namespace hash_internal {
// The per-thread state of RandomWord; 0 until the thread's first draw seeds it.
inline thread_local uint64_t random_state = 0;
uint64_t RandomSeed();  // a fresh nonzero seed from the system
}  // namespace hash_internal

// A fast per-thread pseudo-random word (for sampling: random elements, skiplist levels). Not
// for anything secret. A counter stepped by an odd constant and passed through a 64-bit
// finalizer (the SplitMix64 construction): a few instructions inline, where the Mersenne
// Twister it replaces cost a call and 5% of SPOP's time refilling its 2.5 KB state.
inline uint64_t RandomWord() {
  uint64_t& state = hash_internal::random_state;
  if (state == 0) [[unlikely]]
    state = hash_internal::RandomSeed();
  state += 0x9e3779b97f4a7c15ULL;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

}  // namespace redistp
