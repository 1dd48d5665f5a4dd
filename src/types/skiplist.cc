#include "types/skiplist.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "util/hash.h"

namespace redistp {

SkipList::SkipList() {
  head_ = NewNode(kMaxHeight, 0, {});
  for (int i = 0; i < kMaxHeight; ++i) head_->levels()[i] = {nullptr, 0};
}

SkipList::~SkipList() {
  for (ZNode* n = first(); n != nullptr;) {
    ZNode* next = n->next();
    FreeNode(n);
    n = next;
  }
  FreeNode(head_);
}

// Level k+1 with probability 1/4: two random bits per level, up to kMaxHeight.
int SkipList::RandomHeight() {
  uint64_t bits = RandomWord();
  int h = 1;
  while (h < kMaxHeight && (bits & 3) == 0) {
    ++h;
    bits >>= 2;
  }
  return h;
}

ZNode* SkipList::NewNode(int height, double score, std::string_view member) {
  size_t size = ZNode::BlockBytes(height, member.size());
  auto* n = static_cast<ZNode*>(::operator new(size));
  n->score = score;
  n->backward = nullptr;
  n->hnext = nullptr;
  n->len = static_cast<uint32_t>(member.size());
  n->height = static_cast<uint8_t>(height);
  if (!member.empty()) {
    std::memcpy(reinterpret_cast<char*>(n->levels() + height), member.data(), member.size());
  }
  bytes_ += size;
  return n;
}

void SkipList::FreeNode(ZNode* n) {
  size_t size = n->AllocSize();
  bytes_ -= size;
  ::operator delete(n, size);
}

// Finds, per level, the last node before (node->score, node->member()) and its rank, then
// splices the node in after those, adjusting spans.
void SkipList::Link(ZNode* node) {
  ZNode* update[kMaxHeight];
  size_t rank[kMaxHeight];
  std::string_view member = node->member();
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    rank[i] = i == height_ - 1 ? 0 : rank[i + 1];
    while (x->levels()[i].forward != nullptr && Less(x->levels()[i].forward, node->score, member)) {
      rank[i] += x->levels()[i].span;
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  int h = node->height;
  if (h > height_) {
    for (int i = height_; i < h; ++i) {
      rank[i] = 0;
      update[i] = head_;
      head_->levels()[i].span = length_;
    }
    height_ = h;
  }
  for (int i = 0; i < h; ++i) {
    ZNode::Level& prev = update[i]->levels()[i];
    node->levels()[i].forward = prev.forward;
    prev.forward = node;
    // rank[0] - rank[i] is how far update[i] is behind update[0], the node's level-0 predecessor.
    node->levels()[i].span = prev.span - (rank[0] - rank[i]);
    prev.span = rank[0] - rank[i] + 1;
  }
  for (int i = h; i < height_; ++i) ++update[i]->levels()[i].span;
  node->backward = update[0] == head_ ? nullptr : update[0];
  if (node->levels()[0].forward != nullptr) {
    node->levels()[0].forward->backward = node;
  } else {
    tail_ = node;
  }
  ++length_;
}

void SkipList::Unlink(ZNode* node, ZNode** update) {
  for (int i = 0; i < height_; ++i) {
    ZNode::Level& prev = update[i]->levels()[i];
    if (prev.forward == node) {
      prev.span += node->levels()[i].span - 1;
      prev.forward = node->levels()[i].forward;
    } else {
      --prev.span;
    }
  }
  if (node->levels()[0].forward != nullptr) {
    node->levels()[0].forward->backward = node->backward;
  } else {
    tail_ = node->backward;
  }
  while (height_ > 1 && head_->levels()[height_ - 1].forward == nullptr) --height_;
  --length_;
}

ZNode* SkipList::Insert(double score, std::string_view member) {
  ZNode* node = NewNode(RandomHeight(), score, member);
  Link(node);
  return node;
}

bool SkipList::Delete(double score, std::string_view member) {
  ZNode* update[kMaxHeight];
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && Less(x->levels()[i].forward, score, member)) {
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  x = x->levels()[0].forward;
  if (x == nullptr || x->score != score || x->member() != member) return false;
  Unlink(x, update);
  FreeNode(x);
  return true;
}

void SkipList::UpdateScore(ZNode* node, double score) {
  std::string_view member = node->member();
  ZNode* prev = node->backward;
  ZNode* next = node->next();
  bool after_prev = prev == nullptr || Less(prev, score, member);
  bool before_next = next == nullptr || !Less(next, score, member);
  if (after_prev && before_next) {
    node->score = score;  // (score, member) pairs are unique, so next != (score, member)
    return;
  }
  ZNode* update[kMaxHeight];
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && Less(x->levels()[i].forward, node->score, member)) {
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  Unlink(node, update);
  node->score = score;
  Link(node);
}

size_t SkipList::Rank(double score, std::string_view member) const {
  size_t rank = 0;
  const ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    // Advance while the next node is <= (score, member).
    while (x->levels()[i].forward != nullptr) {
      const ZNode* f = x->levels()[i].forward;
      bool le = Less(f, score, member) || (f->score == score && f->member() == member);
      if (!le) break;
      rank += x->levels()[i].span;
      x = f;
    }
    if (x != head_ && x->score == score && x->member() == member) return rank;
  }
  return 0;
}

ZNode* SkipList::ByRank(size_t rank) const {
  if (rank == 0 || rank > length_) return nullptr;
  size_t traversed = 0;
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && traversed + x->levels()[i].span <= rank) {
      traversed += x->levels()[i].span;
      x = x->levels()[i].forward;
    }
    if (traversed == rank) return x;
  }
  return nullptr;
}

bool SkipList::AboveMin(std::string_view m, const LexBound& b) {
  switch (b.kind) {
    case LexBound::kNegInf:
      return true;
    case LexBound::kPosInf:
      return false;
    case LexBound::kInclusive:
      return m >= b.bytes;
    case LexBound::kExclusive:
      return m > b.bytes;
  }
  return false;
}

bool SkipList::BelowMax(std::string_view m, const LexBound& b) {
  switch (b.kind) {
    case LexBound::kNegInf:
      return false;
    case LexBound::kPosInf:
      return true;
    case LexBound::kInclusive:
      return m <= b.bytes;
    case LexBound::kExclusive:
      return m < b.bytes;
  }
  return false;
}

bool LexRange::AboveMin(std::string_view m) const { return SkipList::AboveMin(m, min); }
bool LexRange::BelowMax(std::string_view m) const { return SkipList::BelowMax(m, max); }

bool LexRange::Empty() const {
  // Rank each bound: -inf < any bytes < +inf; equal ranks compare the bytes.
  auto rank = [](const LexBound& b) {
    return b.kind == LexBound::kNegInf ? 0 : b.kind == LexBound::kPosInf ? 2 : 1;
  };
  int a = rank(min), b = rank(max);
  int cmp = a != b ? (a < b ? -1 : 1) : a != 1 ? 0 : min.bytes.compare(max.bytes);
  bool open = min.kind != LexBound::kInclusive || max.kind != LexBound::kInclusive;
  return cmp > 0 || (cmp == 0 && open);
}

ZNode* SkipList::FirstInRange(const ScoreRange& r) const {
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && !AboveMin(x->levels()[i].forward->score, r)) {
      x = x->levels()[i].forward;
    }
  }
  x = x->levels()[0].forward;
  return x != nullptr && BelowMax(x->score, r) ? x : nullptr;
}

ZNode* SkipList::LastInRange(const ScoreRange& r) const {
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && BelowMax(x->levels()[i].forward->score, r)) {
      x = x->levels()[i].forward;
    }
  }
  return x != head_ && AboveMin(x->score, r) ? x : nullptr;
}

ZNode* SkipList::FirstInRange(const LexRange& r) const {
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr &&
           !AboveMin(x->levels()[i].forward->member(), r.min)) {
      x = x->levels()[i].forward;
    }
  }
  x = x->levels()[0].forward;
  return x != nullptr && BelowMax(x->member(), r.max) ? x : nullptr;
}

ZNode* SkipList::LastInRange(const LexRange& r) const {
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && BelowMax(x->levels()[i].forward->member(), r.max)) {
      x = x->levels()[i].forward;
    }
  }
  return x != head_ && AboveMin(x->member(), r.min) ? x : nullptr;
}

template <typename Pred>
size_t SkipList::DeleteFrom(ZNode** update, Pred keep_going,
                            const std::function<void(ZNode*)>& on_delete) {
  size_t deleted = 0;
  ZNode* x = update[0]->levels()[0].forward;
  while (x != nullptr && keep_going(x)) {
    ZNode* next = x->next();
    Unlink(x, update);
    if (on_delete) on_delete(x);
    FreeNode(x);
    ++deleted;
    x = next;
  }
  return deleted;
}

size_t SkipList::DeleteRange(const ScoreRange& r, const std::function<void(ZNode*)>& on_delete) {
  ZNode* update[kMaxHeight];
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && !AboveMin(x->levels()[i].forward->score, r)) {
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  return DeleteFrom(
      update, [&](const ZNode* n) { return BelowMax(n->score, r); }, on_delete);
}

size_t SkipList::DeleteRange(const LexRange& r, const std::function<void(ZNode*)>& on_delete) {
  ZNode* update[kMaxHeight];
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr &&
           !AboveMin(x->levels()[i].forward->member(), r.min)) {
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  return DeleteFrom(
      update, [&](const ZNode* n) { return BelowMax(n->member(), r.max); }, on_delete);
}

size_t SkipList::DeleteRankRange(size_t start, size_t end,
                                 const std::function<void(ZNode*)>& on_delete) {
  if (start == 0 || start > end || start > length_) return 0;
  ZNode* update[kMaxHeight];
  size_t traversed = 0;
  ZNode* x = head_;
  for (int i = height_ - 1; i >= 0; --i) {
    while (x->levels()[i].forward != nullptr && traversed + x->levels()[i].span < start) {
      traversed += x->levels()[i].span;
      x = x->levels()[i].forward;
    }
    update[i] = x;
  }
  size_t rank = traversed;  // rank of update[0]; the first deleted node has rank + 1
  return DeleteFrom(
      update, [&](const ZNode*) { return ++rank <= end; }, on_delete);
}

}  // namespace redistp
