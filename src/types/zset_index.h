// ZSetIndex: the encoding of a large sorted set — a SkipList for order and ranks, paired with
// a HashTable from member bytes to the member's skiplist node for O(1) ZSCORE and membership.
//
// Model. Each member is one ZNode block owned by the skiplist; the hash table is intrusive on
// the node's spare `hnext` link, so the pairing costs no allocation and no pointer beyond the
// bucket array (about 8 bytes per member at load 1). Invariant: a member is in the skiplist if
// and only if its node is in the table, and its node's score is its score. Every mutation goes
// through this class, which keeps both sides in step; the skiplist is exposed read-only for
// range walks (first/last/next/prev, *InRange, ByRank).
//
// Scores are never NaN (the caller rejects them, as ZADD does).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string_view>

#include "types/skiplist.h"
#include "util/hash.h"
#include "util/hash_table.h"

namespace redistp {

class ZSetIndex {
 public:
  enum class AddResult { kAdded, kUpdated, kUnchanged };

  ZSetIndex() = default;
  ZSetIndex(const ZSetIndex&) = delete;
  ZSetIndex& operator=(const ZSetIndex&) = delete;

  size_t size() const { return list_.size(); }
  const SkipList& list() const { return list_; }

  // The node of `member`, or nullptr.
  ZNode* Find(std::string_view member) { return table_.Find(member); }
  std::optional<double> Score(std::string_view member) {
    ZNode* n = Find(member);
    return n != nullptr ? std::optional<double>(n->score) : std::nullopt;
  }
  // Adds `member` with `score`, or gives an existing member the new score.
  AddResult Add(std::string_view member, double score);
  // Removes `member`; false if it was not there.
  bool Remove(std::string_view member);
  // 0-based rank of `member` counted from the lowest (or from the highest when `reverse`).
  std::optional<size_t> Rank(std::string_view member, bool reverse = false);

  // Remove a range (1-based inclusive ranks for RemoveRankRange) from both sides; return how
  // many members went.
  size_t RemoveRange(const ScoreRange& r);
  size_t RemoveRange(const LexRange& r);
  size_t RemoveRankRange(size_t start, size_t end);

  // A random member's node (SRANDMEMBER-style sampling), or nullptr when empty.
  ZNode* Random() { return table_.Random(); }
  // One ZSCAN step over the hash side (the reverse-binary cursor guarantee of HashTable).
  template <typename Fn>
  uint64_t Scan(uint64_t cursor, Fn&& fn) {
    return table_.Scan(cursor, fn);
  }
  // The member table, for DEBUG HTSTATS-KEY (read only).
  const auto& table() const { return table_; }
  // Bytes requested for the nodes and the bucket array (the allocator rounds each node up).
  size_t bytes() const { return list_.bytes() + table_.BucketBytes() + sizeof(*this); }

 private:
  struct NodeTraits {
    using Node = ZNode;
    using Key = std::string_view;
    static ZNode*& Next(ZNode* n) { return n->hnext; }
    static std::string_view KeyOf(const ZNode* n) { return n->member(); }
    static uint64_t Hash(std::string_view k) { return HashBytes(k); }
    static bool Equal(const ZNode* n, std::string_view k) { return n->member() == k; }
    static void Destroy(ZNode*) {}  // the skiplist owns the nodes
  };

  // Declared first so it is destroyed last: the table's teardown still walks node links.
  SkipList list_;
  HashTable<NodeTraits> table_;
};

}  // namespace redistp
