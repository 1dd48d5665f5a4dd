// Quicklist: Redis 7.0's list encoding, a doubly linked list of listpack nodes.
//
// Memory layout:
//
//   Quicklist { head, tail, count, nodes, fill }
//        |                                   |
//        v                                   v
//   +--------+  next  +--------+  next  +--------+
//   | Node   | -----> | Node   | -----> | Node   | -> nullptr
//   | prev   | <----- | prev   | <----- | prev   |
//   | lp ----+-> [listpack blob]  ...   | lp ----+-> [listpack blob]
//   +--------+        +--------+        +--------+
//
// Each Node is one allocation (two pointers and a Listpack handle, 24 bytes) plus its listpack
// blob. Invariants: no node is empty; `count` is the sum of the nodes' sizes; head/tail are null
// exactly when count is 0.
//
// Node fill follows `list-max-listpack-size` (Redis's rules, including its estimates, so nodes
// split where Redis's do):
//   fill < 0   a node's blob may grow to 4/8/16/32/64 KB for -1/-2/-3/-4/-5 (below -5 is -5);
//   fill >= 0  a node holds at most `fill` entries (at most 32768) and, for safety, 8 KB;
//              fill 0 puts every element in its own node.
// A new element is estimated at its length plus 8 bytes. An insert into a full node goes to the
// neighbour when at the node's edge and the neighbour has room, else to a new node; in the middle
// of a full node the node is split there, and afterwards the split parts and their neighbours are
// merged where two nodes fit in one (estimated as both blobs minus 11 bytes, Redis 7.0's figure).
//
// Compression (`list-compress-depth` d > 0): the d nodes at each end stay raw; interior nodes
// are kept LZF-compressed (liblzf), except blobs under 48 bytes and blobs LZF cannot shrink by
// 8 bytes, which stay raw. A compressed node's `lp` is empty (moved-from) and `lzf` holds
//   [raw bytes u32 | compressed bytes u32 | entry count u32 | LZF data]
// An access decompresses a node "for use"; it is compressed again when a walk (Next/Prev) moves
// on to another node, or at the end of the next mutation or Seek. Byte offsets inside a node do
// not change when it is compressed and decompressed, so cursors survive it; string_views from
// Get do not (they are valid until the next call on the list other than Get).
//
// Redis 7.0 encodes every list as a quicklist (OBJECT ENCODING answers "quicklist" even for one
// element; checked on Debian's redis-server 7.0.15): the "listpack while small" list encoding
// and its conversion back at half the limit arrived in Redis 7.2, so a 7.0-compatible list needs
// no conversion rule.
//
// Plain nodes: an element of `packed threshold` bytes or more (1 GB unless DEBUG QUICKLIST-
// PACKED-THRESHOLD changed it; the caller passes the threshold to each insert) gets a node of
// its own, marked plain, as in Redis 7.0. Such a node always holds exactly one element: nothing
// is ever inserted into it and it never merges with a neighbour, so a large element is never
// copied again by later edits around it. A plain node keeps its element in a one-entry listpack
// (so cursors, Get and compression treat both kinds alike, and the node stays 32 bytes: the mark
// is the low bit of the lzf pointer); its RDB form is the bare element (container 1), not the
// listpack. Placement follows Redis: a large element at a node's edge (or next to a plain node)
// gets a new plain node beside it; in the middle of a packed node that node is split there and
// the plain node goes between the halves, which are not merged back. LSET of a plain node with a
// large value replaces the element in place; every other change of kind inserts the new element
// after the old one and deletes the old one.
//
// Cursors: a Cursor names one element as (node, byte offset in its listpack). It stays valid
// until the next mutation, except that Delete returns the cursor of the following element and
// leaves cursors to earlier elements valid, so callers can delete while walking either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/listpack.h"

namespace redistp {

class Quicklist {
 public:
  struct Node {
    Node* prev = nullptr;
    Node* next = nullptr;
    Listpack lp;  // empty (moved-from) while compressed; a plain node's holds its one element
    // The compressed form, or null, with the plain mark in the low bit (malloc'd blocks are
    // aligned, so the bit is free; a fifth field would take the node out of its 32-byte class).
    uintptr_t lzf_bits = 0;
    uint8_t* lzf() const { return reinterpret_cast<uint8_t*>(lzf_bits & ~uintptr_t{1}); }
    void set_lzf(uint8_t* p) { lzf_bits = reinterpret_cast<uintptr_t>(p) | (lzf_bits & 1); }
    bool plain() const { return (lzf_bits & 1) != 0; }
    void set_plain() { lzf_bits |= 1; }
    ~Node();
  };
  struct Cursor {
    Node* node = nullptr;
    Listpack::Pos pos = Listpack::kNone;
    bool Valid() const { return node != nullptr; }
  };

  static constexpr int kMaxFill = 1 << 15;
  static constexpr size_t kSafetyLimit = 8192;  // bytes per node when fill counts entries

  // Redis 7.0's default packed threshold: elements this long or longer get plain nodes.
  static constexpr size_t kDefaultPackedThreshold = size_t{1} << 30;
  // The largest threshold DEBUG QUICKLIST-PACKED-THRESHOLD accepts (4 GB less 1 MB), as Redis.
  static constexpr size_t kMaxPackedThreshold = (size_t{1} << 32) - (size_t{1} << 20);

  static constexpr size_t kMinCompressBytes = 48;
  static constexpr size_t kMinCompressGain = 8;

  explicit Quicklist(int fill = -2, int compress_depth = 0);
  ~Quicklist();
  Quicklist(Quicklist&& o) noexcept;
  Quicklist& operator=(Quicklist&& o) noexcept;
  Quicklist(const Quicklist&) = delete;
  Quicklist& operator=(const Quicklist&) = delete;
  Quicklist Clone() const;

  size_t Size() const { return count_; }
  size_t NodeCount() const { return nodes_; }
  int fill() const { return fill_; }
  int compress_depth() const { return depth_; }
  // Nodes currently held compressed.
  size_t CompressedNodeCount() const;
  // Recompresses the interior nodes reads left decompressed (for owners to call after a read
  // command; every mutation does it too).
  void Recompress() const { Settle(); }
  // Applies to later inserts. (Redis fixes a list's fill when the list is created, so CONFIG SET
  // affects only new lists; the owner decides when to call this.)
  void SetFill(int fill);
  // Bytes allocated for the nodes and their blobs (the owner adds this object's own size).
  size_t AllocatedBytes() const;
  // Bytes allocated for one node and its blob in its current form (compressed or not); reads
  // no entry, so it never decompresses.
  static size_t NodeAllocatedBytes(const Node* n);

  // Inserts take the packed threshold (elements of that many bytes or more get a plain node).
  void PushFront(std::string_view s, size_t threshold = kDefaultPackedThreshold);
  void PushBack(std::string_view s, size_t threshold = kDefaultPackedThreshold);
  // Removes and returns the first / last element; nullopt when empty.
  std::optional<std::string> PopFront();
  std::optional<std::string> PopBack();

  // ---- positions ----
  Cursor First() const;
  Cursor Last() const;
  Cursor Next(Cursor c) const;
  Cursor Prev(Cursor c) const;
  // Element at index (negative from the tail); an invalid cursor if out of range.
  Cursor Seek(int64_t index) const;
  ListpackEntry Get(Cursor c) const { return Use(c.node).Get(c.pos); }

  // ---- edits at a position ----
  void InsertBefore(Cursor c, std::string_view s, size_t threshold = kDefaultPackedThreshold) {
    Insert(c, s, false, threshold);
  }
  void InsertAfter(Cursor c, std::string_view s, size_t threshold = kDefaultPackedThreshold) {
    Insert(c, s, true, threshold);
  }
  void Replace(Cursor c, std::string_view s, size_t threshold = kDefaultPackedThreshold);
  // False if index is out of range.
  bool ReplaceAt(int64_t index, std::string_view s, size_t threshold = kDefaultPackedThreshold);
  // Deletes the element at c; returns the cursor of the element after it (invalid at the end).
  Cursor Delete(Cursor c);
  // Deletes up to count elements from index (negative from the tail); returns how many.
  size_t DeleteRange(int64_t index, size_t count);

  // ---- whole nodes, for RDB save/load ----
  // Adds a node holding lp at the tail (ignored if empty); no merging, as Redis loads nodes.
  void AppendNode(Listpack lp);
  // Adds a plain node holding the one element s at the tail (an RDB plain node, whatever its
  // length: Redis keeps a loaded plain node plain). s must not be empty.
  void AppendPlainNode(std::string_view s);
  // Nodes from the head; a node may be compressed (use NodeListpack to read one). A plain
  // node's listpack holds its one element.
  const Node* HeadNode() const { return head_; }
  // The node's listpack, decompressed if need be (compressed again by the next Settle).
  const Listpack& NodeListpack(const Node* n) const { return Use(const_cast<Node*>(n)); }

 private:
  // The node's listpack, decompressing it for use (recorded in in_use_).
  Listpack& Use(Node* n) const;
  static size_t RawBytes(const Node* n);
  static size_t Count(const Node* n);
  bool IsInterior(const Node* n) const;
  // Compresses n if it is interior and compresses well enough.
  void Compress(Node* n) const;
  // Restores the compression invariant: ends raw, nodes in use and the nodes just inside the
  // ends compressed; `keep` (a node a returned cursor points into) stays raw and in use.
  void Settle(const Node* keep = nullptr) const;
  bool AllowInsert(const Node* n, size_t element_len) const;
  bool AllowMerge(const Node* a, const Node* b) const;
  bool SizeMeetsOptimization(size_t bytes) const;
  Node* NewNodeAfter(Node* at);  // at == nullptr: new head
  // A new plain node holding s, linked after `at` (nullptr: new head).
  Node* NewPlainNodeAfter(Node* at, std::string_view s);
  void Unlink(Node* n);
  void Insert(Cursor c, std::string_view s, bool after, size_t threshold);
  // Merges b into a (a->next == b) and frees b.
  void MergeInto(Node* a, Node* b);
  void MergeAround(Node* center);
  void Clear();

  Node* head_ = nullptr;
  Node* tail_ = nullptr;
  size_t count_ = 0;
  size_t nodes_ = 0;
  int fill_;
  int depth_;
  // Interior nodes decompressed since the last Settle (new nodes too), to compress again;
  // allocated on first use, so a list without compression costs 48 bytes here (jemalloc's
  // class of Redis's own quicklist header), not 64.
  mutable std::unique_ptr<std::vector<Node*>> in_use_;
  std::vector<Node*>& InUse() const {
    if (in_use_ == nullptr) in_use_ = std::make_unique<std::vector<Node*>>();
    return *in_use_;
  }
};

}  // namespace redistp
