// FairRandomNode: a uniformly random element of a chained HashTable (util/hash_table.h).
//
// HashTable::Random picks a random non-empty bucket and then a node of its chain, so a node
// sharing its bucket with two others comes up a third as often as a node alone in its bucket.
// That is fine for eviction sampling but not for commands whose users count on a fair draw
// (HRANDFIELD; Redis's tests check the histogram of its picks).
//
// Model. A random SCAN cursor below the smaller table's size names one bucket group: a bucket
// of the table, or while it rehashes the bucket of the smaller table together with the buckets
// of the larger one that it expands into. Every node lies in exactly one group and every group is
// equally likely. A round draws a group and a slot in [0, kSlots): the slot's node is the pick if
// the group has that many nodes, otherwise the round is repeated. Each node is thus taken with the
// same chance per round, 1 / (groups * kSlots): rejection sampling, exact as long as no group holds
// more than kSlots nodes (at the table's load factor of at most 1, a chain of 9 has odds of about
// one in a million per bucket). A node in a larger group is still returned, with a proportionally
// smaller chance.
//
// Cost: kSlots / load rounds on average, each reading one bucket group (8 at a full table).
// A nearly empty table (after mass deletion, before it shrinks) could take many rounds, so
// after kMaxRounds the draw falls back to HashTable::Random.
//
// Speed. In a big table every round is a cache miss or two (the bucket, then its chain), and
// they used to come one after the other. Rounds are now drawn kBatch at a time: the buckets of
// all of them are prefetched, then their first nodes, and only then are they tried in the
// order drawn, the first accepted one winning. That is the same sequence of independent
// rounds as before, so the pick is exactly as uniform, but the misses of a batch overlap. One
// random word makes a round: the cursor from its low bits, the slot from its top three.
#pragma once

#include <cstddef>
#include <cstdint>

#include "util/hash.h"
#include "util/hash_table.h"

namespace redistp {

// A uniformly random node of `table`, or nullptr when it is empty.
template <typename Traits>
typename Traits::Node* FairRandomNode(HashTable<Traits>& table) {
  using Node = typename Traits::Node;
  constexpr uint64_t kSlots = 8;  // the slot is a word's top 3 bits
  constexpr int kSlotShift = 61;
  constexpr int kBatch = 8;
  constexpr int kMaxRounds = 1000;
  static_assert(kSlots == uint64_t{1} << (64 - kSlotShift));
  if (table.empty()) return nullptr;
  // A random pick moves a rehash under way one bucket on, as a lookup does (Scan below takes
  // no steps), so a table that only random picks visit still finishes its resize; never
  // while resizing is paused for a forked child.
  if (table.rehashing() && HashTableResizeAllowed()) table.Rehash(1);
  // Groups are the buckets of the smaller table. Table sizes are powers of two, so that is
  // the lowest set bit of the bucket total (one table, or two of different sizes). A cursor
  // with no bits above it makes Scan walk the whole group: Scan continues a walk over the
  // larger table's buckets from the cursor's high bits, which must start at zero.
  const uint64_t buckets = table.buckets();
  const uint64_t group_mask = (buckets & (~buckets + 1)) - 1;
  // Cursors fit below bit kSlotShift: a table has fewer than 2^61 buckets.
  for (int round = 0; round < kMaxRounds; round += kBatch) {
    uint64_t words[kBatch];
    for (uint64_t& w : words) {
      w = RandomWord();
      table.PrefetchGroup(w & group_mask, 0);
    }
    for (uint64_t w : words) table.PrefetchGroup(w & group_mask, 1);
    for (uint64_t w : words) {
      const uint64_t cursor = w & group_mask;
      uint64_t slot = w >> kSlotShift;
      uint64_t seen = 0;
      Node* picked = nullptr;
      auto take_slot = [&](Node* n) {
        if (seen == slot) picked = n;
        ++seen;
      };
      table.Scan(cursor, take_slot);
      if (picked == nullptr) continue;
      if (seen <= kSlots) return picked;
      // An oversized group: any of its nodes, uniformly (see the essay). The table has not
      // changed, so the same cursor walks the same group.
      slot = RandomWord() % seen;
      seen = 0;
      table.Scan(cursor, take_slot);
      return picked;
    }
  }
  return table.Random();
}

}  // namespace redistp
