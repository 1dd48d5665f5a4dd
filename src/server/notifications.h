// Keyspace notifications: `notify-keyspace-events` delivered over Pub/Sub, as Redis 7.0 does.
//
// Model. Every key change reaches the server's KeyspaceHub as one KeyEvent carrying a KeyNotice
// (class bit and Redis's event name, db/keyspace_events.h); a read lookup that misses reaches it
// as OnKeyMiss. The KeyspaceNotifier is the hub's last listener: for each event whose class is
// enabled it publishes, through the Pub/Sub registry (PUBLISH semantics, so exact and pattern
// subscribers and the one push path with its ordering promise), the event name on
// `__keyspace@<db>__:<key>` when K is set and the key on `__keyevent@<db>__:<event>` when E is
// set, keyspace first. Commands never call this code: the Database is the choke point.
//
// What Redis emits beyond the command's own notice, and how it is derived here:
//   - `new` (class n): Redis's dbAdd emits it whenever a key is created, before the command's
//     own event. Every kAdded event is such a creation (including RENAME/MOVE/COPY onto an
//     existing destination, which Redis deletes silently and adds again).
//   - RENAME/MOVE: Redis adds the destination (`new`) before it announces `rename_from` /
//     `move_from` for the source and then `rename_to` / `move_to`. The Database emits the source's
//     kRemoved(kMovedOut) first (its listeners rely on that order), so the notifier holds the
//     source's notice until the destination's kAdded (which comes next, with moved_from set)
//     and publishes the three in Redis's order.
//   - removals name their cause: `expired` (x) lazily, actively or by the watch timer;
//     `evicted` (e); `del` (g) for a deleted key, an emptied aggregate and a temporary key whose
//     owner left. An overwritten destination has no notice (Redis announces none).
//   - `keymiss` (m): a read lookup that finds nothing (Database::LookupRead and the no-touch
//     lookups of EXISTS, TYPE, TTL, as Redis's lookupKeyRead); write lookups never.
//   - FLUSHDB, FLUSHALL and SWAPDB announce nothing per key (Redis 7.0 neither).
//
// Cost. With notify-keyspace-events empty (the default) the notifier is switched out of the
// hub (KeyspaceHub::SetEnabled), so a key event does not even call it, and keymiss is not even
// called (KeyspaceContext::report_misses is false). With flags set but no subscription at all, no
// channel name is formatted. Channel names are formatted into a stack buffer (a heap string only
// for keys longer than it), so a notification allocates nothing of its own, and a nested
// notification (a publish that causes a key change) cannot clobber the buffer of the one that
// caused it.
#pragma once

#include <cstdint>
#include <string_view>

#include "db/keyspace_events.h"
#include "server/keyspace_hub.h"

namespace redistp {

class Server;

class KeyspaceNotifier : public KeyspaceListener {
 public:
  // Reads notify-keyspace-events from the server's config now and on every change.
  explicit KeyspaceNotifier(Server* server);
  // Subscribes to `hub` (at the caller's point of the listener order), enabled only while some
  // notification class is on; every later config change switches it in or out.
  void Attach(KeyspaceHub* hub);

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnKeyMiss(Database& db, std::string_view key) override;
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}

  // The kNotify* bits in force (those of the config; exposed for tests).
  uint32_t flags() const { return flags_; }

 private:
  // Applies the config's bits: the notifier's copy and the keyspace's miss switch.
  void Sync();
  // Publishes one notification of `event` about `key` of database `db` on the channels the
  // flags enable (K: keyspace, E: keyevent), keyspace first. The class test is the caller's.
  void Publish(int db, std::string_view event, std::string_view key);

  Server* server_;
  KeyspaceHub* hub_ = nullptr;
  uint32_t flags_ = 0;
  // The source half of a RENAME/MOVE, held until the destination is added (see above).
  KeyNotice pending_from_{};
  int pending_from_db_ = 0;
};

}  // namespace redistp
