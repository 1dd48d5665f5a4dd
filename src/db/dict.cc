#include "db/dict.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <new>
#include <random>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace redistp {
namespace {

uint64_t g_hash_seed = 0x5f3759df9e3779b9ULL;
constexpr size_t kInitialSize = 4;
constexpr size_t kMinFillPercent = 10;

Entry** AllocBuckets(size_t n) {
  auto** t = static_cast<Entry**>(std::calloc(n, sizeof(Entry*)));
  if (t == nullptr) throw std::bad_alloc();
  return t;
}

size_t NextPower(size_t n) {
  size_t s = kInitialSize;
  while (s < n) s <<= 1;
  return s;
}

uint64_t Rev(uint64_t v) {
  v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
  v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
  v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
  return __builtin_bswap64(v);
}

thread_local std::mt19937_64 g_rng{std::random_device{}()};

}  // namespace

void Dict::SetHashSeed(uint64_t seed) { g_hash_seed = seed; }

uint64_t Dict::Hash(std::string_view key) {
  return XXH3_64bits_withSeed(key.data(), key.size(), g_hash_seed);
}

Dict::Dict() = default;

Dict::~Dict() { Clear(); }

Entry* Dict::Find(std::string_view key) {
  if (size() == 0) return nullptr;
  RehashStep();
  uint64_t h = Hash(key);
  for (int t = 0; t < 2; ++t) {
    if (size_[t] == 0) continue;
    for (Entry* e = table_[t][h & (size_[t] - 1)]; e != nullptr; e = e->next) {
      if (e->key_len == key.size() && std::memcmp(e->key_data(), key.data(), key.size()) == 0) {
        return e;
      }
    }
    if (!rehashing()) break;
  }
  return nullptr;
}

void Dict::Insert(Entry* e) {
  RehashStep();
  ExpandIfNeeded();
  int t = rehashing() ? 1 : 0;
  size_t idx = Hash(e->key()) & (size_[t] - 1);
  e->next = table_[t][idx];
  table_[t][idx] = e;
  ++used_[t];
}

Entry* Dict::Unlink(std::string_view key) {
  if (size() == 0) return nullptr;
  RehashStep();
  uint64_t h = Hash(key);
  for (int t = 0; t < 2; ++t) {
    if (size_[t] == 0) continue;
    Entry** link = &table_[t][h & (size_[t] - 1)];
    for (Entry* e = *link; e != nullptr; link = &e->next, e = e->next) {
      if (e->key_len == key.size() && std::memcmp(e->key_data(), key.data(), key.size()) == 0) {
        *link = e->next;
        e->next = nullptr;
        --used_[t];
        return e;
      }
    }
    if (!rehashing()) break;
  }
  return nullptr;
}

void Dict::Clear(const std::function<void(Entry*)>& on_remove) {
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < size_[t] && used_[t] > 0; ++i) {
      Entry* e = table_[t][i];
      while (e != nullptr) {
        Entry* next = e->next;
        if (on_remove) on_remove(e);
        Entry::Destroy(e);
        --used_[t];
        e = next;
      }
    }
    std::free(table_[t]);
    table_[t] = nullptr;
    size_[t] = used_[t] = 0;
  }
  rehash_idx_ = -1;
}

void Dict::Swap(Dict& o) {
  for (int t = 0; t < 2; ++t) {
    std::swap(table_[t], o.table_[t]);
    std::swap(size_[t], o.size_[t]);
    std::swap(used_[t], o.used_[t]);
  }
  std::swap(rehash_idx_, o.rehash_idx_);
}

void Dict::ExpandIfNeeded() {
  if (rehashing()) return;
  if (size_[0] == 0) {
    table_[0] = AllocBuckets(kInitialSize);
    size_[0] = kInitialSize;
    return;
  }
  // Grow at load factor 1; if resizing is paused, only when badly overloaded.
  if (used_[0] >= size_[0] && (resize_allowed_ || used_[0] / size_[0] > 5)) {
    StartResize(NextPower(used_[0] + 1));
  }
}

void Dict::StartResize(size_t new_size) {
  if (rehashing() || new_size == size_[0]) return;
  table_[1] = AllocBuckets(new_size);
  size_[1] = new_size;
  used_[1] = 0;
  rehash_idx_ = 0;
}

void Dict::MaybeShrink() {
  if (rehashing() || !resize_allowed_ || size_[0] <= kInitialSize) return;
  if (used_[0] * 100 / size_[0] < kMinFillPercent) StartResize(NextPower(used_[0]));
}

bool Dict::Rehash(int n) {
  if (!rehashing()) return false;
  int empty_visits = n * 10;
  while (n-- > 0 && used_[0] != 0) {
    while (table_[0][rehash_idx_] == nullptr) {
      ++rehash_idx_;
      if (--empty_visits == 0) return true;
    }
    Entry* e = table_[0][rehash_idx_];
    while (e != nullptr) {
      Entry* next = e->next;
      size_t idx = Hash(e->key()) & (size_[1] - 1);
      e->next = table_[1][idx];
      table_[1][idx] = e;
      --used_[0];
      ++used_[1];
      e = next;
    }
    table_[0][rehash_idx_] = nullptr;
    ++rehash_idx_;
  }
  if (used_[0] == 0) {
    std::free(table_[0]);
    table_[0] = table_[1];
    size_[0] = size_[1];
    used_[0] = used_[1];
    table_[1] = nullptr;
    size_[1] = used_[1] = 0;
    rehash_idx_ = -1;
    return false;
  }
  return true;
}

int Dict::RehashFor(int64_t us) {
  auto start = std::chrono::steady_clock::now();
  int moved = 0;
  while (Rehash(100)) {
    moved += 100;
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count() >= us) break;
  }
  return moved;
}

uint64_t Dict::Scan(uint64_t v, const std::function<void(Entry*)>& fn) {
  if (size() == 0) return 0;
  auto emit_bucket = [&](int t, size_t idx) {
    Entry* e = table_[t][idx];
    while (e != nullptr) {
      Entry* next = e->next;
      fn(e);
      e = next;
    }
  };
  if (!rehashing()) {
    uint64_t m0 = size_[0] - 1;
    emit_bucket(0, v & m0);
    v |= ~m0;
    v = Rev(v);
    ++v;
    return Rev(v);
  }
  // Rehashing: visit the bucket in the small table, then every bucket of the large table that
  // the small bucket expands into.
  int small = size_[0] <= size_[1] ? 0 : 1;
  int large = 1 - small;
  uint64_t m0 = size_[small] - 1;
  uint64_t m1 = size_[large] - 1;
  emit_bucket(small, v & m0);
  do {
    emit_bucket(large, v & m1);
    v |= ~m1;
    v = Rev(v);
    ++v;
    v = Rev(v);
  } while (v & (m0 ^ m1));
  return v;
}

Entry* Dict::Random() {
  if (size() == 0) return nullptr;
  RehashStep();
  Entry* bucket = nullptr;
  // Bounded attempts at picking a non-empty bucket, then a linear fallback.
  for (int attempt = 0; attempt < 1000 && bucket == nullptr; ++attempt) {
    if (rehashing()) {
      size_t span = size_[0] + size_[1] - static_cast<size_t>(rehash_idx_);
      size_t i = static_cast<size_t>(rehash_idx_) + g_rng() % span;
      bucket = i >= size_[0] ? table_[1][i - size_[0]] : table_[0][i];
    } else {
      bucket = table_[0][g_rng() & (size_[0] - 1)];
    }
  }
  if (bucket == nullptr) {
    for (int t = 0; t < 2 && bucket == nullptr; ++t) {
      for (size_t i = 0; i < size_[t] && bucket == nullptr; ++i) bucket = table_[t][i];
    }
  }
  size_t len = 0;
  for (Entry* e = bucket; e != nullptr; e = e->next) ++len;
  size_t pick = g_rng() % len;
  Entry* e = bucket;
  while (pick-- > 0) e = e->next;
  return e;
}

void Dict::ForEach(const std::function<void(Entry*)>& fn) const {
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; i < size_[t]; ++i) {
      for (Entry* e = table_[t][i]; e != nullptr;) {
        Entry* next = e->next;
        fn(e);
        e = next;
      }
    }
  }
}

}  // namespace redistp
