// ClusterBus: what a frame received on a link does to the view (model in cluster_bus.h, rules
// in cluster_gossip.h). The order of the steps is Redis 7.0's: the sender's epochs first, then
// by type; for PING/PONG/MEET the handshake, the PONG's bookkeeping, the sender's role, its slot
// claim, epoch collisions, and last the gossip section.
#include <string>

#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "cluster/cluster_gossip.h"
#include "cluster/fence_floor.h"
#include "server/log.h"
#include "server/pubsub.h"
#include "server/server.h"

namespace redistp {

namespace {

bool NameIsNull(const BusName& n) {
  for (char c : n) {
    if (c != 0) return false;
  }
  return true;
}

}  // namespace

void ClusterBus::OnLinkFrame(BusLink* link, const BusMessage& msg) {
  const BusHeader& hdr = msg.hdr;
  if (hdr.ver != kBusProtocolVersion) return;
  const int64_t t = now();
  ClusterNode* sender = state().Lookup(BusNameView(hdr.sender));
  // A node in handshake is no sender yet, and neither is myself (a MEET sent to our own
  // address comes back to us).
  if (sender != nullptr && (sender->Has(kNodeHandshake) || sender->IsMyself())) sender = nullptr;
  if (sender != nullptr) {
    sender->data_received = t;
    // The sender's link to us is known from now on (CLUSTER LINKS lists it).
    if (link->dir() == BusLink::Dir::kFrom && link->node == nullptr) {
      if (sender->inbound_link != nullptr) sender->inbound_link->node = nullptr;
      sender->inbound_link = link;
      link->node = sender;
    }
    if (hdr.current_epoch > state().current_epoch) {
      state().current_epoch = hdr.current_epoch;
      cluster_.Changed();
    }
    if (hdr.config_epoch > sender->config_epoch) {
      sender->config_epoch = hdr.config_epoch;
      cluster_.Changed();
    }
    sender->repl_offset = hdr.offset;
    NoteMasterPaused(hdr, sender);
  }
  switch (msg.type()) {
    case BusType::kPing:
    case BusType::kPong:
    case BusType::kMeet:
      ProcessPingLike(link, msg, sender);
      break;
    case BusType::kFail:
      ProcessFail(msg, sender);
      break;
    case BusType::kPublish:
    case BusType::kPublishShard:
      if (sender == nullptr) break;
      if (msg.type() == BusType::kPublish) {
        server_.pubsub().Publish(msg.channel, msg.message);
      } else {
        server_.pubsub().PublishShard(msg.channel, msg.message);
      }
      break;
    case BusType::kUpdate:
      ProcessUpdate(msg, sender);
      break;
    case BusType::kFailoverAuthRequest:
      ProcessAuthRequest(msg, sender);
      break;
    case BusType::kFailoverAuthAck:
      ProcessAuthAck(msg, sender);
      break;
    case BusType::kMfStart:
      ProcessMfStart(sender);
      break;
    case BusType::kModule:
      // Another module's messages are not for this node (a Redis node without that module
      // drops them too).
      if (IsTpBusMessage(msg)) ProcessTpModule(msg, sender);
      break;
    default:
      break;
  }
}

void ClusterBus::ProcessPingLike(BusLink* link, const BusMessage& msg, ClusterNode* sender) {
  const BusHeader& hdr = msg.hdr;
  const BusType type = msg.type();
  const Config& cfg = server_.config();
  const int64_t t = now();
  if (type == BusType::kPing || type == BusType::kMeet) {
    // Only a cluster node sends MEET, so the address it reached us on is ours.
    ClusterNode& me = myself();
    if ((type == BusType::kMeet || me.ip.empty()) && cfg.cluster_announce_ip.empty() &&
        !link->local_ip().empty() && me.ip != link->local_ip()) {
      me.ip = link->local_ip();
      server_.log().Log(LogLevel::kWarning, "IP address for this node updated to %s",
                        me.ip.c_str());
      cluster_.Changed();
    }
    if (sender == nullptr && type == BusType::kMeet) {
      ClusterNode* n = state().CreateNode(RandomClusterNodeId(), kNodeHandshake);
      const std::string_view myip = BusIpView(hdr.myip);
      n->ip = myip.empty() ? link->peer_ip() : std::string(myip);
      n->port = hdr.port;
      n->pport = hdr.pport;
      n->cport = hdr.cport;
      n->ctime = t;
      cluster_.Changed();
    }
    SendPing(link, BusType::kPong);
  }

  if (link->dir() == BusLink::Dir::kTo && link->node != nullptr) {
    ClusterNode* node = link->node;
    if (node->Has(kNodeHandshake)) {
      ClusterNode* known = state().Lookup(BusNameView(hdr.sender));
      if (known != nullptr) {
        // We met a node we know already under its real id (or ourselves): keep that one.
        server_.log().Log(LogLevel::kVerbose,
                          "Handshake: we already know node %.40s, updating the address if "
                          "needed.",
                          known->id.c_str());
        if (sender != nullptr) UpdateAddress(sender, link, hdr);
        DeleteNode(node);
        return;
      }
      const std::string real(BusNameView(hdr.sender));
      state().RenameNode(node, real);
      server_.log().Log(LogLevel::kDebug, "Handshake with node %.40s completed.", real.c_str());
      node->flags &= static_cast<uint16_t>(~kNodeHandshake);
      node->flags |= NodeFlagsFromBus(hdr.flags) & (kNodeMaster | kNodeSlave);
      cluster_.Changed();
    } else if (node->id != BusNameView(hdr.sender)) {
      // The address now answers with another id: the node we knew is gone from it.
      server_.log().Log(LogLevel::kVerbose,
                        "PONG contains mismatching sender ID. About node %.40s added %d ms ago, "
                        "having flags %d",
                        node->id.c_str(), static_cast<int>(t - node->ctime), node->flags);
      node->flags |= kNodeNoAddr;
      node->ip.clear();
      node->port = node->pport = node->cport = 0;
      FreeLink(link);
      cluster_.Changed();
      return;
    }
  }

  if (sender != nullptr && type == BusType::kPing && UpdateAddress(sender, link, hdr)) {
    cluster_.Changed();
  }

  if (link->dir() == BusLink::Dir::kTo && link->node != nullptr && type == BusType::kPong) {
    ClusterNode* node = link->node;
    node->pong_recv = t;
    node->ping_sent = 0;
    if (node->Has(kNodePfail)) {
      node->flags &= static_cast<uint16_t>(~kNodePfail);
      cluster_.Changed();
    } else if (node->Has(kNodeFail)) {
      ClearFailureIfNeeded(node);
    }
  }

  if (sender == nullptr) return;
  // The sender says whether it would stand for election (cluster-replica-no-failover).
  const uint16_t nofailover = NodeFlagsFromBus(hdr.flags) & kNodeNoFailover;
  if ((sender->flags & kNodeNoFailover) != nofailover) {
    sender->flags = static_cast<uint16_t>((sender->flags & ~kNodeNoFailover) | nofailover);
    cluster_.Changed();
  }
  ApplyRole(sender, hdr);

  // The hostname extension (none: the sender announces no hostname).
  std::string hostname;
  for (const BusPingExt& ext : msg.exts) {
    if (ext.type == kBusExtHostname) hostname = std::string(BusHostnameOf(ext));
  }
  if (sender->hostname != hostname) {
    sender->hostname = hostname;
    cluster_.Changed();
  }

  ClusterNode* shard = sender->IsMaster() ? sender : sender->master;
  const bool dirty = shard != nullptr && ToBusSlots(shard->slots) != hdr.myslots;
  if (sender->IsMaster() && dirty) ApplyClaim(sender, hdr.config_epoch, hdr.myslots);
  if (dirty) {
    ClusterNode* owner = StaleClaimOwner(state(), sender, hdr.config_epoch, hdr.myslots);
    if (owner != nullptr) {
      server_.log().Log(LogLevel::kVerbose,
                        "Node %.40s has old slots configuration, sending an UPDATE message "
                        "about %.40s",
                        sender->id.c_str(), owner->id.c_str());
      SendUpdate(sender->link, *owner);
    }
  }
  if (myself().IsMaster() && sender->IsMaster() && hdr.config_epoch == myself().config_epoch &&
      ResolveEpochCollision(state(), *sender)) {
    server_.log().Log(LogLevel::kVerbose,
                      "WARNING: configEpoch collision with node %.40s. configEpoch set to %llu",
                      sender->id.c_str(), static_cast<unsigned long long>(myself().config_epoch));
    cluster_.Changed();
  }
  ProcessGossip(msg, sender);
}

// Whether the header shows `node` at another address than we know (ip from the header's myip,
// else the link's peer); if so the address changes and the old outbound link is dropped.
bool ClusterBus::UpdateAddress(ClusterNode* node, BusLink* link, const BusHeader& hdr) {
  if (link == node->link) return false;  // we reached it there: the address is right
  const std::string_view myip = BusIpView(hdr.myip);
  const std::string ip = myip.empty() ? link->peer_ip() : std::string(myip);
  if (node->ip == ip && node->port == hdr.port && node->cport == hdr.cport &&
      node->pport == hdr.pport) {
    return false;
  }
  node->ip = ip;
  node->port = hdr.port;
  node->pport = hdr.pport;
  node->cport = hdr.cport;
  if (node->link != nullptr) FreeLink(node->link);
  node->flags &= static_cast<uint16_t>(~kNodeNoAddr);
  server_.log().Log(LogLevel::kNotice, "Address updated for node %.40s, now %s:%d",
                    node->id.c_str(), node->ip.c_str(), node->port);
  return true;
}

void ClusterBus::SetAsMaster(ClusterNode* node) {
  if (node->IsMaster()) return;
  state().SetMaster(node, nullptr);
  node->flags &= static_cast<uint16_t>(~kNodeSlave);
  node->flags |= kNodeMaster;
  cluster_.Changed();
}

void ClusterBus::ApplyRole(ClusterNode* sender, const BusHeader& hdr) {
  if (NameIsNull(hdr.slaveof)) {
    SetAsMaster(sender);
    return;
  }
  ClusterNode* master = state().Lookup(BusNameView(hdr.slaveof));
  if (sender->IsMaster()) {
    // A master turned into a replica: it serves no slots any more.
    for (int slot = 0; slot < kClusterSlots && sender->num_slots > 0; ++slot) {
      if (state().owner(slot) == sender) state().UnassignSlot(slot);
    }
    sender->flags &= static_cast<uint16_t>(~kNodeMaster);
    sender->flags |= kNodeSlave;
    cluster_.Changed();
  }
  if (master != nullptr && sender->master != master) {
    state().SetMaster(sender, master);
    cluster_.Changed();
  }
}

void ClusterBus::ApplyClaim(ClusterNode* sender, uint64_t epoch, const BusSlots& slots) {
  SlotClaimResult res = ApplySlotClaim(state(), sender, epoch, slots);
  if (!res.changed) return;
  // Slots of mine went to the claimer (often before redis-cli's SETSLOT NODE reaches me): its
  // tokens for their keys must be above mine.
  if (!res.lost_slots.empty()) SendFenceFloor(sender);
  // Saved without fsync, where Redis fsyncs: an owner learned from a claim with a greater
  // config epoch is learned again from the same claim after a crash (the epochs, which must
  // never go back, are fsynced where they change). In a reshard every other master learns
  // each moved slot here, often before redis-cli's SETSLOT NODE reaches it, and an fsync of
  // the file and its directory (5-15 ms on this machine) per slot made it several times
  // slower than on Redis, whose in-place fsync is cheaper.
  cluster_.ChangedNoFsync();
  // Myself's shard has no slot left and the claimer took them: follow the claimer (a failover
  // elected another replica, or the old master is back). Without replica migration, only when
  // every slot of the claimer came from this shard (a failover, not a resharding).
  if (res.my_shard_emptied && (server_.config().cluster_allow_replica_migration ||
                               res.moved_from_my_shard == res.claimed)) {
    server_.log().Log(LogLevel::kWarning,
                      "Configuration change detected. Reconfiguring myself as a replica of "
                      "%.40s",
                      sender->id.c_str());
    // The keys of the lost slots go with the full sync from the new master.
    cluster_.SetMyMaster(sender);
    election_ = Election{};
    ResetManualFailover();
    return;
  }
  if (!res.lost_slots.empty()) cluster_.DropKeysInSlots(res.lost_slots);
}

void ClusterBus::ProcessGossip(const BusMessage& msg, ClusterNode* sender) {
  const int64_t t = now();
  for (const BusGossip& g : msg.gossip) {
    const uint16_t flags = g.flags;
    ClusterNode* node = state().Lookup(BusNameView(g.nodename));
    if (node == nullptr) {
      if ((flags & kBusNodeNoAddr) != 0 || Banned(BusNameView(g.nodename))) continue;
      // A known node vouches for it: added with its id and flags, the cron links to it.
      const uint16_t keep = kNodeMaster | kNodeSlave | kNodePfail | kNodeFail | kNodeNoFailover;
      node = state().CreateNode(BusNameView(g.nodename), NodeFlagsFromBus(flags) & keep);
      node->ip = std::string(BusIpView(g.ip));
      node->port = g.port;
      node->pport = g.pport;
      node->cport = g.cport;
      node->ctime = t;
      cluster_.Changed();
      continue;
    }
    const bool failing = (flags & (kBusNodePfail | kBusNodeFail)) != 0;
    if (sender->IsMaster() && !node->IsMyself()) {
      if (failing) {
        if (AddFailureReport(node, sender, t)) {
          server_.log().Log(LogLevel::kVerbose, "Node %.40s reported node %.40s as not reachable.",
                            sender->id.c_str(), node->id.c_str());
        }
        MarkFailingIfNeeded(node);
      } else if (DelFailureReport(node, sender)) {
        server_.log().Log(LogLevel::kVerbose, "Node %.40s reported node %.40s is back online.",
                          sender->id.c_str(), node->id.c_str());
      }
    }
    // A node seen up by its peers, with no PING of ours pending and no reports: their PONG
    // time is as good as ours.
    if (!failing && node->ping_sent == 0 && node->fail_reports.empty()) {
      const int64_t pong = static_cast<int64_t>(g.pong_received) * 1000;
      if (pong <= t + 500 && pong > node->pong_recv) node->pong_recv = pong;
    }
    // Unreachable here but reachable there at another address: try that one.
    const std::string_view gip = BusIpView(g.ip);
    if ((node->Has(kNodePfail) || node->Has(kNodeFail)) && (flags & kBusNodeNoAddr) == 0 &&
        !failing && (node->ip != gip || node->port != g.port || node->cport != g.cport)) {
      if (node->link != nullptr) FreeLink(node->link);
      node->ip = std::string(gip);
      node->port = g.port;
      node->pport = g.pport;
      node->cport = g.cport;
      node->flags &= static_cast<uint16_t>(~kNodeNoAddr);
    }
  }
}

void ClusterBus::MarkFailingIfNeeded(ClusterNode* node) {
  if (!node->Has(kNodePfail) || node->Has(kNodeFail)) return;
  if (!FailQuorumReached(state(), node, cluster_.size(), now(), node_timeout())) return;
  server_.log().Log(LogLevel::kNotice, "Marking node %.40s as failing (quorum reached).",
                    node->id.c_str());
  node->flags &= static_cast<uint16_t>(~kNodePfail);
  node->flags |= kNodeFail;
  node->fail_time = now();
  EndFenceFloorWaits(*node, "flagged FAIL");
  // Everyone reachable learns it at once, replicas included.
  SendFail(*node);
  cluster_.Changed();
}

void ClusterBus::ClearFailureIfNeeded(ClusterNode* node) {
  const int64_t t = now();
  if (node->IsReplica() || node->num_slots == 0) {
    server_.log().Log(LogLevel::kNotice, "Clear FAIL state for node %.40s: %s is reachable again.",
                      node->id.c_str(), node->IsReplica() ? "replica" : "master without slots");
    node->flags &= static_cast<uint16_t>(~kNodeFail);
    cluster_.Changed();
    return;
  }
  // A master still serving slots: nobody took them over in 2 x node timeout, so it keeps them.
  if (t - node->fail_time > 2 * node_timeout()) {
    server_.log().Log(LogLevel::kNotice,
                      "Clear FAIL state for node %.40s: is reachable again and nobody is serving "
                      "its slots after some time.",
                      node->id.c_str());
    node->flags &= static_cast<uint16_t>(~kNodeFail);
    cluster_.Changed();
  }
}

void ClusterBus::ProcessFail(const BusMessage& msg, ClusterNode* sender) {
  if (sender == nullptr) {
    server_.log().Log(LogLevel::kVerbose,
                      "Ignoring FAIL message from unknown node %.40s about %.40s",
                      std::string(BusNameView(msg.hdr.sender)).c_str(),
                      std::string(BusNameView(msg.fail_node)).c_str());
    return;
  }
  ClusterNode* failing = state().Lookup(BusNameView(msg.fail_node));
  if (failing == nullptr || failing->Has(kNodeFail) || failing->IsMyself()) return;
  server_.log().Log(LogLevel::kNotice, "FAIL message received from %.40s about %.40s",
                    sender->id.c_str(), failing->id.c_str());
  failing->flags |= kNodeFail;
  failing->flags &= static_cast<uint16_t>(~kNodePfail);
  failing->fail_time = now();
  EndFenceFloorWaits(*failing, "flagged FAIL");
  cluster_.Changed();
}

void ClusterBus::ProcessUpdate(const BusMessage& msg, ClusterNode* sender) {
  if (sender == nullptr) return;
  ClusterNode* n = state().Lookup(BusNameView(msg.update_node));
  if (n == nullptr || n->config_epoch >= msg.update_config_epoch) return;
  if (n->IsReplica()) SetAsMaster(n);
  n->config_epoch = msg.update_config_epoch;
  cluster_.Changed();
  ApplyClaim(n, msg.update_config_epoch, msg.update_slots);
}

void ClusterBus::ProcessAuthRequest(const BusMessage& msg, ClusterNode* sender) {
  if (sender == nullptr) return;
  ClusterState& st = state();
  ClusterNode& me = myself();
  const BusHeader& hdr = msg.hdr;
  // Only masters serving slots make up the quorum, so only they vote.
  if (!me.IsMaster() || me.num_slots == 0) return;
  Logger& log = server_.log();
  const char* who = sender->id.c_str();
  if (hdr.current_epoch < st.current_epoch) {
    log.Log(LogLevel::kWarning, "Failover auth denied to %.40s: reqEpoch (%llu) < curEpoch(%llu)",
            who, static_cast<unsigned long long>(hdr.current_epoch),
            static_cast<unsigned long long>(st.current_epoch));
    return;
  }
  if (st.last_vote_epoch == st.current_epoch) {
    log.Log(LogLevel::kWarning, "Failover auth denied to %.40s: already voted for epoch %llu", who,
            static_cast<unsigned long long>(st.current_epoch));
    return;
  }
  ClusterNode* master = sender->master;
  const bool force = (hdr.mflags[0] & kBusMsgForceAck) != 0;
  if (sender->IsMaster() || master == nullptr || (!master->Has(kNodeFail) && !force)) {
    log.Log(LogLevel::kWarning, "Failover auth denied to %.40s: %s", who,
            sender->IsMaster()  ? "it is a master node"
            : master == nullptr ? "I don't know its master"
                                : "its master is up");
    return;
  }
  const int64_t t = now();
  if (t - master->voted_time < 2 * node_timeout()) {
    log.Log(LogLevel::kWarning,
            "Failover auth denied to %.40s: can't vote about this master before %lld milliseconds",
            who, static_cast<long long>(2 * node_timeout() - (t - master->voted_time)));
    return;
  }
  // The replica's view of its slots must be at least as new as ours.
  for (int slot = 0; slot < kClusterSlots; ++slot) {
    if (!BusSlotIsSet(hdr.myslots, slot)) continue;
    const ClusterNode* owner = st.owner(slot);
    if (owner == nullptr || owner->config_epoch <= hdr.config_epoch) continue;
    log.Log(LogLevel::kWarning,
            "Failover auth denied to %.40s: slot %d epoch (%llu) > reqEpoch (%llu)", who, slot,
            static_cast<unsigned long long>(owner->config_epoch),
            static_cast<unsigned long long>(hdr.config_epoch));
    return;
  }
  st.last_vote_epoch = st.current_epoch;
  master->voted_time = t;
  // The vote (lastVoteEpoch) is on disk before it leaves, so a restart cannot vote twice.
  if (!cluster_.SaveNow().ok()) return;
  if (sender->link != nullptr) net_->Send(sender->link, Header(BusType::kFailoverAuthAck));
  log.Log(LogLevel::kWarning, "Failover auth granted to %.40s for epoch %llu", who,
          static_cast<unsigned long long>(st.current_epoch));
}

}  // namespace redistp
