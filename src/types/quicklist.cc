// Quicklist operations; the model, the fill rules, the merge policy and the compression rules
// are in quicklist.h. Every access to a node's entries goes through Use(), which decompresses
// a compressed node; sizes and counts of a compressed node come from its LZF header.
#include "types/quicklist.h"

#include <liblzf/lzf.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
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
// LZF block header: raw bytes, compressed bytes, entry count (u32 each, native order: it never
// leaves the process).
constexpr size_t kLzfHeader = 12;

uint32_t LzfField(const uint8_t* lzf, int i) {
  uint32_t v;
  std::memcpy(&v, lzf + 4 * i, 4);
  return v;
}

// Index of the entry at pos within its listpack (walks from the front: nodes are small).
size_t IndexInNode(const Listpack& lp, Listpack::Pos pos) {
  size_t i = 0;
  for (Listpack::Pos p = lp.First(); p != pos; p = lp.Next(p)) i++;
  return i;
}

}  // namespace

Quicklist::Node::~Node() { std::free(lzf()); }

Quicklist::Quicklist(int fill, int compress_depth) : depth_(std::max(compress_depth, 0)) {
  SetFill(fill);
}
Quicklist::~Quicklist() { Clear(); }

// Two node pointers, two counts, fill and depth, the lazily made in-use list: 48 bytes.
static_assert(sizeof(Quicklist) == 48);

Quicklist::Quicklist(Quicklist&& o) noexcept
    : head_(o.head_),
      tail_(o.tail_),
      count_(o.count_),
      nodes_(o.nodes_),
      fill_(o.fill_),
      depth_(o.depth_),
      in_use_(std::move(o.in_use_)) {
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
    depth_ = o.depth_;
    in_use_ = std::move(o.in_use_);
    o.head_ = o.tail_ = nullptr;
    o.count_ = o.nodes_ = 0;
  }
  return *this;
}

Quicklist Quicklist::Clone() const {
  Quicklist copy(fill_, depth_);
  for (Node* n = head_; n != nullptr; n = n->next) {
    copy.AppendNode(Use(n).Clone());
    if (n->plain()) copy.tail_->set_plain();
  }
  Settle();
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
  in_use_.reset();
}

void Quicklist::SetFill(int fill) {
  if (fill > kMaxFill) fill = kMaxFill;
  if (fill < -5) fill = -5;
  fill_ = fill;
}

size_t Quicklist::AllocatedBytes() const {
  size_t total = 0;
  for (const Node* n = head_; n != nullptr; n = n->next) total += NodeAllocatedBytes(n);
  return total;
}

size_t Quicklist::NodeAllocatedBytes(const Node* n) {
  return AllocationSize(n) +
         (n->lzf() != nullptr ? AllocationSize(n->lzf()) : n->lp.AllocatedBytes());
}

size_t Quicklist::CompressedNodeCount() const {
  size_t c = 0;
  for (const Node* n = head_; n != nullptr; n = n->next) c += n->lzf() != nullptr;
  return c;
}

// ---- compression ----

size_t Quicklist::RawBytes(const Node* n) {
  return n->lzf() != nullptr ? LzfField(n->lzf(), 0) : n->lp.Bytes();
}

size_t Quicklist::Count(const Node* n) {
  return n->lzf() != nullptr ? LzfField(n->lzf(), 2) : n->lp.Size();
}

Listpack& Quicklist::Use(Node* n) const {
  if (uint8_t* lzf = n->lzf(); lzf != nullptr) {
    uint32_t raw = LzfField(lzf, 0);
    uint32_t len = LzfField(lzf, 1);
    auto* buf = static_cast<uint8_t*>(std::malloc(raw));
    if (buf == nullptr) throw std::bad_alloc();
    // Our own block: it decompresses to exactly `raw` bytes.
    lzf_decompress(lzf + kLzfHeader, len, buf, raw);
    n->lp = Listpack::AdoptTrusted(buf);
    std::free(lzf);
    n->set_lzf(nullptr);
    InUse().push_back(n);
  }
  return n->lp;
}

bool Quicklist::IsInterior(const Node* n) const {
  if (depth_ == 0) return false;
  const Node* h = head_;
  const Node* t = tail_;
  for (int i = 0; i < depth_ && h != nullptr; i++, h = h->next, t = t->prev) {
    if (h == n || t == n) return false;
  }
  return true;
}

void Quicklist::Compress(Node* n) const {
  if (n->lzf() != nullptr || !IsInterior(n)) return;
  size_t raw = n->lp.Bytes();
  if (raw < kMinCompressBytes) return;
  size_t room = raw - kMinCompressGain;  // compress only if it saves this much
  auto* block = static_cast<uint8_t*>(std::malloc(kLzfHeader + room));
  if (block == nullptr) throw std::bad_alloc();
  unsigned len = lzf_compress(n->lp.Blob().data(), static_cast<unsigned>(raw), block + kLzfHeader,
                              static_cast<unsigned>(room));
  if (len == 0) {  // incompressible: stays raw
    std::free(block);
    return;
  }
  uint32_t header[3] = {static_cast<uint32_t>(raw), len, static_cast<uint32_t>(n->lp.Size())};
  std::memcpy(block, header, kLzfHeader);
  auto* fitted = static_cast<uint8_t*>(std::realloc(block, kLzfHeader + len));
  n->set_lzf(fitted != nullptr ? fitted : block);
  Listpack released = std::move(n->lp);  // frees the raw blob
  if (in_use_ != nullptr && !in_use_->empty() && in_use_->back() == n) {
    in_use_->pop_back();  // a walk's last node
  }
}

void Quicklist::Settle(const Node* keep) const {
  if (depth_ == 0) return;
  // The ends raw (a pop or delete may have brought a compressed node there).
  Node* h = head_;
  Node* t = tail_;
  for (int i = 0; i < depth_ && h != nullptr; i++, h = h->next, t = t->prev) {
    Use(h);
    Use(t);
  }
  // h and t are now the first interior nodes from each end (a push may just have moved them
  // inward); nodes used since the last Settle go back to compressed.
  if (h != nullptr && h != keep) Compress(h);
  if (t != nullptr && t != keep) Compress(t);
  std::vector<Node*> used;
  if (in_use_ != nullptr) used.swap(*in_use_);
  for (Node* n : used) {
    if (n == keep)
      InUse().push_back(n);
    else
      Compress(n);
  }
}

// ---- fill rules ----

bool Quicklist::SizeMeetsOptimization(size_t bytes) const {
  return fill_ < 0 && bytes <= kSizeLimits[-fill_ - 1];
}

// May an element of element_len bytes go into n? Size limit for negative fill; entry count
// (with the 8 KB safety limit) for positive fill.
bool Quicklist::AllowInsert(const Node* n, size_t element_len) const {
  if (n == nullptr || n->plain()) return false;  // a plain node holds one element only
  size_t new_bytes = RawBytes(n) + element_len + kElementOverhead;
  if (SizeMeetsOptimization(new_bytes)) return true;
  if (new_bytes > kSafetyLimit) return false;
  return fill_ >= 0 && Count(n) < static_cast<size_t>(fill_);
}

bool Quicklist::AllowMerge(const Node* a, const Node* b) const {
  if (a == nullptr || b == nullptr || a->plain() || b->plain()) return false;
  size_t merged = RawBytes(a) + RawBytes(b) - kMergeOverheadEstimate;
  if (SizeMeetsOptimization(merged)) return true;
  if (merged > kSafetyLimit) return false;
  return fill_ >= 0 && Count(a) + Count(b) <= static_cast<size_t>(fill_);
}

// ---- node links ----

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
  if (depth_ > 0) InUse().push_back(n);  // compressed by the next Settle if interior
  return n;
}

Quicklist::Node* Quicklist::NewPlainNodeAfter(Node* at, std::string_view s) {
  Node* n = NewNodeAfter(at);
  n->lp.Append(s);
  n->set_plain();
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
  if (in_use_ != nullptr) {
    in_use_->erase(std::remove(in_use_->begin(), in_use_->end(), n), in_use_->end());
  }
  delete n;
}

void Quicklist::MergeInto(Node* a, Node* b) {
  Use(a).Merge(Use(b));
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

// ---- ends ----

void Quicklist::PushFront(std::string_view s, size_t threshold) {
  if (s.size() >= threshold) {
    NewPlainNodeAfter(nullptr, s);
  } else {
    Node* n = AllowInsert(head_, s.size()) ? head_ : NewNodeAfter(nullptr);
    Use(n).Prepend(s);
  }
  count_++;
  Settle();
}

void Quicklist::PushBack(std::string_view s, size_t threshold) {
  if (s.size() >= threshold) {
    NewPlainNodeAfter(tail_, s);
  } else {
    Node* n = AllowInsert(tail_, s.size()) ? tail_ : NewNodeAfter(tail_);
    Use(n).Append(s);
  }
  count_++;
  Settle();
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

// ---- positions ----

Quicklist::Cursor Quicklist::First() const {
  if (head_ == nullptr) return {};
  return {head_, Use(head_).First()};
}

Quicklist::Cursor Quicklist::Last() const {
  if (tail_ == nullptr) return {};
  return {tail_, Use(tail_).Last()};
}

Quicklist::Cursor Quicklist::Next(Cursor c) const {
  Listpack::Pos p = Use(c.node).Next(c.pos);
  if (p != Listpack::kNone) return {c.node, p};
  Node* n = c.node->next;
  Compress(c.node);  // the walk leaves it (no-op unless interior)
  if (n == nullptr) return {};
  return {n, Use(n).First()};
}

Quicklist::Cursor Quicklist::Prev(Cursor c) const {
  Listpack::Pos p = Use(c.node).Prev(c.pos);
  if (p != Listpack::kNone) return {c.node, p};
  Node* n = c.node->prev;
  Compress(c.node);
  if (n == nullptr) return {};
  return {n, Use(n).Last()};
}

Quicklist::Cursor Quicklist::Seek(int64_t index) const {
  Settle();
  if (index < 0) index += static_cast<int64_t>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_) return {};
  size_t i = static_cast<size_t>(index);
  if (i < count_ / 2) {
    for (Node* n = head_; n != nullptr; n = n->next) {
      size_t size = Count(n);
      if (i < size) return {n, Use(n).Seek(static_cast<int64_t>(i))};
      i -= size;
    }
  } else {
    size_t back = count_ - 1 - i;  // distance from the last element
    for (Node* n = tail_; n != nullptr; n = n->prev) {
      size_t size = Count(n);
      if (back < size) return {n, Use(n).Seek(-1 - static_cast<int64_t>(back))};
      back -= size;
    }
  }
  return {};
}

// ---- edits ----

// Redis's placement rules (see the header): into the node if it has room; at a node's edge into
// the neighbour with room, else a new node; in the middle of a full node, split and merge. A
// large element gets a plain node: beside c's node when c is at its edge on the inserting side
// (a plain node's one element is at both edges), else between the halves of c's node, split at
// c and not merged back (Redis does not merge there either).
void Quicklist::Insert(Cursor c, std::string_view s, bool after, size_t threshold) {
  Node* node = c.node;
  Listpack& lp = Use(node);
  bool at_tail = lp.Next(c.pos) == Listpack::kNone;
  bool at_head = c.pos == lp.First();
  count_++;
  if (s.size() >= threshold) {
    if ((after && at_tail) || (!after && at_head)) {
      NewPlainNodeAfter(after ? node : node->prev, s);
    } else {
      size_t idx = IndexInNode(lp, c.pos);
      Node* rest = NewNodeAfter(node);
      rest->lp = lp.SplitAt(after ? idx + 1 : idx);
      NewPlainNodeAfter(node, s);
    }
    Settle();
    return;
  }
  if (AllowInsert(node, s.size())) {
    lp.Insert(after ? lp.Next(c.pos) : c.pos, s);
  } else if (after && at_tail) {
    Node* n = AllowInsert(node->next, s.size()) ? node->next : NewNodeAfter(node);
    Use(n).Prepend(s);
  } else if (!after && at_head) {
    Node* n = AllowInsert(node->prev, s.size()) ? node->prev : NewNodeAfter(node->prev);
    Use(n).Append(s);
  } else {
    size_t idx = IndexInNode(lp, c.pos);
    Node* rest = NewNodeAfter(node);
    rest->lp = lp.SplitAt(after ? idx + 1 : idx);
    if (after)
      rest->lp.Prepend(s);
    else
      lp.Append(s);
    MergeAround(node);
  }
  Settle();
}

// A large value replaces a plain node's element in place; a small value in a packed node stays
// in place when it fits. Otherwise (a change of kind, or a packed node without room) the new
// element is inserted after the old one by Insert's rules and the old one is deleted.
void Quicklist::Replace(Cursor c, std::string_view s, size_t threshold) {
  Node* node = c.node;
  Listpack& lp = Use(node);
  const bool large = s.size() >= threshold;
  size_t old_size = lp.EntrySize(c.pos);
  bool fits = node->plain()
                  ? large
                  : !large && (s.size() + kElementOverhead <= old_size ||
                               AllowInsert(node, s.size() > old_size ? s.size() - old_size : 0));
  if (fits) {
    lp.Replace(c.pos, s);
    Settle();
    return;
  }
  // Too big for this node: the new element goes after the old one (possibly into a new node,
  // which may split and merge nodes and so move the old one), then the old one, found again by
  // its index, is deleted.
  size_t idx = IndexInNode(lp, c.pos);
  int64_t global = 0;
  for (Node* n = head_; n != node; n = n->next) global += static_cast<int64_t>(Count(n));
  global += static_cast<int64_t>(idx);
  InsertAfter(c, s, threshold);
  Delete(Seek(global));
}

bool Quicklist::ReplaceAt(int64_t index, std::string_view s, size_t threshold) {
  Cursor c = Seek(index);
  if (!c.Valid()) return false;
  Replace(c, s, threshold);
  return true;
}

Quicklist::Cursor Quicklist::Delete(Cursor c) {
  Node* node = c.node;
  Listpack::Pos next = Use(node).Delete(c.pos);
  count_--;
  Cursor result;
  if (next != Listpack::kNone) {
    result = {node, next};
  } else {
    Node* following = node->next;
    if (node->lp.Empty()) Unlink(node);
    if (following != nullptr) result = {following, Use(following).First()};
  }
  // The returned node is the one the caller walks in: it stays raw until the walk leaves it.
  Settle(result.node);
  return result;
}

size_t Quicklist::DeleteRange(int64_t index, size_t count) {
  if (index < 0) index += static_cast<int64_t>(count_);
  if (index < 0 || static_cast<size_t>(index) >= count_ || count == 0) return 0;
  size_t local = static_cast<size_t>(index);
  Node* n;
  if (local < count_ / 2) {
    n = head_;
    while (local >= Count(n)) {
      local -= Count(n);
      n = n->next;
    }
  } else {
    // From the tail, so trimming the end of a long list (LTRIM 0 99) skips no nodes.
    size_t before = count_;  // elements before the end of node n
    n = tail_;
    while (before - Count(n) > local) {
      before -= Count(n);
      n = n->prev;
    }
    local -= before - Count(n);
  }
  size_t deleted = 0;
  while (n != nullptr && deleted < count) {
    Node* next = n->next;
    size_t size = Count(n);
    size_t take = std::min(count - deleted, size - local);
    if (local == 0 && take == size) {
      Unlink(n);
    } else {
      Use(n).DeleteRange(static_cast<int64_t>(local), take);
    }
    deleted += take;
    local = 0;
    n = next;
  }
  count_ -= deleted;
  Settle();
  return deleted;
}

void Quicklist::AppendNode(Listpack lp) {
  if (lp.Empty()) return;
  count_ += lp.Size();
  Node* n = NewNodeAfter(tail_);
  n->lp = std::move(lp);
  Settle();
}

void Quicklist::AppendPlainNode(std::string_view s) {
  NewPlainNodeAfter(tail_, s);
  count_++;
  Settle();
}

}  // namespace redistp
