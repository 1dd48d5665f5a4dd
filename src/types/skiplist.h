// SkipList: the ordered half of a large sorted set — members ordered by (score, member bytes),
// with rank spans and backward links.
//
// Model. A probabilistic skiplist (level k+1 holds each level-k node with probability 1/4, at
// most 32 levels). Order is the sorted set's: ascending score, ties broken by comparing the
// member bytes as unsigned chars (memcmp, then the shorter first), so (score, member) pairs are
// unique and the order is total. Each forward link carries a span, the number of level-0 steps
// it jumps, so rank lookups and rank ranges cost O(log n); level 0 also links backward, so a
// reverse walk (ZREVRANGE) is as cheap as a forward one.
//
// Layout. One allocation per member: the ZNode header (score, backward link, one spare chain
// link for the member -> node hash table of ZSetIndex, length, height), then `height` levels of
// {forward, span}, then the member bytes. A node never moves or changes height: UpdateScore
// relinks the same node, so pointers to it (the hash table's) stay valid until it is deleted.
//
// Invariants: length_ counts the members; for every level i and node x, x.level[i].span is the
// number of level-0 steps from x to x.level[i].forward, and `length_ - rank(x)` when that link
// is null (rank(head) = 0); tail_ is the last node; height_ >= 1 covers every node's height.
//
// Scores are never NaN (the caller rejects them). Not thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>

namespace redistp {

struct ZNode {
  struct Level {
    ZNode* forward;
    size_t span;
  };

  double score;
  ZNode* backward;  // previous node at level 0; nullptr for the first
  ZNode* hnext;     // chain link of the member -> node hash table (ZSetIndex)
  uint32_t len;     // member bytes
  uint8_t height;   // levels in this node (1..32)

  Level* levels() { return reinterpret_cast<Level*>(this + 1); }
  const Level* levels() const { return reinterpret_cast<const Level*>(this + 1); }
  std::string_view member() const {
    return {reinterpret_cast<const char*>(levels() + height), len};
  }
  ZNode* next() const { return levels()[0].forward; }
  ZNode* prev() const { return backward; }
  // Bytes requested for this node's block.
  size_t AllocSize() const { return BlockBytes(height, len); }
  static size_t BlockBytes(size_t height, size_t len) {
    return sizeof(ZNode) + height * sizeof(Level) + len;
  }
};

// A score interval; an exclusive bound is "(x" in ZRANGEBYSCORE.
struct ScoreRange {
  double min;
  double max;
  bool min_exclusive = false;
  bool max_exclusive = false;

  bool AboveMin(double s) const { return min_exclusive ? s > min : s >= min; }
  bool BelowMax(double s) const { return max_exclusive ? s < max : s <= max; }
  bool Contains(double s) const { return AboveMin(s) && BelowMax(s); }
  // True when no score can be inside (min > max, or min == max with an open end).
  bool Empty() const { return min > max || (min == max && (min_exclusive || max_exclusive)); }
};

// One end of a lex interval: "-" (below everything), "+" (above everything), "[x" or "(x".
struct LexBound {
  enum Kind : uint8_t { kNegInf, kPosInf, kInclusive, kExclusive };
  Kind kind;
  std::string_view bytes;  // for kInclusive/kExclusive; the caller keeps the bytes alive
};
struct LexRange {
  LexBound min;
  LexBound max;

  bool AboveMin(std::string_view m) const;
  bool BelowMax(std::string_view m) const;
  bool Contains(std::string_view m) const { return AboveMin(m) && BelowMax(m); }
  // True when no member can be inside: min sorts after max ("-" before everything, "+" after),
  // or they are equal and either end is open ("-" and "+" count as open).
  bool Empty() const;
};

class SkipList {
 public:
  static constexpr int kMaxHeight = 32;

  SkipList();
  ~SkipList();
  SkipList(const SkipList&) = delete;
  SkipList& operator=(const SkipList&) = delete;

  size_t size() const { return length_; }
  ZNode* first() const { return head_->levels()[0].forward; }
  ZNode* last() const { return tail_; }
  // Bytes requested for every node block and the head (the allocator may round each up).
  size_t bytes() const { return bytes_; }

  // Adds a member that is not present (the caller checked) with a non-NaN score; returns its
  // new node.
  ZNode* Insert(double score, std::string_view member);
  // Removes and frees the node of (score, member); false if there is none.
  bool Delete(double score, std::string_view member);
  // Gives `node` (a member of this list) the score `score`. The node stays where it is when the
  // order still holds, otherwise it is unlinked and relinked at its new place; either way the
  // node pointer stays valid.
  void UpdateScore(ZNode* node, double score);

  // 1-based rank of (score, member) from the lowest, or 0 when absent.
  size_t Rank(double score, std::string_view member) const;
  // The node at 1-based `rank`, or nullptr when out of range.
  ZNode* ByRank(size_t rank) const;

  // The first / last node inside the range, or nullptr when none is.
  ZNode* FirstInRange(const ScoreRange& r) const;
  ZNode* LastInRange(const ScoreRange& r) const;
  ZNode* FirstInRange(const LexRange& r) const;
  ZNode* LastInRange(const LexRange& r) const;
  static bool InRange(const ZNode* n, const ScoreRange& r) {
    return AboveMin(n->score, r) && BelowMax(n->score, r);
  }
  static bool InRange(const ZNode* n, const LexRange& r) {
    return AboveMin(n->member(), r.min) && BelowMax(n->member(), r.max);
  }

  // Delete every node in the range (or with 1-based rank in [start, end]), calling
  // on_delete(node) just before each node is freed. Return how many were deleted.
  size_t DeleteRange(const ScoreRange& r, const std::function<void(ZNode*)>& on_delete);
  size_t DeleteRange(const LexRange& r, const std::function<void(ZNode*)>& on_delete);
  size_t DeleteRankRange(size_t start, size_t end, const std::function<void(ZNode*)>& on_delete);

  // Whether member bytes `m` are on the inside of a lex range's lower / upper end.
  static bool AboveMin(std::string_view m, const LexBound& b);
  static bool BelowMax(std::string_view m, const LexBound& b);

  // Ordering of a node against a (score, member) pair.
  static bool Less(const ZNode* n, double score, std::string_view member) {
    return n->score < score || (n->score == score && n->member() < member);
  }

 private:
  static bool AboveMin(double s, const ScoreRange& r) { return r.AboveMin(s); }
  static bool BelowMax(double s, const ScoreRange& r) { return r.BelowMax(s); }

  static int RandomHeight();
  ZNode* NewNode(int height, double score, std::string_view member);
  void FreeNode(ZNode* n);
  // Links `node` (unlinked, score and member set) at its place, keeping its height.
  void Link(ZNode* node);
  // Unlinks `node` given update[i], its predecessor on every level < height_.
  void Unlink(ZNode* node, ZNode** update);
  // Deletes nodes from update[0]'s successor on while keep_going(node); fills no more.
  template <typename Pred>
  size_t DeleteFrom(ZNode** update, Pred keep_going, const std::function<void(ZNode*)>& on_delete);

  ZNode* head_;
  ZNode* tail_ = nullptr;
  size_t length_ = 0;
  int height_ = 1;
  size_t bytes_ = 0;
};

}  // namespace redistp
