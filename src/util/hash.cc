#include "util/hash.h"

#include <random>

namespace redistp {

namespace hash_internal {
uint64_t g_seed = 0x5f3759df9e3779b9ULL;
}  // namespace hash_internal

void SetHashSeed(uint64_t seed) { hash_internal::g_seed = seed; }

uint64_t hash_internal::RandomSeed() {
  std::random_device device;
  uint64_t seed = (uint64_t{device()} << 32) ^ device();
  return seed == 0 ? 1 : seed;
}

}  // namespace redistp
