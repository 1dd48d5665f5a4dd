// The cluster's view of itself: every node this node knows (itself included), who serves which
// of the 16384 hash slots, which slots are being migrated, and the two epochs. This is the model
// Redis 7.0 keeps in its cluster state and writes to nodes.conf; the bus, failover and command
// parts all read and change it through this class, and nodes_conf.h turns it into text and back.
//
// Model and invariants:
// - Nodes are owned by the state (stable addresses until RemoveNode) and found by their 40-char
//   id. Order matters only for output: nodes keep the order they were added (or, when loaded,
//   the order of the lines that defined them), so a nodes.conf read and written again comes out
//   byte-identical. Redis prints its dictionary's order, which no client relies on.
// - Exactly one node may carry kNodeMyself; `myself()` is that node (null only while building).
// - Slot ownership is kept twice, as Redis does: `owner(slot)` for the lookup a redirection needs
//   (one array load), and each node's `slots` bitmap with its count for CLUSTER NODES / SLOTS and
//   the bus's slot announcements. AssignSlot/UnassignSlot keep both sides equal; nothing else
//   writes them.
// - A replica points at its master (`master`) and appears in the master's `replicas`; SetMaster
//   keeps the two sides equal. A replica whose master is unknown has `master == nullptr` and
//   prints "-".
// - Importing/migrating entries name the other node of a migration; they are this node's own
//   business (only `myself` prints them) and are dropped when the other node is removed.
// - Times (ping_sent, pong_recv) are milliseconds since the epoch, as Redis prints them.
#pragma once

#include <array>
#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/crc16.h"

namespace redistp {

class BusLink;

inline constexpr size_t kClusterNodeIdLen = 40;

// Node flags, in the order CLUSTER NODES prints their names.
enum ClusterNodeFlag : uint16_t {
  kNodeMyself = 1 << 0,      // "myself"
  kNodeMaster = 1 << 1,      // "master"
  kNodeSlave = 1 << 2,       // "slave"
  kNodePfail = 1 << 3,       // "fail?": this node thinks the peer is failing
  kNodeFail = 1 << 4,        // "fail": the cluster agreed it failed
  kNodeHandshake = 1 << 5,   // "handshake": met, no first PONG yet (never saved to nodes.conf)
  kNodeNoAddr = 1 << 6,      // "noaddr": address unknown
  kNodeNoFailover = 1 << 7,  // "nofailover": a replica that will not try a failover
};

using SlotBitmap = std::bitset<kClusterSlots>;

struct ClusterNode;

// A master's word, carried by its gossip, that `node` looked unreachable to it at `time_ms`.
// Valid for 2 x cluster-node-timeout (cluster_gossip.h counts and expires them).
struct FailureReport {
  ClusterNode* reporter = nullptr;
  int64_t time_ms = 0;
};

struct ClusterNode {
  std::string id;                      // kClusterNodeIdLen characters
  std::string ip;                      // empty until learned (a fresh node prints ":port@cport")
  int port = 0;                        // client port
  int cport = 0;                       // cluster bus port
  std::string hostname;                // cluster-announce-hostname as gossiped; empty for none
  uint16_t flags = 0;                  // ClusterNodeFlag bits
  ClusterNode* master = nullptr;       // for a replica: its master, if known
  std::vector<ClusterNode*> replicas;  // for a master: the nodes that say they replicate it
  int64_t ping_sent = 0;               // ms; 0 when no PING is outstanding
  int64_t pong_recv = 0;               // ms of the last PONG
  uint64_t config_epoch = 0;
  bool link_connected = false;  // an outgoing bus link is up (myself always prints connected)
  SlotBitmap slots;             // slots this node serves
  int num_slots = 0;            // slots.count(), kept alongside

  // Runtime data of the bus (cluster_bus.h); none of it is saved to nodes.conf.
  int pport = 0;                            // plaintext client port when `port` is TLS
  int64_t ctime = 0;                        // ms when this node was created (handshake expiry)
  int64_t data_received = 0;                // ms of the last frame received from it
  int64_t fail_time = 0;                    // ms when it was flagged FAIL
  int64_t voted_time = 0;                   // ms of our last vote for one of its replicas
  uint64_t repl_offset = 0;                 // as its last header said
  bool had_replicas = false;                // a master that ever had a replica (may be orphaned)
  int64_t orphaned_time = 0;                // ms since it is seen orphaned (replica migration)
  bool meet = false;                        // send MEET rather than PING on the next link
  BusLink* link = nullptr;                  // our outbound link to it
  BusLink* inbound_link = nullptr;          // its link to us, once a frame named it
  std::vector<FailureReport> fail_reports;  // masters that saw it failing
  bool redistp = false;  // it sent a redis-tp bus message (fence_floor.h) since our start

  bool Has(uint16_t flag) const { return (flags & flag) != 0; }
  bool IsMyself() const { return Has(kNodeMyself); }
  bool IsMaster() const { return Has(kNodeMaster); }
  bool IsReplica() const { return Has(kNodeSlave); }
  // The epoch CLUSTER NODES prints: a replica shows its master's (Redis's nodeEpoch).
  uint64_t ShownEpoch() const {
    return IsReplica() && master != nullptr ? master->config_epoch : config_epoch;
  }
};

class ClusterState {
 public:
  ClusterState() { owners_.fill(nullptr); }
  ClusterState(const ClusterState&) = delete;
  ClusterState& operator=(const ClusterState&) = delete;

  uint64_t current_epoch = 0;
  uint64_t last_vote_epoch = 0;
  bool ok = false;  // cluster_state:ok (true) or fail, as last evaluated

  // Nodes in output order (see the essay).
  const std::vector<ClusterNode*>& nodes() const { return order_; }
  ClusterNode* Lookup(std::string_view id) const;
  ClusterNode* myself() const { return myself_; }

  // Adds a node with `id` (which must not be known yet) and `flags`; returns it. When the
  // flags include kNodeMyself it becomes myself() (the caller ensures there is only one).
  ClusterNode* CreateNode(std::string_view id, uint16_t flags);
  // Makes `node` myself() (sets kNodeMyself); there must be no other myself.
  void MarkMyself(ClusterNode* node);
  // Forgets `node`: its slots become unassigned, its replicas lose their master, it leaves its
  // master's replica list, migrations naming it end, and the failure reports it made about
  // other nodes are dropped. `node` is freed; must not be myself. The caller closes its bus
  // links first (the links point at it).
  void RemoveNode(ClusterNode* node);
  // Makes `replica` a replica of `master` (null: of no known node), leaving its old master's list.
  void SetMaster(ClusterNode* replica, ClusterNode* master);
  // Changes a node's id (a handshake node learns its peer's real id); `id` must be unknown.
  void RenameNode(ClusterNode* node, std::string_view id);

  // The node serving `slot` (0..16383), or null.
  ClusterNode* owner(int slot) const { return owners_[static_cast<size_t>(slot)]; }
  // Gives `slot` to `node`; false (nothing changed) if the slot already has an owner.
  bool AssignSlot(int slot, ClusterNode* node);
  // Leaves `slot` without an owner; false if it had none.
  bool UnassignSlot(int slot);

  // Slot migrations seen from this node: the node `slot` is being moved to / taken from.
  ClusterNode* migrating_to(int slot) const;
  ClusterNode* importing_from(int slot) const;
  void SetMigrating(int slot, ClusterNode* to);    // null ends it
  void SetImporting(int slot, ClusterNode* from);  // null ends it
  // Ends every migration and import (a node turning replica, CLUSTER RESET).
  void CloseAllSlots() {
    migrating_.clear();
    importing_.clear();
  }
  const std::map<int, ClusterNode*>& migrating() const { return migrating_; }
  const std::map<int, ClusterNode*>& importing() const { return importing_; }

  // cluster_size: masters serving at least one slot.
  int Size() const;
  // Slots with an owner, and those whose owner is in PFAIL / FAIL (CLUSTER INFO's counters).
  int SlotsAssigned() const;
  int SlotsWithFlag(uint16_t flag) const;
  // The largest config epoch of any node.
  uint64_t MaxConfigEpoch() const;

 private:
  std::unordered_map<std::string, std::unique_ptr<ClusterNode>> by_id_;
  std::vector<ClusterNode*> order_;
  ClusterNode* myself_ = nullptr;
  std::array<ClusterNode*, kClusterSlots> owners_;
  std::map<int, ClusterNode*> migrating_;
  std::map<int, ClusterNode*> importing_;
};

// 40 random lowercase hex characters, a fresh node id.
std::string RandomClusterNodeId();

}  // namespace redistp
