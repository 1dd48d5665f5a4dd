// ClusterBus: the cluster bus's protocol, Redis 7.0's gossip between the nodes of a cluster,
// spoken over the links of bus_link.h and applied to the ClusterState of the Cluster subsystem.
//
// Model. The Cluster subsystem owns one ClusterBus, which owns the BusNet (listener and links)
// and a 100 ms timer (the bus cron: Redis runs its cluster cron ten times a second whatever
// hz is). Every other node has at most one outbound link (`ClusterNode::link`, opened by the
// cron, MEET or PING sent as soon as it is) and one inbound link (`inbound_link`, tied to the
// node by the first frame that names a known sender). A link and the node it names always
// point at each other: closing a link clears the node's pointer, removing a node closes every
// link naming it (DeleteNode, the one way a node leaves the view from the bus's side).
//
// Joining (spec, "MEET message"). CLUSTER MEET creates a node in handshake with a random id and
// sends it MEET; the peer, not knowing us, creates a handshake node for us and answers PONG;
// the first PONG on an outbound link to a handshake node renames it to the sender's real id
// (or drops it when that id is known already). A handshake that does not complete within the
// node timeout (at least 1 s) is dropped. A node learns its own ip from the local address of
// the link a MEET arrived on (or any PING while it has none), unless cluster-announce-ip is
// set. Nodes named in a gossip section by a known node are added directly, with their id and
// flags, unless FORGET banned them in the last 60 s.
//
// Heartbeat (cron). Every second a PING to the node with the oldest PONG among five random
// ones; a PING to any node whose PONG is older than node-timeout/2; a link whose PING is
// unanswered and which received nothing for node-timeout/2 is closed (the cron reconnects);
// a node without a PONG for node-timeout is flagged PFAIL. Then the rules of cluster_gossip.h:
// failure reports, FAIL (broadcast), slot claims, UPDATE, epoch collisions.
//
// Votes (spec, "Masters reply to replica vote request"). A master serving slots answers a
// replica's FAILOVER_AUTH_REQUEST with FAILOVER_AUTH_ACK at most once per epoch, only for the
// replica of a master flagged FAIL (or a forced manual failover), not twice for replicas of one
// master within 2 x node timeout, and only when no claimed slot has an owner with a greater
// config epoch than the request's; so a Redis replica of a redis-tp master can be elected.
// As a replica this node stands for election itself, automatically or by CLUSTER FAILOVER
// (cluster_bus_failover.cc, rules in cluster_election.h).
//
// Fence floors (cluster_bus_fence.cc, wire in fence_floor.h). A slot that leaves this node
// (SETSLOT MIGRATING to a node, SETSLOT NODE to another node, DELSLOTS/FLUSHSLOTS, a slot lost
// to a claim with a greater epoch) sends this node's fencing floor to the node that takes it
// (everyone for DELSLOTS); a node that takes or imports a slot (SETSLOT IMPORTING, SETSLOT NODE
// myself, ADDSLOTS) asks the previous owner (everyone for ADDSLOTS) for its floor; and every
// outbound link that connects to a known node carries my floor once (a floor that found no link
// when its slot moved arrives then, no lower). A floor received raises the fencing counter
// durably. A new durable mark while a slot of this node migrates goes to the slot's target
// before the token that needed it is handed out.
//
// Waiting for a floor. A node that imports a slot, or takes it by SETSLOT NODE without an
// import whose floor arrived, from a node that speaks redis-tp (it sent us a redis-tp message:
// every redis-tp node sends its floor on each link it connects) refuses to draw a fencing token
// for a key of that slot (SETTP/BSETTP ... FENCE: TRYAGAIN, cluster_route.cc) until that
// node's floor arrives. The wait ends without the floor when that node is flagged FAIL or
// leaves the view (logged as a warning), or the slot is set STABLE or given to a third node.
//
// Every change of the view calls Cluster::Changed() (saved and re-evaluated before the
// replies of this loop turn). Frames come in from the event loop; nothing here blocks.
#pragma once

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cluster/bus_link.h"
#include "cluster/bus_message.h"
#include "cluster/cluster_election.h"
#include "cluster/cluster_state.h"
#include "server/event_handle.h"
#include "util/status.h"
#include "watch/fence.h"

namespace redistp {

class Cluster;
class Server;

class ClusterBus final : public BusLinkOwner, public FenceListener {
 public:
  ClusterBus(Server& server, Cluster& cluster);
  ~ClusterBus() override;
  ClusterBus(const ClusterBus&) = delete;
  ClusterBus& operator=(const ClusterBus&) = delete;

  // Listens on the bus port of every bind address and starts the cron timer. Error: logged.
  Status Start();

  // CLUSTER MEET: starts a handshake with ip:port@cport. False for an address Redis refuses
  // (not an IPv4/IPv6 literal, a port outside 1..65535); a handshake already under way with the
  // same address is not repeated (still true).
  bool Meet(std::string_view ip, int64_t port, int64_t cport);
  // CLUSTER FORGET: `node` (not myself) leaves the view and is banned from gossip for 60 s.
  void Forget(ClusterNode* node);
  // Closes every link naming `node`, then removes it from the state.
  void DeleteNode(ClusterNode* node);
  // CLUSTER RESET: every link is closed (the nodes go next).
  void CloseAllLinks();
  // A PONG to every node with a link (not in handshake), so that a change of myself's slots or
  // epoch is known at once rather than at the next ping (Redis's clusterBroadcastPong(ALL)).
  // Sent in the next loop turn, after this turn's replies, as Redis's link buffers are written:
  // redis-cli's next SETSLOT NODE to another node then arrives before the PONG, so that node
  // takes the slot from the command (saved without fsync) rather than from the bus (fsynced).
  void BroadcastPongSoon();
  // PUBLISH (every node) and SPUBLISH (the nodes of myself's shard) across the cluster.
  void Publish(std::string_view channel, std::string_view message, bool shard);
  // PUBLISHSHARD to another shard: `master` and its replicas (an existence event whose shard
  // channel another master serves: watchex_forward.h).
  void PublishToShard(ClusterNode* master, std::string_view channel, std::string_view message);
  // CLUSTER COUNT-FAILURE-REPORTS: the valid reports about `node`.
  int FailureReports(ClusterNode* node);

  // CLUSTER FAILOVER on a replica (cluster_bus_failover.cc). kDefault: the master is asked to
  // pause its writers (MFSTART) and report its offset; once this replica has applied that much
  // the election runs with votes forced. kForce: the election runs at once, votes forced.
  // kTakeover: no election, a new config epoch of its own and the master's slots.
  enum class ManualFailover { kDefault, kForce, kTakeover };
  void StartManualFailover(ManualFailover mode);
  // Ends a manual failover under way (either side); a master resumes its paused writers.
  void ResetManualFailover();
  // An election for myself's master's slots was won: PromoteMyself and tell every node.
  void ReplaceMyMaster();

  // Fence floors (see the essay). Nothing is sent to myself, to a node in handshake or to a
  // node without a link.
  void SendFenceFloor(ClusterNode* to);
  void BroadcastFenceFloor();
  void RequestFenceFloor(ClusterNode* from);
  void BroadcastFenceFloorRequest();
  // Waits for `from`'s floor before tokens are drawn for `slot`'s keys (see the essay); nothing
  // when `from` is not known to speak redis-tp.
  void AwaitFenceFloor(int slot, ClusterNode* from);
  // Whether a token for a key of `slot` must wait (O(1), a null test when nothing waits).
  bool FenceFloorAwaited(int slot) const {
    return !floor_waits_.empty() && floor_waits_.count(slot) != 0;
  }
  bool AnyFenceFloorAwaited() const { return !floor_waits_.empty(); }
  // The slot's wait ends without a floor (STABLE, given to another node).
  void EndFenceFloorWait(int slot);
  // Every wait for `from` ends without its floor (FAIL, removed), logged with `why`.
  void EndFenceFloorWaits(const ClusterNode& from, const char* why);
  // FenceListener: a new durable mark goes to every node a slot of mine migrates to.
  void OnReserved(uint64_t mark) override;

  // Statistics and links, for CLUSTER INFO / LINKS and INFO.
  const BusNet& net() const { return *net_; }

  // BusLinkOwner.
  void OnLinkAccepted(BusLink* link) override;
  void OnLinkConnected(BusLink* link) override;
  void OnLinkFrame(BusLink* link, const BusMessage& msg) override;
  void OnLinkClosed(BusLink* link) override;

  // One bus cron tick (the timer calls it every 100 ms; public for the timer callback).
  void Cron();

 private:
  static void OnTimer(int fd, short what, void* arg);
  static void OnPongTimer(int fd, short what, void* arg);
  void BroadcastPong();
  int64_t now() const;
  int64_t node_timeout() const;
  ClusterState& state();
  ClusterNode& myself();

  // Frames out.
  BusMessage Header(BusType type);
  void SendPing(BusLink* link, BusType type);
  void SendFail(const ClusterNode& failing);
  void SendUpdate(BusLink* link, const ClusterNode& about);
  void Broadcast(const BusMessage& m);
  // Frames in (cluster_bus_recv.cc).
  void ProcessPingLike(BusLink* link, const BusMessage& msg, ClusterNode* sender);
  void ProcessGossip(const BusMessage& msg, ClusterNode* sender);
  void ProcessFail(const BusMessage& msg, ClusterNode* sender);
  void ProcessUpdate(const BusMessage& msg, ClusterNode* sender);
  void ProcessAuthRequest(const BusMessage& msg, ClusterNode* sender);
  void ProcessTpModule(const BusMessage& msg, ClusterNode* sender);
  BusMessage FenceFloorFrame();
  void ApplyRole(ClusterNode* sender, const BusHeader& hdr);
  void ApplyClaim(ClusterNode* sender, uint64_t epoch, const BusSlots& slots);
  bool UpdateAddress(ClusterNode* node, BusLink* link, const BusHeader& hdr);
  void MarkFailingIfNeeded(ClusterNode* node);
  void ClearFailureIfNeeded(ClusterNode* node);
  void SetAsMaster(ClusterNode* node);

  // Replica failover (cluster_bus_failover.cc).
  void HandleReplicaFailover();
  void HandleManualFailover();
  void HandleReplicaMigration();
  void CheckManualFailoverTimeout();
  void LogCantFailover(int reason);
  void RequestFailoverAuth();
  void ProcessAuthAck(const BusMessage& msg, ClusterNode* sender);
  void ProcessMfStart(ClusterNode* sender);
  void NoteMasterPaused(const BusHeader& hdr, ClusterNode* sender);
  // A PONG to every node, or only to the replicas of myself's shard.
  void BroadcastPong(bool shard_replicas_only);
  uint64_t MyReplOffset();

  void FreeLink(BusLink* link);
  void CronNode(ClusterNode* node, bool* update_state);
  bool Banned(std::string_view id);

  Server& server_;
  Cluster& cluster_;
  std::unique_ptr<BusNet> net_;
  EventPtr timer_;
  EventPtr pong_timer_;  // BroadcastPongSoon: one shot, zero timeout
  uint64_t iteration_ = 0;
  std::mt19937_64 rng_;
  std::unordered_map<std::string, int64_t> banned_;  // FORGET: id -> ms until it may return
  Election election_;
  bool listening_fences_ = false;  // Start() made this the fencing counter's listener
  std::unordered_map<int, std::string> floor_waits_;  // slot -> id of the node awaited
  // A manual failover under way (Redis's mf_*): until `end` (ms, 0: none). On a replica,
  // whether the election may start and the offset its paused master reported (-1: not yet);
  // on a master, the replica it paused for.
  struct Manual {
    int64_t end = 0;
    bool can_start = false;
    int64_t master_offset = -1;
    std::string replica_id;
  } mf_;
};

}  // namespace redistp
