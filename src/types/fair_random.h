// FairRandomNode: a uniformly random element of a chained HashTable (util/hash_table.h).
//
// HashTable::Random picks a random non-empty bucket and then a node of its chain, so a node
// sharing its bucket with two others comes up a third as often as a node alone in its bucket.
// That is fine for eviction sampling but not for commands whose users count on a fair draw
// (HRANDFIELD; Redis's tests check the histogram of its picks).
//
// Model. The table's buckets, those of both arrays while it rehashes, are cut into blocks of
// `width` neighbouring buckets (HashTable::RandomBlockWidth, BlockCount): every node lies in
// exactly one block. A round draws a block, every block equally likely, and a slot in
// [0, kSlots): the block's slot-th node (bucket by bucket, along each chain) is the pick if the
// block has that many nodes, otherwise the round is repeated. Each node is thus taken with the
// same chance per round, 1 / (blocks * kSlots): rejection sampling, exact as long as no block
// holds more than kSlots nodes. The width is chosen so that a block holds at most one node on
// average (a table at its full load of 1 has blocks of one bucket; a table drained to a load of
// 0.1 has blocks of 8), and then a block of 9 has odds of about one in a million. A node in a
// larger block is still returned, with a proportionally smaller chance. The block is drawn by
// multiplying 61 random bits by the block count (a bias while the count is not a
// power of two, which is only while the table rehashes: at most blocks / 2^61).
//
// Cost: kSlots / (width * load) rounds on average, 8 to 16 whatever the load, where blocks of
// one bucket took 8 / load: a set drained by SPOP from a load of 0.8 to 0.1 (where Redis's rule
// shrinks it) needed about 24 rounds per pick, and needs about 12. A round reads one cache line
// of bucket pointers and the first node of each chain in it.
//
// Speed. In a big table every round is a cache miss or two (the block, then its chains), and
// they would come one after the other. Rounds are drawn kBatch at a time: the blocks of all of
// them are prefetched, then their first nodes, and only then are they tried in the order drawn,
// the first accepted one winning. That is the same sequence of independent rounds, so the pick
// is exactly as uniform, but the misses of a batch overlap. One random word makes a round: the
// block from its low 61 bits, the slot from its top three.
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
  constexpr uint64_t kBlockBits = (uint64_t{1} << kSlotShift) - 1;
  constexpr int kBatch = 8;
  constexpr int kMaxRounds = 1000;
  static_assert(kSlots == uint64_t{1} << (64 - kSlotShift));
  if (table.empty()) return nullptr;
  // A random pick moves a rehash under way 16 buckets on, where a lookup moves it one, so a
  // table that only random picks visit still finishes its resize, and soon: a set drained by
  // SPOP used to spend about half of its pops split across two arrays, where blocks are
  // narrower (the smaller array is the fuller one). The total work of moving the nodes is the
  // same. Never while resizing is paused for a forked child.
  if (table.rehashing() && HashTableResizeAllowed()) table.Rehash(16);
  const size_t width = table.RandomBlockWidth();
  const uint64_t blocks = table.BlockCount(width);
  auto block_of = [&](uint64_t word) {
    return static_cast<size_t>((static_cast<unsigned __int128>(word & kBlockBits) * blocks) >>
                               kSlotShift);
  };
  for (int round = 0; round < kMaxRounds; round += kBatch) {
    uint64_t words[kBatch];
    size_t blocks_drawn[kBatch];
    for (int i = 0; i < kBatch; ++i) {
      words[i] = RandomWord();
      blocks_drawn[i] = block_of(words[i]);
      table.PrefetchBlock(blocks_drawn[i], width, 0);
    }
    for (size_t block : blocks_drawn) table.PrefetchBlock(block, width, 1);
    for (int i = 0; i < kBatch; ++i) {
      uint64_t slot = words[i] >> kSlotShift;
      uint64_t seen = 0;
      Node* picked = nullptr;
      auto take_slot = [&](Node* n) {
        if (seen++ == slot) picked = n;
        return true;
      };
      table.WalkBlock(blocks_drawn[i], width, take_slot);
      if (picked == nullptr) continue;
      if (seen <= kSlots) return picked;
      // An oversized block: any of its nodes, uniformly (see the essay). The table has not
      // changed, so a second walk sees the same nodes in the same order.
      slot = RandomWord() % seen;
      seen = 0;
      table.WalkBlock(blocks_drawn[i], width, take_slot);
      return picked;
    }
  }
  return table.Random();
}

}  // namespace redistp
