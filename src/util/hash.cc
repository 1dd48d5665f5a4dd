#include "util/hash.h"

#include <random>

namespace redistp {

namespace hash_internal {
uint64_t g_seed = 0x5f3759df9e3779b9ULL;
}  // namespace hash_internal

void SetHashSeed(uint64_t seed) { hash_internal::g_seed = seed; }

uint64_t RandomWord() {
  thread_local std::mt19937_64 rng{std::random_device{}()};
  return rng();
}

}  // namespace redistp
