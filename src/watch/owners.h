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
  // The fencing tokens' counter (watch/fence.h).
  FenceCounter& fences() { return fences_; }
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
  };
  void Forget(Entry* e);

  // RENAME/MOVE emit kRemoved(kMovedOut) for the source and then kAdded(moved_from) for the
  // new entry; the record waits here between the two events.
  struct PendingMove {
    bool valid = false;
    const Entry* from = nullptr;
    uint64_t owner = 0;
    uint64_t fence = 0;
  };
  PendingMove pending_move_;

  std::unordered_map<const Entry*, Record> by_entry_;
  std::unordered_map<uint64_t, std::unordered_set<Entry*>> by_owner_;
  FenceCounter fences_;
};

}  // namespace redistp
