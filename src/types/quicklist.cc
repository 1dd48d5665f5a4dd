// Quicklist operations; the model, the fill rules and the merge policy are in quicklist.h.
#include "types/quicklist.h"

#include <algorithm>
#include <utility>

#include "util/memory.h"

namespace redistp {
namespace {

// Node blob limits for fill -1 .. -5.
constexpr size_t kSizeLimits[] = {4096, 8192, 16384, 32768, 65536};
// Redis's estimate of the bytes one element adds beyond its length (encoding and backlen).
constexpr size_t kElementOverhead = 8;
// What Redis 7.0 subtracts from two nodes' sizes to estimate their merged size: 11, the header
// and end of the ziplist it used before listpacks (a listpack's are 7). Kept so that nodes merge
// exactly where Redis's do (QuicklistTest.NodeCountsMatchRedis checks it).
constexpr size_t kMergeOverheadEstimate = 11;

// Index of the entry at pos within its listpack (walks from the front: nodes are small).
size_t IndexInNode(const Listpack& lp, Listpack::Pos pos) {
  size_t i = 0;
  for (Listpack::Pos p = lp.First(); p != pos; p = lp.Next(p)) i++;
  return i;
}

}  // namespace

Quicklist::Quicklist(int fill) { SetFill(fill); }
Quicklist::~Quicklist() { Clear(); }

Quicklist::Quicklist(Quicklist&& o) noexcept
    : head_(o.head_), tail_(o.tail_), count_(o.count_), nodes_(o.nodes_), fill_(o.fill_) {
  o.head_ = o.tail_ = nullptr;
  o.count_ = o.nodes_ = 0;
}

Quicklist& Quicklist::operator=(Quicklist&& o) noexcept {
  if (this != &o) {
    Clear();
    head_ = o.head_;
    tail_ = o.tail_;
    count_ = o.count_;
    nodes_ = o.nodes_;
    fill_ = o.fill_;
    o.head_ = o.tail_ = nullptr;
    o.count_ = o.nodes_ = 0;
  }
  return *this;
}

Quicklist Quicklist::Clone() const {
  Quicklist copy(fill_);
  for (const Node* n = head_; n != nullptr; n = n->next) copy.AppendNode(n->lp.Clone());
  return copy;
}

void Quicklist::Clear() {
  for (Node* n = head_; n != nullptr;) {
    Node* next = n->next;
    delete n;
    n = next;
  }
  head_ = tail_ = nullptr;
  count_ = nodes_ = 0;
}

void Quicklist::SetFill(int fill) {
  if (fill > kMaxFill) fill = kMaxFill;
  if (fill < -5) fill = -5;
  fill_ = fill;
}

size_t Quicklist::AllocatedBytes() const {
  size_t total = 0;
  for (const Node* n = head_; n != nullptr; n = n->next) {
    total += AllocationSize(n) + n->lp.AllocatedBytes();
  }
  return total;
}

bool Quicklist::SizeMeetsOptimization(size_t bytes) const {
  return fill_ < 0 && bytes <= kSizeLimits[-fill_ - 1];
}

// May an element of element_len bytes go into n? Size limit for negative fill; entry count
// (with the 8 KB safety limit) for positive fill.
bool Quicklist::AllowInsert(const Node* n, size_t element_len) const {
  if (n == nullptr) return false;
  size_t new_bytes = n->lp.Bytes() + element_len + kElementOverhead;
  if (SizeMeetsOptimization(new_bytes)) return true;
  if (new_bytes > kSafetyLimit) return false;
  return fill_ >= 0 && n->lp.Size() < static_cast<size_t>(fill_);
}

bool Quicklist::AllowMerge(const Node* a, const Node* b) const {
  if (a == nullptr || b == nullptr) return false;
  size_t merged = a->lp.Bytes() + b->lp.Bytes() - kMergeOverheadEstimate;
  if (SizeMeetsOptimization(merged)) return true;
  if (merged > kSafetyLimit) return false;
  return fill_ >= 0 && a->lp.Size() + b->lp.Size() <= static_cast<size_t>(fill_);
}

Quicklist::Node* Quicklist::NewNodeAfter(Node* at) {
  Node* n = new Node();
  n->prev = at;
  n->next = at == nullptr ? head_ : at->next;
  if (n->next != nullptr)
    n->next->prev = n;
  else
    tail_ = n;
  if (at != nullptr)
    at->next = n;
  else
    head_ = n;
  nodes_++;
  return n;
}

void Quicklist::Unlink(Node* n) {
  if (n->prev != nullptr)
    n->prev->next = n->next;
  else
    head_ = n->next;
  if (n->next != nullptr)
    n->next->prev = n->prev;
  else
    tail_ = n->prev;
  nodes_--;
  delete n;
}

void Quicklist::MergeInto(Node* a, Node* b) {
  a->lp.Merge(b->lp);
  Unlink(b);
}

// Redis's order: the pair before center, the pair after it, then center with each neighbour.
void Quicklist::MergeAround(Node* center) {
  if (center->prev != nullptr && AllowMerge(center->prev->prev, center->prev)) {
    MergeInto(center->prev->prev, center->prev);
  }
  if (center->next != nullptr && AllowMerge(center->next, center->next->next)) {
    MergeInto(center->next, center->next->next);
  }
  if (AllowMerge(center->prev, center)) {
    Node* prev = center->prev;
    MergeInto(prev, center);
    center = prev;
  }
  if (AllowMerge(center, center->next)) MergeInto(center, center->next);
}

void Quicklist::PushFront(std::string_view s) {
  Node* n = AllowInsert(head_, s.size()) ? head_ : NewNodeAfter(nullptr);
  n->lp.Prepend(s);
  count_++;
}

void Quicklist::PushBack(std::string_view s) {
  Node* n = AllowInsert(tail_, s.size()) ? tail_ : NewNodeAfter(tail_);
  n->lp.Append(s);
  count_++;
}

std::optional<std::string> Quicklist::PopFront() {
  if (count_ == 0) return std::nullopt;
  Cursor c = First();
  std::string out = Get(c).ToString();
  Delete(c);
  return out;
}

std::optional<std::string> Quicklist::PopBack() {
  if (count_ == 0) return std::nullopt;
  Cursor c = Last();
  std::string out = Get(c).ToString();
  Delete(c);
  return out;
}

Quicklist::Cursor Quicklist::First() const {
  if (head_ == nullptr) return {};
  return {head_, head_->lp.First()};
}

Quicklist::Cursor Quicklist::Last() const {
  if (tail_ == nullptr) return {};
  return {tail_, tail_->lp.Last()};
}

Quicklist::Cursor Quicklist::Next(Cursor c) const {
  Listpack::Pos p = c.node->lp.Next(c.pos);
  if (p != Listpack::kNone) return {c.node, p};
  Node* n = c.node->next;
  if (n == nullptr) return {};
  return {n, n->lp.First()};
}

Quicklist::Cursor Quicklist::Prev(Cursor c) const {
  Listpack::Pos p = c.node->lp.Prev(c.pos);
  if (p != Listpack::kNone) return {c.node, p};
  Node* n = c.node->prev;
  if (n == nullptr) return {};
  return {n, n->lp.Last()};
}

Quicklist::Cursor Quicklist::Seek(int64_t index) const {
  if (index < 0) index += static_cast<int64_t>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_) return {};
  size_t i = static_cast<size_t>(index);
  if (i < count_ / 2) {
    for (Node* n = head_; n != nullptr; n = n->next) {
      size_t size = n->lp.Size();
      if (i < size) return {n, n->lp.Seek(static_cast<int64_t>(i))};
      i -= size;
    }
  } else {
    size_t back = count_ - 1 - i;  // distance from the last element
    for (Node* n = tail_; n != nullptr; n = n->prev) {
      size_t size = n->lp.Size();
      if (back < size) return {n, n->lp.Seek(-1 - static_cast<int64_t>(back))};
      back -= size;
    }
  }
  return {};
}

// Redis's placement rules (see the header): into the node if it has room; at a node's edge into
// the neighbour with room, else a new node; in the middle of a full node, split and merge.
void Quicklist::Insert(Cursor c, std::string_view s, bool after) {
  Node* node = c.node;
  Listpack& lp = node->lp;
  bool at_tail = lp.Next(c.pos) == Listpack::kNone;
  bool at_head = c.pos == lp.First();
  count_++;
  if (AllowInsert(node, s.size())) {
    lp.Insert(after ? lp.Next(c.pos) : c.pos, s);
    return;
  }
  if (after && at_tail) {
    Node* n = AllowInsert(node->next, s.size()) ? node->next : NewNodeAfter(node);
    n->lp.Prepend(s);
    return;
  }
  if (!after && at_head) {
    Node* n = AllowInsert(node->prev, s.size()) ? node->prev : NewNodeAfter(node->prev);
    n->lp.Append(s);
    return;
  }
  size_t idx = IndexInNode(lp, c.pos);
  Node* rest = NewNodeAfter(node);
  rest->lp = lp.SplitAt(after ? idx + 1 : idx);
  if (after)
    rest->lp.Prepend(s);
  else
    lp.Append(s);
  MergeAround(node);
}

void Quicklist::Replace(Cursor c, std::string_view s) {
  Node* node = c.node;
  size_t old_size = node->lp.EntrySize(c.pos);
  bool fits = s.size() + kElementOverhead <= old_size ||
              AllowInsert(node, s.size() > old_size ? s.size() - old_size : 0);
  if (fits) {
    node->lp.Replace(c.pos, s);
    return;
  }
  // Too big for this node: the new element goes after the old one (possibly into a new node,
  // which may split and merge nodes and so move the old one), then the old one, found again by
  // its index, is deleted.
  size_t idx = IndexInNode(node->lp, c.pos);
  int64_t global = 0;
  for (Node* n = head_; n != node; n = n->next) global += static_cast<int64_t>(n->lp.Size());
  global += static_cast<int64_t>(idx);
  InsertAfter(c, s);
  Delete(Seek(global));
}

bool Quicklist::ReplaceAt(int64_t index, std::string_view s) {
  Cursor c = Seek(index);
  if (!c.Valid()) return false;
  Replace(c, s);
  return true;
}

Quicklist::Cursor Quicklist::Delete(Cursor c) {
  Node* node = c.node;
  Listpack::Pos next = node->lp.Delete(c.pos);
  count_--;
  if (next != Listpack::kNone) return {node, next};
  Node* following = node->next;
  if (node->lp.Empty()) Unlink(node);
  if (following == nullptr) return {};
  return {following, following->lp.First()};
}

size_t Quicklist::DeleteRange(int64_t index, size_t count) {
  if (index < 0) index += static_cast<int64_t>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_ || count == 0) return 0;
  size_t local = static_cast<size_t>(index);
  Node* n = head_;
  while (local >= n->lp.Size()) {
    local -= n->lp.Size();
    n = n->next;
  }
  size_t deleted = 0;
  while (n != nullptr && deleted < count) {
    Node* next = n->next;
    size_t size = n->lp.Size();
    size_t take = std::min(count - deleted, size - local);
    if (local == 0 && take == size) {
      Unlink(n);
    } else {
      n->lp.DeleteRange(static_cast<int64_t>(local), take);
    }
    deleted += take;
    local = 0;
    n = next;
  }
  count_ -= deleted;
  return deleted;
}

void Quicklist::AppendNode(Listpack lp) {
  if (lp.Empty()) return;
  count_ += lp.Size();
  Node* n = NewNodeAfter(tail_);
  n->lp = std::move(lp);
}

}  // namespace redistp
