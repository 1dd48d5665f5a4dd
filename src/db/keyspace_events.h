// The keyspace's one choke point: every creation, removal and value change of a key in any
// database is announced here, whatever caused it (a command, lazy or active expiry, eviction,
// FLUSHDB/FLUSHALL, SWAPDB, RENAME/MOVE/COPY, an owner's disconnect, loading).
//
// Commands never call notification code themselves: they call Database operations, and the
// Database emits exactly one event per key change to its KeyspaceListener. The server installs
// one listener that fans out to the subsystems that care (temporary-key owners, existence
// watches, MULTI WATCH, keyspace notifications, stats).
//
// Ordering contract: kRemoved is emitted while the entry is still valid (before it is freed);
// kAdded after the entry is in the table. A rename or move emits kRemoved(cause kMovedOut) for
// the source and then kAdded with `moved_from` set to the old entry (which is still readable),
// so listeners keyed by entry can carry state (such as ownership) across. Replacing an existing
// destination emits kRemoved(kOverwritten) for the old entry and kAdded(replaced=true) for the
// new one: ownership of the old entry ends, while existence watchers see no change.
#pragma once

#include <cstdint>

namespace redistp {

class Database;
struct Entry;

enum class KeyEventKind : uint8_t { kAdded, kRemoved, kModified };

enum class RemoveCause : uint8_t {
  kDeleted,      // DEL/UNLINK/GETDEL, a command emptied it, DELTP
  kExpired,      // lazy or active expiry
  kEvicted,      // maxmemory eviction
  kOverwritten,  // destination of RENAME/MOVE/COPY REPLACE replaced
  kMovedOut,     // source side of RENAME/MOVE (the key lives on under another name or db)
  kOwnerLeft,    // a temporary key whose owning connection ended (not a command's own change)
};

struct KeyEvent {
  KeyEventKind kind;
  RemoveCause cause;  // meaningful for kRemoved
  Database* db;
  Entry* entry;
  Entry* moved_from;  // for kAdded by RENAME/MOVE: the source entry (not yet freed)
  // For kAdded: the key existed until just before (its old entry was removed with cause
  // kOverwritten by RENAME/MOVE/COPY REPLACE), so for existence it never went away.
  bool replaced;
};

class KeyspaceListener {
 public:
  virtual ~KeyspaceListener() = default;
  virtual void OnKeyEvent(const KeyEvent& ev) = 0;
  // Before every key of `db` is dropped by FLUSHDB/FLUSHALL (no per-key events follow).
  virtual void OnFlush(Database& db) = 0;
  // After the contents of `a` and `b` were exchanged by SWAPDB.
  virtual void OnSwap(Database& a, Database& b) = 0;
};

}  // namespace redistp
