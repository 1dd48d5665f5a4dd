// StreamObject: the value of a stream key (entries, consumer groups, their pending lists), and
// its TypeOps row.
//
// Entries. An entry is an id (two unsigned 64-bit numbers, milliseconds and a sequence) and a
// list of field/value pairs. Ids only grow: XADD appends after the last id. The entries live in
// nodes: each node is one listpack (types/listpack.h, Redis's byte format) holding up to
// stream-node-max-entries entries and about stream-node-max-bytes bytes, and the nodes sit in an
// ordered index keyed by the id of their first entry (the node's "master id"). The listpack's
// layout is the one Redis 7.0 writes into RDB files, so persistence copies nodes as they are:
//
//   master entry:  count  deleted  n  field_1 ... field_n  0
//   each entry:    flags  ms-diff  seq-diff  [n field_1 value_1 ... field_n value_n | value_1
//                  ... value_n]  lp-count
//
//   count/deleted  live and deleted entries in the node;
//   n, field_i     the field names of the node's first entry (the "master fields");
//   flags          bit 0 deleted, bit 1 "same fields": the entry has exactly the master fields in
//                  the same order, so only its values are stored;
//   ms/seq-diff    the entry id minus the master id, per part;
//   lp-count       the number of listpack elements of the entry before lp-count, so the node
//                  can be walked backwards.
// XDEL marks an entry deleted in place (a flag flip) and frees a node once its live count
// reaches zero. Trimming removes whole nodes from the front, and with exact trimming marks the
// entries of the first remaining node deleted.
//
// Stream metadata (Redis 7.0): the last id ever generated, the first live id, the greatest id
// ever deleted by XDEL (max_deleted), and the number of entries ever added (entries_added). The
// consumer groups' entries-read counters and lags follow 7.0's rules (EstimateEntriesRead,
// AdvanceGroup, GroupLag below).
//
// Consumer groups: by name (XINFO lists them in byte order); each has a last-delivered id, an
// entries-read counter (-1 = unknown), a pending entries list (PEL: id → delivery time, count,
// consumer) and consumers by name, each with its own PEL view of the same pending entries and a
// seen time. The group's PEL owns the pending records; a consumer's PEL points at them.
//
// Ownership and trust: a StreamObject is owned by its Value. Everything here assumes its
// callers validated arguments (ids in range, groups existing); untrusted blobs (RDB, RESTORE)
// are checked as they are loaded (AdoptNode and the loader in stream_rdb.cc).
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/listpack.h"
#include "types/type_limits.h"
#include "types/type_ops.h"

namespace redistp {

// ---- ids ----

struct StreamID {
  uint64_t ms = 0;
  uint64_t seq = 0;

  static constexpr StreamID Min() { return {0, 0}; }
  static constexpr StreamID Max() { return {UINT64_MAX, UINT64_MAX}; }
  bool IsZero() const { return ms == 0 && seq == 0; }
  auto operator<=>(const StreamID&) const = default;

  // The next id (seq + 1, carrying into ms); false if this is Max().
  bool Increment();
  // The previous id; false if this is Min().
  bool Decrement();
  // "<ms>-<seq>" into buf (kMaxChars bytes: two 20-digit numbers and the dash, no NUL is
  // written); returns the length.
  static constexpr size_t kMaxChars = 41;
  size_t Format(char* buf) const;
  std::string ToString() const;
  // The 16-byte big-endian form (Redis's rax keys and RDB node keys).
  void EncodeBE(unsigned char out[16]) const;
  static StreamID DecodeBE(const unsigned char in[16]);
};

// Parses an id argument the way Redis 7.0 does:
//   "-" and "+" are Min()/Max() unless `strict` (then they are invalid);
//   "<ms>" alone takes `missing_seq` as its sequence;
//   "<ms>-<seq>" both parts; "<ms>-*" only when `seq_star` is non-null, which is then set to true
//   (XADD's "generate the sequence"); otherwise *seq_star is left false.
// Each part is an unsigned 64-bit decimal read as Redis reads it (a canonical integer, or what
// strtoull accepts whole without overflow: leading spaces and a sign included, never a
// negative canonical number); ids over 127 bytes are invalid. Returns false if invalid.
bool ParseStreamID(std::string_view s, StreamID* out, uint64_t missing_seq, bool strict,
                   bool* seq_star = nullptr);

// ---- consumer groups ----

struct StreamConsumer;

// A pending entry: delivered to a consumer, not yet acknowledged.
struct StreamPending {
  int64_t delivery_time = 0;  // ms, the server's clock
  uint64_t delivery_count = 0;
  StreamConsumer* consumer = nullptr;
};

struct StreamConsumer {
  std::string name;
  int64_t seen_time = 0;  // ms of the consumer's last interaction
  // The entries pending for this consumer (records owned by the group's pel).
  std::map<StreamID, StreamPending*> pel;
};

struct StreamGroup {
  static constexpr int64_t kEntriesReadUnknown = -1;
  StreamID last_id;
  int64_t entries_read = kEntriesReadUnknown;
  std::map<StreamID, std::unique_ptr<StreamPending>> pel;
  std::map<std::string, std::unique_ptr<StreamConsumer>, std::less<>> consumers;

  StreamConsumer* FindConsumer(std::string_view name) const;
  // The consumer `name`, created (with seen_time = now) if missing; *created tells which.
  StreamConsumer* CreateConsumer(std::string_view name, int64_t now_ms, bool* created = nullptr);
  // Deletes the consumer and every entry pending for it; returns how many were pending.
  size_t DeleteConsumer(std::string_view name);
  // XREADGROUP `>` delivered `id` to `c` now: a new pending record with delivery count 1, or,
  // when `id` is pending already (the group's id was set back), that record moved to `c` with
  // its time set to now and its count reset to 1, as Redis does. Returns the record. (History
  // reads and XCLAIM update an existing record's time and count themselves.)
  StreamPending* AddPending(StreamID id, StreamConsumer* c, int64_t now_ms);
  // Moves an existing pending record to consumer `c` (XCLAIM/XAUTOCLAIM).
  void MovePending(StreamID id, StreamPending* p, StreamConsumer* c);
  // Acknowledges `id`: removes its record from the group and its consumer; false if not pending.
  bool Ack(StreamID id);
};

// ---- the stream ----

// The ordered index of nodes: (master id, listpack) pairs, ascending. Nodes are only ever added
// at the end (ids grow) and mostly removed at the front (trimming), so a deque holds them at 24
// bytes each with O(1) growth and trimming, and binary search finds the node of an id.
using StreamNodes = std::deque<std::pair<StreamID, Listpack>>;
// The first node whose master id is greater than `id`.
StreamNodes::const_iterator NodeAfter(const StreamNodes& nodes, StreamID id);

// One entry as iteration sees it: its id and its field/value pairs, flattened (field, value,
// field, value ...), as listpack entries valid until the stream changes or the iterator moves.
struct StreamEntryView {
  StreamID id;
  const std::vector<ListpackEntry>* fields = nullptr;
  size_t num_pairs() const { return fields->size() / 2; }
};

class StreamObject {
 public:
  StreamObject() = default;
  ~StreamObject();
  StreamObject(const StreamObject&) = delete;
  StreamObject& operator=(const StreamObject&) = delete;

  // ---- entries ----
  size_t length() const { return length_; }
  StreamID last_id() const { return last_id_; }
  // The id of the first live entry; 0-0 when empty.
  StreamID first_id() const { return first_id_; }
  StreamID max_deleted_id() const { return max_deleted_; }
  uint64_t entries_added() const { return entries_added_; }
  // XSETID, and the loaders.
  void set_last_id(StreamID id) { last_id_ = id; }
  void set_max_deleted_id(StreamID id) { max_deleted_ = id; }
  void set_entries_added(uint64_t n) { entries_added_ = n; }

  // The id XADD `*` would give now: (max(now, last.ms), 0) or (last.ms, last.seq + 1); false if
  // the stream has exhausted its ids (last id is Max()).
  bool NextAutoId(uint64_t now_ms, StreamID* out) const;
  // True if an entry with these field/value bytes fits a listpack (Redis refuses elements that
  // would make a node pass 1 GB: "ERR Elements are too large to be stored").
  static bool FitsNode(size_t total_bytes) { return total_bytes < Listpack::kMaxSafeBytes; }
  // Appends an entry; precondition: id > last_id() and field_values has an even, nonzero count.
  // Updates last id, length, entries_added (and first id of an empty stream). New node when the
  // tail node is full by `limits`.
  void Append(StreamID id, const std::vector<std::string_view>& field_values,
              const TypeLimits& limits);
  // XDEL of one id: true if a live entry was deleted (updates max_deleted, length, first id).
  bool Delete(StreamID id);
  // True if a live entry has this id.
  bool Contains(StreamID id) const;

  enum class TrimBy : uint8_t { kMaxLen, kMinId };
  struct TrimSpec {
    TrimBy by = TrimBy::kMaxLen;
    uint64_t maxlen = 0;  // kMaxLen: keep at most this many entries
    StreamID minid;       // kMinId: evict entries with an id below this
    bool approx = false;  // "~": only whole nodes are removed
    int64_t limit = 0;    // most entries to evict; 0 = no limit (only meaningful with approx)
  };
  // Evicts entries from the head as XTRIM/XADD's MAXLEN/MINID do; returns how many. Does not
  // change max_deleted (trimming is not deletion in 7.0's accounting).
  int64_t Trim(const TrimSpec& spec);

  // Iterates live entries with ids in [start, end], forward (ascending) or in reverse.
  class Iterator {
   public:
    Iterator(const StreamObject& s, StreamID start, StreamID end, bool reverse);
    // The next live entry, or false at the end. The view is valid until the next call.
    bool Next(StreamEntryView* out);

   private:
    bool LoadNode(bool first);
    const StreamObject& s_;
    StreamID start_, end_;
    bool reverse_;
    bool done_ = false;
    StreamNodes::const_iterator node_;
    Listpack::Pos pos_ = Listpack::kNone;          // next entry's flags element in the node
    Listpack::Pos first_entry_ = Listpack::kNone;  // the node's first entry (after the master)
    StreamID master_;
    std::vector<ListpackEntry> master_fields_;
    std::vector<ListpackEntry> fields_;
  };

  // ---- consumer groups ----
  size_t group_count() const { return groups_.size(); }
  const std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>>& groups() const {
    return groups_;
  }
  StreamGroup* FindGroup(std::string_view name) const;
  // Creates a group; nullptr if one with that name exists.
  StreamGroup* CreateGroup(std::string_view name, StreamID last_id, int64_t entries_read);
  // Destroys a group; false if it did not exist.
  bool DestroyGroup(std::string_view name);

  // 7.0's entries-read rules.
  // The number of entries added up to and including `id` when it can be known, else
  // StreamGroup::kEntriesReadUnknown (XGROUP CREATE/SETID without ENTRIESREAD).
  int64_t EstimateEntriesRead(StreamID id) const;
  // True if an XDEL may have left a hole in [start, end] (Redis's tombstone test).
  bool RangeHasTombstones(StreamID start, StreamID end) const;
  // A group read delivered the entry `id` (> the group's last id): advances the group's last id
  // and its entries-read counter (incremented when known and no hole lies ahead, else
  // re-estimated).
  void AdvanceGroup(StreamGroup& g, StreamID id) const;
  // XINFO GROUPS' lag; nullopt when it cannot be known (nil in the reply).
  std::optional<int64_t> GroupLag(const StreamGroup& g) const;

  // ---- loading (RDB, RESTORE: stream_rdb.cc) ----
  // Checks a node that came from outside — its master entry, each entry's flags, field count,
  // lp-count and id (ascending, above `master` and above the previous node's entries), and the
  // header's live/deleted counts — and appends it after the existing nodes, counting its live
  // entries into length(). False if anything is malformed; the stream is unchanged then.
  bool AdoptNode(StreamID master, Listpack lp);
  void set_first_id(StreamID id) { first_id_ = id; }
  // The id of the last entry in the nodes, deleted or not (0-0 with no node).
  StreamID LastNodeEntryId() const;

  // ---- the TypeOps row's helpers ----
  StreamObject* Clone() const;
  size_t MemoryBytes(size_t samples) const;
  size_t node_count() const { return nodes_.size(); }
  // The nodes (for RDB: each key is the master id, each listpack the node as Redis writes it).
  const StreamNodes& nodes() const { return nodes_; }

 private:
  void RecomputeFirstId();

  StreamNodes nodes_;
  size_t length_ = 0;
  StreamID last_id_;
  StreamID first_id_;
  StreamID max_deleted_;
  uint64_t entries_added_ = 0;
  std::map<std::string, std::unique_ptr<StreamGroup>, std::less<>> groups_;
};

extern const TypeOps kStreamOps;

// RDB readers: RDB_TYPE_STREAM_LISTPACKS (Redis 6.x, no 7.0 metadata: it is derived as Redis 7.0
// derives it) and RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0).
Result<Value> LoadStreamListpacks(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadStreamListpacks2(RdbReader& r, const TypeLimits& limits);
Result<Value> LoadStreamListpacks3(RdbReader& r, const TypeLimits& limits);

}  // namespace redistp
