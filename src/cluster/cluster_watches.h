// ClusterWatches: the existence watches (WATCHEX) of a cluster node end when the watched key's
// changes stop happening on this node, with a last push that says where they happen now.
//
// The rule (docs/cluster.md, "Watches when a slot leaves the node"). A node keeps a watch only
// on a key whose every change it would see: a key of a slot it serves (or imports: a client
// that said ASKING may watch there), and, while it migrates that slot away, only as long as the
// key is present here (a missing key of a migrating slot is created on the target, after ASK).
// Every other watch ends, and its watcher gets one last push in the shape of every WATCHEX push,
// `watchex <key> <where>`, whose third element is the redirection any command on the key would
// now get from this node:
//   - `MOVED <slot> <ip>:<port>`: another master serves the slot (SETSLOT NODE, a slot lost to a
//     master with a greater epoch, an import cancelled by SETSLOT STABLE);
//   - `ASK <slot> <ip>:<port>`: the slot migrates and the key has left this node (MIGRATE, DEL,
//     expiry, its owner leaving ...), or was absent when the migration began;
//   - `CLUSTERDOWN Hash slot not served`: nobody serves the slot (DELSLOTS, CLUSTER RESET).
// A change that ended the key here gives its own push first (`DEL`), so the watcher reads what
// happened, then where to look. The watch is gone after the last push (UNWATCHEX counts it no
// more, CLIENT LIST's wx= drops); the client re-registers on the node named, where WATCHEX's
// reply tells the key's existence there. While cluster_state is fail nothing ends: the node
// still holds its slots' keys, and only a change of the view moves them.
//
// Shard channels. The same change of the view ends the shard subscriptions (SSUBSCRIBE) of the
// slots this node's shard no longer serves, as Redis 7.0 does when a node deletes a slot: each
// subscriber gets `sunsubscribe <channel> <count>`, and follows the slot to its new master (a
// `__watchex@0__:{lock}` shard subscriber among them). This one does not wait for
// cluster_state ok, as in Redis.
//
// When. The whole check (every watch of database 0, O(watches)) runs after each change of the
// cluster view, in Cluster::BeforeSleep beside RedirectBlockedClients, and after a FLUSHALL of a
// node that migrates slots. In between, a removal of a key in a slot this node migrates queues
// the key (this listener, one test per key event while a slot migrates, nothing otherwise), and
// the same BeforeSleep ends its watches: after the command's reply and its DEL push, before the
// loop turn's writes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "db/keyspace_events.h"

namespace redistp {

class Cluster;
class Database;
class Server;

class ClusterWatches final : public KeyspaceListener {
 public:
  ClusterWatches(Server& server, Cluster& cluster) : server_(server), cluster_(cluster) {}

  // Ends the watches the rule above no longer allows: every watch when `all` (a change of the
  // view, a flush), else those of the keys queued by removals. Called from BeforeSleep.
  void EndForeign(bool all);
  // Whether removals queued keys to look at (BeforeSleep's cue).
  bool pending() const { return flush_ || !removed_.empty(); }

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  // Unsubscribes the shard channels of the slots this node's shard does not serve.
  void EndForeignShardChannels();
  // The redirection for a watch of `key` on this node, or "" when the watch may stay.
  std::string Where(std::string_view key);
  // The last push to each watcher of `key`, and the end of their watches.
  void End(std::string_view key, const std::vector<uint64_t>& watchers, const std::string& where);

  Server& server_;
  Cluster& cluster_;
  std::vector<std::string> removed_;  // keys of migrating slots removed since the last check
  bool flush_ = false;                // database 0 was flushed while a slot migrates
};

}  // namespace redistp
