// HashTable: the one chained hash table of the server, with incremental rehashing, for the
// keyspace and for the large aggregates (hash fields, set members, sorted-set members).
//
// Storage. Elements are intrusive nodes chained through a `next` pointer the node itself
// carries; the table holds only bucket arrays of node pointers. What a node is, how its key is
// read, hashed and compared and how it is freed is the Traits parameter's business:
//
//   struct Traits {
//     using Node = ...;                                 // the element type
//     using Key = ...;                                  // what lookups take (e.g. string_view)
//     static Node*& Next(Node* n);                      // the chain link inside the node
//     static Key KeyOf(const Node* n);
//     static uint64_t Hash(const Key& k);               // seeded (util/hash.h) for client bytes
//     static bool Equal(const Node* n, const Key& k);
//     static void Destroy(Node* n);                     // frees a node the table owns
//   };
//
// A caller with its own node layout (the keyspace's Entry, a sorted set's skiplist node) writes
// such a traits class and gets stable node pointers, one allocation per element and no per
// element overhead beyond the link. A caller with a plain value type uses BoxedTraits below,
// which wraps each value in a {next, value} node: node-based storage.
//
// Resizing. Two bucket arrays, each a power of two in size. Normally only table 0 is in use.
// When an insertion finds the load factor at 1 (or MaybeShrink finds it under 1/10) a second
// array is allocated and buckets migrate from table 0 to table 1 a few at a time: one bucket
// per Find/Insert/Unlink/Random (bounded: at most 10 empty buckets visited; a uniform random
// pick takes 16, types/fair_random.h) and a time-bounded batch from the owner's cron
// (RehashFor). When table 0 is empty, table 1 becomes table 0, so no single call pays for
// moving millions of elements. The sizes follow Redis's rules, which DEBUG HTSTATS shows and
// tests compare on both servers. While resizing is paused
// (SetHashTableResizeAllowed(false), while a forked child shares the memory) a table grows only
// when its load passes 5, never shrinks, and a rehash under way takes no steps on access.
//
// The pause is process-wide, not per table: a fork shares every page of the process, so every
// table (the keyspace and each set, hash and sorted set) must hold still alike, and a flag per
// table would cost each small aggregate a field and the server a walk over all of them at each
// fork. It is the one mutable global of the table, written by the server's main thread on fork
// and on reaping the child, read only by the main thread.
//
// Invariants:
//  - an element is in exactly one table; while rehashing, buckets [0, rehash_idx_) of table 0
//    are empty and new elements go to table 1;
//  - nodes never move: rehashing relinks them, never copies them;
//  - Scan() walks a reverse-binary cursor, so every element present for the whole scan is
//    returned at least once however the table grows or shrinks between calls (one may repeat);
//  - at least one bucket exists whenever an element does.
//
// The table is not thread-safe. ForEach and Scan callbacks may not insert or remove, except
// that a Scan callback may unlink (and free) the very node it is given.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>

#include "util/hash.h"

namespace redistp {

namespace hash_table_detail {
inline bool resize_allowed = true;
}  // namespace hash_table_detail

// Pauses (false) or resumes (true) automatic resizing of every HashTable in the process; see
// the essay above. Main thread only.
inline void SetHashTableResizeAllowed(bool allowed) { hash_table_detail::resize_allowed = allowed; }
inline bool HashTableResizeAllowed() { return hash_table_detail::resize_allowed; }

template <typename Traits>
class HashTable {
 public:
  using Node = typename Traits::Node;
  using Key = typename Traits::Key;

  HashTable() = default;
  ~HashTable() {
    Clear([](Node* n) { Traits::Destroy(n); });
  }
  HashTable(const HashTable&) = delete;
  HashTable& operator=(const HashTable&) = delete;

  size_t size() const { return used_[0] + used_[1]; }
  bool empty() const { return size() == 0; }
  size_t buckets() const { return size_[0] + size_[1]; }
  bool rehashing() const { return rehash_idx_ >= 0; }
  // DEBUG HTSTATS: the number of buckets and of elements of table t (0: the main table, 1:
  // the target of a rehash under way; 0 when absent), and the chain length of its bucket i.
  size_t TableBuckets(int t) const { return size_[t]; }
  size_t TableElements(int t) const { return used_[t]; }
  size_t ChainLength(int t, size_t i) const {
    size_t n = 0;
    for (Node* e = table_[t][i]; e != nullptr; e = Traits::Next(e)) ++n;
    return n;
  }
  // Bytes of the bucket arrays (the table's own overhead; nodes are the caller's to count).
  size_t BucketBytes() const { return buckets() * sizeof(Node*); }

  // The node whose key equals `key`, or nullptr. Advances a rehash by one bucket.
  Node* Find(const Key& key) {
    if (size() == 0) return nullptr;
    RehashStep();
    uint64_t h = Traits::Hash(key);
    for (int t = 0; t < 2; ++t) {
      if (size_[t] == 0) continue;
      for (Node* n = table_[t][h & (size_[t] - 1)]; n != nullptr; n = Traits::Next(n)) {
        if (Traits::Equal(n, key)) return n;
      }
      if (!rehashing()) break;
    }
    return nullptr;
  }

  // Asks the processor for the bucket(s) `key` hashes to, ahead of a Find or Insert of it: a
  // bulk load does this before it decodes the key's value, by when the bucket has arrived.
  void Prefetch(const Key& key) const {
    if (size() == 0) return;
    uint64_t h = Traits::Hash(key);
    for (int t = 0; t < 2; ++t) {
      if (size_[t] != 0) __builtin_prefetch(&table_[t][h & (size_[t] - 1)]);
    }
  }

  // Whether inserting one more node now would start growing the bucket array, and how many
  // bytes the new array would take: an owner with a memory budget (the keyspace under
  // maxmemory) asks before Insert and may pass may_grow = false to stay within it.
  bool WouldGrow() const {
    return !rehashing() && size_[0] != 0 && used_[0] >= size_[0] && HashTableResizeAllowed();
  }
  size_t GrowBytes() const { return BucketsFor(used_[0] + 1) * sizeof(Node*); }

  // Links a node whose key is not present (the caller looked it up). Takes ownership. With
  // may_grow false the table does not start growing unless its load passed kMaxLoadNoGrow
  // (chains stay short; Redis's dict makes the same exception to its own veto).
  void Insert(Node* n, bool may_grow = true) {
    RehashStep();
    if (may_grow || size_[0] == 0 || used_[0] * 1000 > size_[0] * kMaxLoadNoGrowMilli) {
      ExpandIfNeeded();
    }
    int t = rehashing() ? 1 : 0;
    Node** bucket = &table_[t][Traits::Hash(Traits::KeyOf(n)) & (size_[t] - 1)];
    Traits::Next(n) = *bucket;
    *bucket = n;
    ++used_[t];
  }

  // Unlinks the node with this key and hands it (and its ownership) back, or nullptr.
  Node* Unlink(const Key& key) {
    if (size() == 0) return nullptr;
    RehashStep();
    uint64_t h = Traits::Hash(key);
    for (int t = 0; t < 2; ++t) {
      if (size_[t] == 0) continue;
      Node** link = &table_[t][h & (size_[t] - 1)];
      for (Node* n = *link; n != nullptr; link = &Traits::Next(n), n = *link) {
        if (Traits::Equal(n, key)) {
          *link = Traits::Next(n);
          Traits::Next(n) = nullptr;
          --used_[t];
          return n;
        }
      }
      if (!rehashing()) break;
    }
    return nullptr;
  }

  // Unlinks every node and passes each to take(node), which now owns it; frees the buckets.
  template <typename Take>
  void Clear(Take&& take) {
    for (int t = 0; t < 2; ++t) {
      for (size_t i = 0; i < size_[t] && used_[t] > 0; ++i) {
        Node* n = table_[t][i];
        while (n != nullptr) {
          Node* next = Traits::Next(n);
          --used_[t];
          take(n);
          n = next;
        }
      }
      std::free(table_[t]);
      table_[t] = nullptr;
      size_[t] = used_[t] = 0;
    }
    rehash_idx_ = -1;
  }
  void Clear() {
    Clear([](Node* n) { Traits::Destroy(n); });
  }

  // Exchanges the whole contents with `other` (SWAPDB).
  void Swap(HashTable& other) {
    for (int t = 0; t < 2; ++t) {
      std::swap(table_[t], other.table_[t]);
      std::swap(size_[t], other.size_[t]);
      std::swap(used_[t], other.used_[t]);
    }
    std::swap(rehash_idx_, other.rehash_idx_);
  }

  // Migrates up to n buckets, visiting at most 10*n empty ones. True if more remain.
  bool Rehash(int n) {
    if (!rehashing()) return false;
    int empty_visits = n * 10;
    while (n-- > 0 && used_[0] != 0) {
      while (table_[0][rehash_idx_] == nullptr) {
        ++rehash_idx_;
        if (--empty_visits == 0) return true;
      }
      for (Node* e = table_[0][rehash_idx_]; e != nullptr;) {
        Node* next = Traits::Next(e);
        Node** bucket = &table_[1][Traits::Hash(Traits::KeyOf(e)) & (size_[1] - 1)];
        Traits::Next(e) = *bucket;
        *bucket = e;
        --used_[0];
        ++used_[1];
        e = next;
      }
      table_[0][rehash_idx_] = nullptr;
      ++rehash_idx_;
    }
    if (used_[0] != 0) return true;
    std::free(table_[0]);
    table_[0] = table_[1];
    size_[0] = size_[1];
    used_[0] = used_[1];
    table_[1] = nullptr;
    size_[1] = used_[1] = 0;
    rehash_idx_ = -1;
    return false;
  }

  // Rehashes in batches of 100 buckets for roughly `us` microseconds (at least one batch).
  // Returns the number of buckets moved (a multiple of 100, an upper bound).
  int RehashFor(int64_t us) {
    auto start = std::chrono::steady_clock::now();
    int moved = 0;
    while (Rehash(100)) {
      moved += 100;
      auto elapsed = std::chrono::steady_clock::now() - start;
      if (std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count() >= us) break;
    }
    return moved;
  }

  // Makes room for `n` nodes at once (the size hint of a file being loaded), so that filling
  // the table needs no incremental resize, which would otherwise still be relinking nodes long
  // after the load (and make a forked child copy their pages). Nodes already in the table are
  // moved into the new buckets now.
  void Reserve(size_t n) {
    while (Rehash(1000)) {
    }
    const size_t want = BucketsFor(n);
    if (want <= size_[0]) return;
    if (size_[0] == 0) {
      table_[0] = AllocBuckets(want);
      size_[0] = want;
      return;
    }
    StartResize(want);
    while (Rehash(1000)) {
    }
  }

  // Starts a shrink when fewer than 1 in 10 buckets would be used. The owner calls it after
  // removals, or from its cron.
  void MaybeShrink() {
    if (rehashing() || !HashTableResizeAllowed() || size_[0] <= kInitialSize) return;
    if (used_[0] * 100 / size_[0] < kMinFillPercent) StartResize(BucketsFor(used_[0]));
  }

  // One SCAN step: calls fn(node) for every node of the bucket(s) at `cursor` and returns the
  // next cursor, 0 when the scan is complete. fn may unlink and free the node it is given.
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    if (size() == 0) return 0;
    uint64_t v = cursor;
    // No rehash step may run inside fn (an Unlink would take one): it could move the rest of
    // the bucket being walked to the other table behind the walk's back.
    ++scan_pause_;
    struct Resume {
      int* pause;
      ~Resume() { --*pause; }
    } resume{&scan_pause_};
    auto emit_bucket = [&](int t, size_t idx) {
      for (Node* n = table_[t][idx]; n != nullptr;) {
        Node* next = Traits::Next(n);
        fn(n);
        n = next;
      }
    };
    if (!rehashing()) {
      uint64_t m0 = size_[0] - 1;
      emit_bucket(0, v & m0);
      return NextCursor(v, m0);
    }
    // Rehashing: the bucket of the smaller table, then every bucket of the larger table that
    // it expands into (they share the low bits of the cursor).
    int small = size_[0] <= size_[1] ? 0 : 1;
    int large = 1 - small;
    uint64_t m0 = size_[small] - 1;
    uint64_t m1 = size_[large] - 1;
    emit_bucket(small, v & m0);
    do {
      emit_bucket(large, v & m1);
      v = NextCursor(v, m1);
    } while (v & (m0 ^ m1));
    return v;
  }

  // Blocks, for uniform random picks (FairRandomNode, types/fair_random.h): the buckets of both
  // arrays, table 0's then table 1's, cut into aligned runs of `width` buckets. Every node lies
  // in exactly one block. RandomBlockWidth is the widest power of two, at most 8 (one cache
  // line of bucket pointers) and no wider than either array, at which neither array holds on
  // average more than one node per block; table sizes are powers of two, so no block straddles
  // the two arrays and BlockCount blocks cover them exactly.
  size_t RandomBlockWidth() const {
    size_t width = kMaxBlockWidth;
    for (int t = 0; t < 2; ++t) {
      if (size_[t] == 0) continue;
      while (width > 1 && (width > size_[t] || used_[t] * width > size_[t])) width >>= 1;
    }
    return width;
  }
  size_t BlockCount(size_t width) const { return (size_[0] + size_[1]) / width; }

  // Starts loading what WalkBlock will read first, without waiting for it: the block's bucket
  // pointers (stage 0) or, once those have arrived, the first node of each of its chains (stage
  // 1). A caller that will look at many random blocks issues both for all of them before walking
  // any, so their cache misses overlap instead of following one another.
  void PrefetchBlock(size_t block, size_t width, int stage) const {
    Node* const* first = BlockStart(block, width);
    if (stage == 0) {
      __builtin_prefetch(first);
      __builtin_prefetch(first + width - 1);  // the arrays are only 16-byte aligned
      return;
    }
    for (size_t i = 0; i < width; ++i) {
      if (first[i] != nullptr) __builtin_prefetch(first[i]);
    }
  }

  // Calls fn(node) for the nodes of a block, bucket by bucket and along each chain, until fn
  // returns false. fn must not change the table.
  template <typename Fn>
  void WalkBlock(size_t block, size_t width, Fn&& fn) const {
    Node* const* first = BlockStart(block, width);
    for (size_t i = 0; i < width; ++i) {
      for (Node* n = first[i]; n != nullptr; n = Traits::Next(n)) {
        if (!fn(n)) return;
      }
    }
  }

  // A random node, or nullptr when empty: a random non-empty bucket (bounded attempts, then a
  // linear fallback), then a uniform pick in its chain. Chains are short at load <= 1, so this
  // is fair enough for RANDOMKEY, SRANDMEMBER and eviction sampling.
  Node* Random() {
    if (size() == 0) return nullptr;
    RehashStep();
    Node* bucket = nullptr;
    for (int attempt = 0; attempt < 1000 && bucket == nullptr; ++attempt) {
      if (rehashing()) {
        size_t span = size_[0] + size_[1] - static_cast<size_t>(rehash_idx_);
        size_t i = static_cast<size_t>(rehash_idx_) + RandomWord() % span;
        bucket = i >= size_[0] ? table_[1][i - size_[0]] : table_[0][i];
      } else {
        bucket = table_[0][RandomWord() & (size_[0] - 1)];
      }
    }
    for (int t = 0; t < 2 && bucket == nullptr; ++t) {
      for (size_t i = 0; i < size_[t] && bucket == nullptr; ++i) bucket = table_[t][i];
    }
    size_t len = 0;
    for (Node* n = bucket; n != nullptr; n = Traits::Next(n)) ++len;
    Node* n = bucket;
    for (size_t pick = RandomWord() % len; pick > 0; --pick) n = Traits::Next(n);
    return n;
  }

  // Calls fn(node) for every node. fn must not change the table.
  template <typename Fn>
  void ForEach(Fn&& fn) const {
    for (int t = 0; t < 2; ++t) {
      for (size_t i = 0; i < size_[t]; ++i) {
        for (Node* n = table_[t][i]; n != nullptr;) {
          Node* next = Traits::Next(n);
          fn(n);
          n = next;
        }
      }
    }
  }

 private:
  static constexpr size_t kInitialSize = 4;
  static constexpr size_t kMinFillPercent = 10;
  static constexpr size_t kMaxBlockWidth = 8;
  static constexpr size_t kMaxLoadNoGrowMilli = 1618;  // load 1.618, in thousandths

  Node* const* BlockStart(size_t block, size_t width) const {
    const size_t first = block * width;
    return first < size_[0] ? &table_[0][first] : &table_[1][first - size_[0]];
  }
  static Node** AllocBuckets(size_t n) {
    auto** t = static_cast<Node**>(std::calloc(n, sizeof(Node*)));
    if (t == nullptr) throw std::bad_alloc();
    return t;
  }
  // The smallest power of two >= max(n, kInitialSize).
  static size_t BucketsFor(size_t n) {
    size_t s = kInitialSize;
    while (s < n) s <<= 1;
    return s;
  }
  static uint64_t ReverseBits(uint64_t v) {
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0F0F0F0F0F0F0F0FULL) | ((v & 0x0F0F0F0F0F0F0F0FULL) << 4);
    return __builtin_bswap64(v);
  }
  // Increments the cursor's masked bits from the top down (reverse binary order).
  static uint64_t NextCursor(uint64_t v, uint64_t mask) {
    v |= ~mask;
    v = ReverseBits(v);
    ++v;
    return ReverseBits(v);
  }

  // While resizing is paused a rehash under way also waits: moving a node writes its link, and
  // for a snapshot sharing memory copy-on-write (a forked child) that copies its page.
  void RehashStep() {
    if (rehash_idx_ >= 0 && scan_pause_ == 0 && HashTableResizeAllowed()) Rehash(1);
  }
  void ExpandIfNeeded() {
    if (rehashing()) return;
    if (size_[0] == 0) {
      table_[0] = AllocBuckets(kInitialSize);
      size_[0] = kInitialSize;
      return;
    }
    if (used_[0] >= size_[0] && (HashTableResizeAllowed() || used_[0] / size_[0] > 5)) {
      StartResize(BucketsFor(used_[0] + 1));
    }
  }
  void StartResize(size_t new_size) {
    if (rehashing() || new_size == size_[0]) return;
    table_[1] = AllocBuckets(new_size);
    size_[1] = new_size;
    used_[1] = 0;
    rehash_idx_ = 0;
  }

  Node** table_[2] = {nullptr, nullptr};
  size_t size_[2] = {0, 0};
  size_t used_[2] = {0, 0};
  int64_t rehash_idx_ = -1;
  int scan_pause_ = 0;  // > 0 while a Scan callback runs: no incremental rehash steps
};

// Node-based storage for a plain value type T: each element lives in a {next, value} node.
// KeyOps supplies the key view: `using Key`, `static Key KeyOf(const T&)`,
// `static uint64_t Hash(const Key&)`, `static bool Equal(const T&, const Key&)`.
template <typename T, typename KeyOps>
struct BoxedTraits {
  struct Node {
    Node* next = nullptr;
    T value;
    template <typename... Args>
    explicit Node(Args&&... args) : value(std::forward<Args>(args)...) {}
  };
  using Key = typename KeyOps::Key;
  static Node*& Next(Node* n) { return n->next; }
  static Key KeyOf(const Node* n) { return KeyOps::KeyOf(n->value); }
  static uint64_t Hash(const Key& k) { return KeyOps::Hash(k); }
  static bool Equal(const Node* n, const Key& k) { return KeyOps::Equal(n->value, k); }
  static void Destroy(Node* n) { delete n; }
  template <typename... Args>
  static Node* Make(Args&&... args) {
    return new Node(std::forward<Args>(args)...);
  }
};

}  // namespace redistp
