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
#include <string>
#include <string_view>
#include <vector>

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
  kSlotLost,     // cluster: its slot went to another master (Redis's delKeysInSlot)
};

// Keyspace-notification classes: the flags of `notify-keyspace-events` (the letters of
// redis.conf) a change belongs to; kNotifyNone for a change Redis does not announce.
inline constexpr uint32_t kNotifyNone = 0;
inline constexpr uint32_t kNotifyKeyspace = 1u << 0;  // K
inline constexpr uint32_t kNotifyKeyevent = 1u << 1;  // E
inline constexpr uint32_t kNotifyGeneric = 1u << 2;   // g
inline constexpr uint32_t kNotifyString = 1u << 3;    // $
inline constexpr uint32_t kNotifyList = 1u << 4;      // l
inline constexpr uint32_t kNotifySet = 1u << 5;       // s
inline constexpr uint32_t kNotifyHash = 1u << 6;      // h
inline constexpr uint32_t kNotifyZset = 1u << 7;      // z
inline constexpr uint32_t kNotifyExpired = 1u << 8;   // x
inline constexpr uint32_t kNotifyEvicted = 1u << 9;   // e
inline constexpr uint32_t kNotifyStream = 1u << 10;   // t
inline constexpr uint32_t kNotifyKeyMiss = 1u << 11;  // m (not part of A)
inline constexpr uint32_t kNotifyModule = 1u << 12;   // d
inline constexpr uint32_t kNotifyNew = 1u << 13;      // n (not part of A)
inline constexpr uint32_t kNotifyAll = kNotifyGeneric | kNotifyString | kNotifyList | kNotifySet |
                                       kNotifyHash | kNotifyZset | kNotifyExpired | kNotifyEvicted |
                                       kNotifyStream | kNotifyModule;  // A

// What a change is called in keyspace notifications: its class and the event name Redis 7.0
// publishes ("set", "lpush", "expire", "del"). Every change the Database makes carries one, so
// notifications, tracking and statistics hang off the one choke point. An empty notice (class
// kNotifyNone) is a change Redis does not announce (DEBUG POPULATE, a RENAME's overwritten
// destination).
struct KeyNotice {
  uint32_t cls = kNotifyNone;
  const char* name = nullptr;
  // False for a change Redis makes without signalModifiedKey: the value changed only in state
  // that is not the key's content for WATCH and client-side caching (a stream's consumer groups:
  // XGROUP, XACK, XCLAIM, XREADGROUP). Such a kModified event still reaches notifications,
  // blocking, propagation and the dirty count, but aborts no WATCH and invalidates no cache.
  bool signals_modified = true;
};

// The notices shared by several command families. A family's own (lpush, hset ...) live with
// its commands.
namespace notice {
inline constexpr KeyNotice kNone{};
inline constexpr KeyNotice kSet{kNotifyString, "set"};
inline constexpr KeyNotice kDel{kNotifyGeneric, "del"};
inline constexpr KeyNotice kExpire{kNotifyGeneric, "expire"};
inline constexpr KeyNotice kPersist{kNotifyGeneric, "persist"};
inline constexpr KeyNotice kExpired{kNotifyExpired, "expired"};
// Fields of a hash reached their expire time (Redis 7.4).
inline constexpr KeyNotice kHExpired{kNotifyHash, "hexpired"};
inline constexpr KeyNotice kEvicted{kNotifyEvicted, "evicted"};
inline constexpr KeyNotice kRenameFrom{kNotifyGeneric, "rename_from"};
inline constexpr KeyNotice kRenameTo{kNotifyGeneric, "rename_to"};
inline constexpr KeyNotice kMoveFrom{kNotifyGeneric, "move_from"};
inline constexpr KeyNotice kMoveTo{kNotifyGeneric, "move_to"};
inline constexpr KeyNotice kCopyTo{kNotifyGeneric, "copy_to"};
}  // namespace notice

struct KeyEvent {
  KeyEventKind kind;
  RemoveCause cause;  // meaningful for kRemoved
  Database* db;
  Entry* entry;
  Entry* moved_from;  // for kAdded by RENAME/MOVE: the source entry (not yet freed)
  // For kAdded: the key existed until just before (its old entry was removed with cause
  // kOverwritten by RENAME/MOVE/COPY REPLACE), so for existence it never went away.
  bool replaced;
  // How keyspace notifications name this change. kAdded events also imply "new" (class n).
  KeyNotice notice;
  // For kModified by hash-field expiry (notice "hexpired"): the fields that expired, which
  // replicas and the AOF receive as HDEL (not the command's doing, like a key's expiry).
  const std::vector<std::string>* expired_fields = nullptr;
};

class KeyspaceListener {
 public:
  virtual ~KeyspaceListener() = default;
  virtual void OnKeyEvent(const KeyEvent& ev) = 0;
  // Before every key of `db` is dropped by FLUSHDB/FLUSHALL (no per-key events follow).
  virtual void OnFlush(Database& db) = 0;
  // After the contents of `a` and `b` were exchanged by SWAPDB.
  virtual void OnSwap(Database& a, Database& b) = 0;
  // A read lookup of `key` found nothing (Redis's "keymiss"). Called only while
  // KeyspaceContext::report_misses is set, so listeners that do not care need not override.
  virtual void OnKeyMiss(Database& /*db*/, std::string_view /*key*/) {}
};

}  // namespace redistp
