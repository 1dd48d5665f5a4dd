// OwnerIndex: which connection owns which temporary key (SETTP/BSETTP).
//
// The contract (docs/temporary-keys-and-watches.md): ownership is a property of the key's
// entry, not of its name. When a connection ends, exactly the keys that still carry its
// ownership are deleted, wherever they live now; a key that was deleted and re-created by
// somebody else is never touched, and nothing else is either.
//
// Model. Ownership is recorded per Entry (entries never move, see db/entry.h), with the entry's
// Entry::kFlagTemporary bit set so the hot path can tell an ordinary key without a lookup. The
// index follows the keyspace through the key events it listens to:
//   - kRemoved (any cause: DEL, expiry, eviction, overwrite by RENAME/MOVE/COPY destination,
//     source side of a rename) forgets the entry: a deleted key's ownership ends with it;
//   - kAdded with moved_from set (RENAME/MOVE) carries the record to the new entry and database;
//   - OnFlush forgets every entry of that database; OnSwap exchanges database pointers.
// Value changes (SET, APPEND, EXPIRE ...) keep the entry, so ownership survives them for free.
// ReleaseAll(owner) deletes exactly the entries still recorded for that owner, through
// Database::Remove, so the deletion has every side effect of DEL (watch pushes, hand-offs).
//
// Fencing tokens come from the index's FenceCounter (watch/fence.h), which only grows, across
// restarts and crashes too.
//
// Re-entry and observability. Each record also keeps a hold count (1 at creation; SETTP/BSETTP
// REENTRANT by the owner adds one, DELTP takes one off and deletes only at the last) and the
// time the key was created or handed over (the command clock's Unix ms when Adopt ran). Both
// belong to the entry like the owner does: a deleted key takes them along, a re-created key
// starts again at one hold and its own time, RENAME/MOVE carry them. Neither is persisted or
// propagated: a replay owns every temporary key as the loader and deletes them all when it
// ends, so only what exists matters there (DELTP records DEL only for keys it deleted).
//
// Replicas. A replica holds its master's temporary keys with their exact owner, fence and hold
// count (SetExact, from the replicas' SESSION KEY record: server/session_runtime.cc). The
// master's owner ids come from the master's client-id counter, so they could equal the id of a
// connection of the replica: an inherited owner is stored as Inherited(id), the master's id with
// bit 62 set, a range the replica's own counter never reaches, so a local connection ending can
// never release a key of the master's. The bit is idempotent: a chain of replicas, or a promoted
// replica's own replicas, keep the one namespace. OBJECT OWNER and the listings show the id with
// the bit, so an operator can tell an inherited owner from a local one.
#pragma once

#include <cstdint>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "watch/fence.h"

namespace redistp {

class OwnerIndex : public KeyspaceListener {
 public:
  // The namespace of owners inherited from a master (see above).
  static constexpr uint64_t kInheritedOwner = uint64_t{1} << 62;
  static constexpr uint64_t Inherited(uint64_t master_owner) {
    return master_owner | kInheritedOwner;
  }
  static constexpr bool IsInherited(uint64_t owner) { return (owner & kInheritedOwner) != 0; }

  // Marks `e` (just created in `db`) as owned by `owner`. fence = 0 for no fencing token.
  void Adopt(Entry* e, Database* db, uint64_t owner, uint64_t fence);
  // SETTP/BSETTP's creation: adds `key` (absent) to `db` owned by `owner`, carrying the fencing
  // token `fence` (0: none; the caller drew it from fences() first, so that a token refused
  // leaves nothing created).
  void CreateOwned(Database& db, std::string_view key, std::string_view value, uint64_t owner,
                   uint64_t fence);
  // Owner id of the entry, 0 for an ordinary key.
  uint64_t OwnerOf(const Entry* e) const;
  // Fencing token of the entry, 0 if none.
  uint64_t FenceOf(const Entry* e) const;
  size_t CountOwnedBy(uint64_t owner) const;
  size_t size() const { return by_entry_.size(); }
  // Deletes every key still owned by `owner` (DEL semantics). Returns how many.
  size_t ReleaseAll(uint64_t owner);
  // Re-owning, for sessions (watch/sessions.h): no key changes, fences stay. Transfer moves
  // every key of `from` to `to` and lists the moved keys (database, entry) in `moved` when
  // given; SetOwner moves one temporary key (false, changing nothing, for an ordinary key).
  size_t Transfer(uint64_t from, uint64_t to, std::vector<std::pair<Database*, Entry*>>* moved);
  bool SetOwner(Entry* e, uint64_t owner);
  // A replica's copy of its master's record for `e` (which must be owned: false, changing
  // nothing, otherwise): owner, fence and hold count exactly as given (holds >= 1).
  bool SetExact(Entry* e, uint64_t owner, uint64_t fence, uint64_t holds);
  // The owners that hold at least one key now and are inherited from a master (promotion).
  std::vector<uint64_t> InheritedOwners() const;
  // The fencing tokens' counter (watch/fence.h).
  FenceCounter& fences() { return fences_; }
  // Where Adopt reads the creation time (the command clock); unset, keys are stamped 0.
  void set_time_source(const KeyspaceContext* ctx) { time_source_ = ctx; }
  // Hold count of the entry (1 unless re-entered), 0 for an ordinary key.
  uint64_t HoldsOf(const Entry* e) const;
  // Unix ms at which the entry was created or handed over to its owner, 0 for an ordinary key.
  int64_t SinceOf(const Entry* e) const;
  // Re-entry: `e` is owned (OwnerOf(e) != 0); its hold count goes up by one. Returns the new
  // count.
  uint64_t AddHold(Entry* e);
  // DELTP of an owned entry: with more than one hold, takes one off and returns true (the key
  // stays); with one, returns false and changes nothing (the caller deletes the key).
  bool DropHold(Entry* e);
  // The entries `owner` holds now with their databases, in no particular order (TPKEYS).
  std::vector<std::pair<Entry*, Database*>> EntriesOf(uint64_t owner) const;
  // Number of owners that hold at least one key (INFO temporary_key_owners).
  size_t owner_count() const { return by_owner_.size(); }
  uint64_t last_fence() const { return fences_.last(); }
  // Persistence: the counter never goes back below `floor` (a loaded file's counter).
  void RaiseFence(uint64_t floor) { fences_.Raise(floor); }

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  struct Record {
    uint64_t owner;
    Database* db;
    uint64_t fence;
    uint64_t holds = 1;    // re-entries + 1
    int64_t since_ms = 0;  // creation or hand-over, Unix ms
  };
  void Forget(Entry* e);

  // RENAME/MOVE emit kRemoved(kMovedOut) for the source and then kAdded(moved_from) for the
  // new entry; the record waits here between the two events.
  struct PendingMove {
    bool valid = false;
    const Entry* from = nullptr;
    uint64_t owner = 0;
    uint64_t fence = 0;
    uint64_t holds = 1;
    int64_t since_ms = 0;
  };
  PendingMove pending_move_;
  const KeyspaceContext* time_source_ = nullptr;

  std::unordered_map<const Entry*, Record> by_entry_;
  std::unordered_map<uint64_t, std::unordered_set<Entry*>> by_owner_;
  FenceCounter fences_;
};

}  // namespace redistp
