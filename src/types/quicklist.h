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
// no conversion rule. Not built: Redis's "plain" nodes for single elements of 1 GB and more.
//
// Cursors: a Cursor names one element as (node, byte offset in its listpack). It stays valid
// until the next mutation, except that Delete returns the cursor of the following element and
// leaves cursors to earlier elements valid, so callers can delete while walking either way.
#pragma once

#include <cstddef>
#include <cstdint>
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
    Listpack lp;             // empty (moved-from) while compressed
    uint8_t* lzf = nullptr;  // the compressed form, or null
    ~Node();
  };
  struct Cursor {
    Node* node = nullptr;
    Listpack::Pos pos = Listpack::kNone;
    bool Valid() const { return node != nullptr; }
  };

  static constexpr int kMaxFill = 1 << 15;
  static constexpr size_t kSafetyLimit = 8192;  // bytes per node when fill counts entries

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

  void PushFront(std::string_view s);
  void PushBack(std::string_view s);
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
  void InsertBefore(Cursor c, std::string_view s) { Insert(c, s, false); }
  void InsertAfter(Cursor c, std::string_view s) { Insert(c, s, true); }
  void Replace(Cursor c, std::string_view s);
  // False if index is out of range.
  bool ReplaceAt(int64_t index, std::string_view s);
  // Deletes the element at c; returns the cursor of the element after it (invalid at the end).
  Cursor Delete(Cursor c);
  // Deletes up to count elements from index (negative from the tail); returns how many.
  size_t DeleteRange(int64_t index, size_t count);

  // ---- whole nodes, for RDB save/load ----
  // Adds a node holding lp at the tail (ignored if empty); no merging, as Redis loads nodes.
  void AppendNode(Listpack lp);
  // Nodes from the head; a node may be compressed (use NodeListpack to read one).
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
  void Unlink(Node* n);
  void Insert(Cursor c, std::string_view s, bool after);
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
  // Interior nodes decompressed since the last Settle (new nodes too), to compress again.
  mutable std::vector<Node*> in_use_;
};

}  // namespace redistp
