// WatchexPublisher: existence events over Pub/Sub (docs/temporary-keys-and-watches.md,
// "Existence events over Pub/Sub").
//
// Contract. Every change a WATCHEX watcher of key K in database D would be told about (K
// appears: ADD; K disappears: DEL; whatever the cause) is also published, as an ordinary
// PUBLISH would, on the channel `__watchex@<D>__:<K>` with the message `ADD` or `DEL`. Exact
// subscribers of that channel and subscribers of every pattern that matches it receive it (one
// Publish call per change, so a client subscribed both ways gets both, as for PUBLISH).
//
// Model. Two paths, so that each change is published exactly once:
//   - exact channels go through the WatchIndex. While `__watchex@D__:K` has subscribers, (D, K)
//     carries the index's `published` mark (a pseudo-watcher of the Pub/Sub side; the
//     registry tells us when such a channel gets its first subscriber and loses its last). The
//     index then reports each existence change of K (Server::OnPublishedKeyEvent ->
//     PublishChange) after K's WATCHEX watchers, and for every cause a watch sees: the key's
//     TTL deadline (prompt expiry, as WATCHEX), FLUSHDB, SWAPDB, RENAME/MOVE, owner left,
//     BSETTP hand-off. One Publish delivers to the exact subscribers and the patterns.
//   - patterns: while at least one subscribed pattern can match some `__watchex@` channel
//     (GlobCanMatchPrefix), this listener publishes every existence change of every key that
//     is not marked (a marked key was published by the index already): key events, and for
//     FLUSHDB and SWAPDB a walk of the databases concerned. A key seen only through a pattern
//     has no deadline of its own: its DEL for expiry comes when the server expires it (active
//     expiry or an access), unless the key is also watched or has an exact subscriber.
//
// Shard channels (docs/cluster.md, "Existence events as sharded Pub/Sub"). Each change is also
// delivered to the shard subscribers (SSUBSCRIBE) of the same name, `smessage <channel>
// ADD|DEL`, after the classic message. A shard channel with subscribers marks its key as an
// exact channel does (one mark while either has subscribers). On a cluster node the route
// (watchex_shard_route.h) decides first: the channel's slot served here delivers locally, else
// the route sends the message over the bus to the shard serving it, or drops it. With the
// route's forwarding on (tp-watchex-shard-forward), every existence change of every key must be
// offered to the route, subscribed here or not: this listener is then enabled as for a
// pattern, and offers each change of a key the index does not publish already.
//
// Order. This listener is registered right after the WatchIndex in the server's KeyspaceHub,
// so for one change a connection gets the WATCHEX push, then the `__watchex@` message, then the
// keyspace notifications; the push path (Server::Push) holds messages to the connection that
// made the change until its reply.
//
// Cost. Nothing is formatted or looked up while no subscription can receive these messages:
// the index returns at once while it holds no record (one branch, as before this feature), and
// this listener is switched off in the hub (KeyspaceHub::SetEnabled) while no subscribed pattern
// can match, so key events do not even call it. Publishing reuses one channel-name buffer (no
// allocation per message once it has grown to the longest channel).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "db/keyspace_events.h"

namespace redistp {

class KeyspaceHub;
class Server;
class WatchexShardRoute;

class WatchexPublisher : public KeyspaceListener {
 public:
  static constexpr std::string_view kPrefix = "__watchex@";

  // `hub` is where this listener is subscribed (disabled); it is enabled while a subscribed
  // pattern can match a `__watchex@` channel.
  WatchexPublisher(Server* server, KeyspaceHub* hub) : server_(server), hub_(hub) {}
  WatchexPublisher(const WatchexPublisher&) = delete;
  WatchexPublisher& operator=(const WatchexPublisher&) = delete;

  // Registry hooks (server/pubsub.cc): an exact channel (pattern=false) or a pattern got its
  // first subscriber (Added) or lost its last (Removed). Names of other channels are ignored, so
  // the registry may call these for every topic; the calls for one name must pair up.
  void OnTopicAdded(bool pattern, std::string_view name);
  void OnTopicRemoved(bool pattern, std::string_view name);
  // The same for a shard channel (SSUBSCRIBE): its key is marked while the exact channel or the
  // shard channel of that name has subscribers.
  void OnShardTopicAdded(std::string_view name);
  void OnShardTopicRemoved(std::string_view name);

  // A cluster node's route for shard delivery (null: deliver locally, standalone).
  void SetRoute(WatchexShardRoute* route) { route_ = route; }
  // Offer every existence change to the route, subscribed here or not (the route forwards over
  // the bus). Enables this listener while on.
  void SetForwardAll(bool on);

  // Publishes one existence change of `key` in database `db` on its `__watchex@` channel.
  void PublishChange(int db, std::string_view key, bool added);

  // Subscribed patterns that can match a `__watchex@` channel.
  size_t watching_patterns() const { return patterns_; }

  // Splits "__watchex@<db>__:<key>" into its database (decimal, no sign, no leading zero) and
  // key (any bytes, possibly empty). False for any other name.
  static bool ParseChannel(std::string_view channel, int* db, std::string_view* key);

  // KeyspaceListener: the pattern path (see above).
  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  // Publishes for a key unless the index already does (it carries the published mark).
  void PublishUnmarked(int db, std::string_view key, bool added);
  // The pattern path's and the forwarding's treatment of one change (OnKeyEvent's body).
  void Offer(int db, std::string_view key, bool added, bool flagged);
  // channel_ = "__watchex@<db>__:<key>".
  void FormatChannel(int db, std::string_view key);
  void UpdateEnabled();

  Server* server_;
  KeyspaceHub* hub_;
  size_t patterns_ = 0;
  WatchexShardRoute* route_ = nullptr;
  bool forward_all_ = false;
  bool enabled_ = false;
  std::string channel_;  // the channel name of the message being published, reused
};

}  // namespace redistp
