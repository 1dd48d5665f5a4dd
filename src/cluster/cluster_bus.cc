// ClusterBus: links, the cron, and the frames this node sends (model in cluster_bus.h; the
// frames it receives are handled in cluster_bus_recv.cc).
#include "cluster/cluster_bus.h"

#include <arpa/inet.h>
#include <event2/event.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cluster/cluster.h"
#include "cluster/cluster_gossip.h"
#include "replication/replication.h"
#include "server/log.h"
#include "server/server.h"
#include "watch/owners.h"

namespace redistp {

namespace {

constexpr int64_t kCronPeriodMs = 100;
constexpr int64_t kMinHandshakeTimeoutMs = 1000;
constexpr int64_t kBanSeconds = 60;  // FORGET keeps a node out of gossip this long
constexpr int kPingCandidates = 5;   // the once-a-second PING picks the oldest PONG of five

int64_t ServerNowMs(void* arg) { return static_cast<Server*>(arg)->NowMs(); }

int BusPort(const Config& cfg) {
  return cfg.cluster_port != 0 ? cfg.cluster_port : cfg.port + 10000;
}

// The ports this node announces (Redis's deriveAnnouncedPorts): with tls-cluster the client
// port is the TLS one and pport the plaintext one; each may be replaced by its
// cluster-announce-* value, and the bus port by cluster-announce-bus-port.
void AnnouncedPorts(const Config& cfg, int* port, int* pport, int* cport) {
  *port = cfg.tls_cluster ? cfg.tls_port : cfg.port;
  *pport = cfg.tls_cluster ? cfg.port : 0;
  if (cfg.tls_cluster) {
    if (cfg.cluster_announce_tls_port != 0) *port = cfg.cluster_announce_tls_port;
    if (cfg.cluster_announce_port != 0) *pport = cfg.cluster_announce_port;
  } else if (cfg.cluster_announce_port != 0) {
    *port = cfg.cluster_announce_port;
  }
  *cport = cfg.cluster_announce_bus_port != 0 ? cfg.cluster_announce_bus_port : BusPort(cfg);
}

// Redis's address check for MEET: an IPv4 or IPv6 literal, in its normal text form.
bool NormalizeIp(std::string_view ip, std::string* out) {
  std::string text(ip);
  unsigned char buf[sizeof(in6_addr)];
  char norm[INET6_ADDRSTRLEN];
  if (inet_pton(AF_INET, text.c_str(), buf) == 1) {
    inet_ntop(AF_INET, buf, norm, sizeof(norm));
  } else if (inet_pton(AF_INET6, text.c_str(), buf) == 1) {
    inet_ntop(AF_INET6, buf, norm, sizeof(norm));
  } else {
    return false;
  }
  *out = norm;
  return true;
}

}  // namespace

ClusterBus::ClusterBus(Server& server, Cluster& cluster)
    : server_(server), cluster_(cluster), rng_(std::random_device{}()) {
  net_ = std::make_unique<BusNet>(server.event_loop(), *this, server.log(), &ServerNowMs, &server);
}

ClusterBus::~ClusterBus() {
  FenceCounter& fences = server_.owners().fences();
  if (listening_fences_) fences.set_listener(nullptr);
}

int64_t ClusterBus::now() const { return server_.NowMs(); }
int64_t ClusterBus::node_timeout() const { return server_.config().cluster_node_timeout; }
ClusterState& ClusterBus::state() { return cluster_.state(); }
ClusterNode& ClusterBus::myself() { return cluster_.myself(); }

Status ClusterBus::Start() {
  Status s = net_->Listen(server_.config().bind, BusPort(server_.config()));
  if (!s.ok()) return s;
  server_.AddChildListenerCloser([this] { net_->CloseListenersInChild(); });
  timer_.reset(event_new(server_.event_loop(), -1, EV_PERSIST, &ClusterBus::OnTimer, this));
  timeval tv{0, static_cast<suseconds_t>(kCronPeriodMs * 1000)};
  event_add(timer_.get(), &tv);
  pong_timer_.reset(event_new(server_.event_loop(), -1, 0, &ClusterBus::OnPongTimer, this));
  server_.owners().fences().set_listener(this);
  listening_fences_ = true;
  return Status::Ok();
}

void ClusterBus::OnTimer(int, short, void* arg) { static_cast<ClusterBus*>(arg)->Cron(); }

void ClusterBus::OnPongTimer(int, short, void* arg) {
  static_cast<ClusterBus*>(arg)->BroadcastPong();
}

void ClusterBus::BroadcastPongSoon() {
  // A zero timeout fires after the loop's next poll, so after the replies of this turn; arming
  // it again before it fired changes nothing (one PONG carries the latest view).
  if (pong_timer_ == nullptr || evtimer_pending(pong_timer_.get(), nullptr)) return;
  timeval zero{0, 0};
  event_add(pong_timer_.get(), &zero);
}

bool ClusterBus::Meet(std::string_view ip, int64_t port, int64_t cport) {
  std::string norm;
  if (!NormalizeIp(ip, &norm) || port <= 0 || port > 65535 || cport <= 0 || cport > 65535) {
    return false;
  }
  for (const ClusterNode* n : state().nodes()) {
    if (n->Has(kNodeHandshake) && n->ip == norm && n->port == port && n->cport == cport) {
      return true;  // already under way
    }
  }
  ClusterNode* n = state().CreateNode(RandomClusterNodeId(), kNodeHandshake);
  n->meet = true;
  n->ip = norm;
  n->port = static_cast<int>(port);
  n->cport = static_cast<int>(cport);
  n->ctime = now();
  cluster_.Changed();
  return true;
}

bool ClusterBus::Banned(std::string_view id) {
  auto it = banned_.find(std::string(id));
  if (it == banned_.end()) return false;
  if (it->second > now()) return true;
  banned_.erase(it);
  return false;
}

void ClusterBus::Forget(ClusterNode* node) {
  banned_[node->id] = now() + kBanSeconds * 1000;
  DeleteNode(node);
}

void ClusterBus::DeleteNode(ClusterNode* node) {
  std::vector<BusLink*> doomed;
  for (const auto& l : net_->links()) {
    if (l->node == node) doomed.push_back(l.get());
  }
  for (BusLink* l : doomed) FreeLink(l);
  EndFenceFloorWaits(*node, "removed from the view");
  state().RemoveNode(node);
  cluster_.Changed();
}

void ClusterBus::CloseAllLinks() {
  floor_waits_.clear();  // CLUSTER RESET: no slot left to wait for
  std::vector<BusLink*> all;
  for (const auto& l : net_->links()) all.push_back(l.get());
  for (BusLink* l : all) FreeLink(l);
}

void ClusterBus::FreeLink(BusLink* link) {
  OnLinkClosed(link);  // the node forgets it first
  net_->Close(link);
}

int ClusterBus::FailureReports(ClusterNode* node) {
  return CountFailureReports(node, now(), node_timeout());
}

// ---- Links ---------------------------------------------------------------------------------

void ClusterBus::OnLinkAccepted(BusLink* link) {
  server_.log().Log(LogLevel::kVerbose, "Accepting cluster node connection from %s",
                    link->peer_ip().c_str());
}

void ClusterBus::OnLinkConnected(BusLink* link) {
  ClusterNode* node = link->node;
  if (node == nullptr) return;
  // A PING sent on a fresh link must not hide one still unanswered: failure detection keeps
  // counting from the older one.
  const int64_t old_ping_sent = node->ping_sent;
  SendPing(link, node->meet ? BusType::kMeet : BusType::kPing);
  if (old_ping_sent != 0) node->ping_sent = old_ping_sent;
  node->meet = false;
  // My fencing floor, once per link (cluster_bus.h): a floor a slot move could not send while
  // the link was down arrives now, at least this high.
  if (!node->Has(kNodeHandshake)) net_->Send(link, FenceFloorFrame());
}

void ClusterBus::OnLinkClosed(BusLink* link) {
  ClusterNode* node = link->node;
  if (node == nullptr) return;
  // A node we could not even connect to got no PING: count one as sent, so that failure
  // detection runs for it too (Redis does so when its connect fails at once).
  if (link->dir() == BusLink::Dir::kTo && !link->connected() && node->ping_sent == 0) {
    node->ping_sent = now();
  }
  if (node->link == link) {
    node->link = nullptr;
    node->link_connected = false;
  }
  if (node->inbound_link == link) node->inbound_link = nullptr;
  link->node = nullptr;
}

// ---- Frames out ----------------------------------------------------------------------------

BusMessage ClusterBus::Header(BusType type) {
  const Config& cfg = server_.config();
  ClusterNode& me = myself();
  // A replica speaks for its master's slots and epoch.
  const ClusterNode& shard = me.IsReplica() && me.master != nullptr ? *me.master : me;
  BusMessage m;
  BusHeader& h = m.hdr;
  h.type = static_cast<uint16_t>(type);
  h.sender = MakeBusName(me.id);
  h.myslots = ToBusSlots(shard.slots);
  if (me.IsReplica() && me.master != nullptr) h.slaveof = MakeBusName(me.master->id);
  h.myip = MakeBusIp(cfg.cluster_announce_ip);
  int port = 0, pport = 0, cport = 0;
  AnnouncedPorts(cfg, &port, &pport, &cport);
  h.port = static_cast<uint16_t>(port);
  h.pport = static_cast<uint16_t>(pport);
  h.cport = static_cast<uint16_t>(cport);
  h.flags = BusFlagsOf(me);
  h.state = state().ok ? kBusStateOk : kBusStateFail;
  h.current_epoch = state().current_epoch;
  h.config_epoch = shard.config_epoch;
  h.offset = static_cast<uint64_t>(Replication::Of(server_).master_repl_offset());
  // A master paused for its replica's manual failover says so, with the offset to reach.
  if (me.IsMaster() && mf_.end != 0) h.mflags[0] |= kBusMsgPaused;
  return m;
}

void ClusterBus::SendPing(BusLink* link, BusType type) {
  BusMessage m = Header(type);
  const int64_t t = now();
  if (link->node != nullptr && type == BusType::kPing) link->node->ping_sent = t;
  for (ClusterNode* n : PickGossipNodes(state(), rng_)) {
    BusGossip g;
    g.nodename = MakeBusName(n->id);
    g.ping_sent = static_cast<uint32_t>(n->ping_sent / 1000);
    g.pong_received = static_cast<uint32_t>(n->pong_recv / 1000);
    g.ip = MakeBusIp(n->ip);
    g.port = static_cast<uint16_t>(n->port);
    g.cport = static_cast<uint16_t>(n->cport);
    g.pport = static_cast<uint16_t>(n->pport);
    g.flags = BusFlagsOf(*n);
    m.gossip.push_back(g);
  }
  const std::string& hostname = server_.config().cluster_announce_hostname;
  if (!hostname.empty()) m.exts.push_back(MakeBusHostnameExt(hostname));
  net_->Send(link, m);
}

void ClusterBus::Broadcast(const BusMessage& m) {
  for (ClusterNode* n : state().nodes()) {
    if (n->link == nullptr || n->IsMyself() || n->Has(kNodeHandshake)) continue;
    net_->Send(n->link, m);
  }
}

void ClusterBus::BroadcastPong() {
  for (ClusterNode* n : state().nodes()) {
    if (n->link == nullptr || n->IsMyself() || n->Has(kNodeHandshake)) continue;
    SendPing(n->link, BusType::kPong);
  }
}

void ClusterBus::SendFail(const ClusterNode& failing) {
  BusMessage m = Header(BusType::kFail);
  m.fail_node = MakeBusName(failing.id);
  Broadcast(m);
}

void ClusterBus::SendUpdate(BusLink* link, const ClusterNode& about) {
  if (link == nullptr) return;
  BusMessage m = Header(BusType::kUpdate);
  m.update_node = MakeBusName(about.id);
  m.update_config_epoch = about.config_epoch;
  m.update_slots = ToBusSlots(about.slots);
  net_->Send(link, m);
}

void ClusterBus::Publish(std::string_view channel, std::string_view message, bool shard) {
  BusMessage m = Header(shard ? BusType::kPublishShard : BusType::kPublish);
  m.channel = std::string(channel);
  m.message = std::string(message);
  if (!shard) {
    Broadcast(m);
    return;
  }
  // The shard: myself's master (or myself) and its replicas.
  ClusterNode& me = myself();
  ClusterNode* master = me.IsReplica() ? me.master : &me;
  if (master == nullptr) return;
  std::vector<ClusterNode*> shard_nodes{master};
  shard_nodes.insert(shard_nodes.end(), master->replicas.begin(), master->replicas.end());
  for (ClusterNode* n : shard_nodes) {
    if (n->IsMyself() || n->link == nullptr) continue;
    net_->Send(n->link, m);
  }
}

void ClusterBus::PublishToShard(ClusterNode* master, std::string_view channel,
                                std::string_view message) {
  BusMessage m = Header(BusType::kPublishShard);
  m.channel = std::string(channel);
  m.message = std::string(message);
  if (!master->IsMyself() && master->link != nullptr) net_->Send(master->link, m);
  for (ClusterNode* n : master->replicas) {
    if (!n->IsMyself() && n->link != nullptr) net_->Send(n->link, m);
  }
}

// ---- Cron ----------------------------------------------------------------------------------

void ClusterBus::Cron() {
  ++iteration_;
  const Config& cfg = server_.config();
  const int64_t t = now();
  net_->set_sendbuf_limit(cfg.cluster_link_sendbuf_limit);
  net_->Cron();
  ClusterNode& me = myself();
  if (me.hostname != cfg.cluster_announce_hostname) {
    me.hostname = cfg.cluster_announce_hostname;
    cluster_.Changed();
  }
  int port = 0, pport = 0, cport = 0;
  AnnouncedPorts(cfg, &port, &pport, &cport);
  if (me.port != port || me.pport != pport || me.cport != cport) {
    me.port = port;
    me.pport = pport;
    me.cport = cport;
    cluster_.Changed();
  }
  if (!cfg.cluster_announce_ip.empty() && me.ip != cfg.cluster_announce_ip) {
    me.ip = cfg.cluster_announce_ip;
    cluster_.Changed();
  }
  const int64_t handshake_timeout = std::max(node_timeout(), kMinHandshakeTimeoutMs);

  // Expired handshakes go, every other node gets a link if it has none.
  std::vector<ClusterNode*> nodes = state().nodes();
  for (ClusterNode* n : nodes) {
    if (n->IsMyself() || n->Has(kNodeNoAddr)) continue;
    if (n->Has(kNodeHandshake) && t - n->ctime > handshake_timeout) {
      DeleteNode(n);
      continue;
    }
    if (n->link == nullptr && !n->ip.empty() && n->cport > 0) {
      n->link = net_->Connect(n->ip, n->cport, n, node_timeout());
      n->link_connected = n->link != nullptr;
    }
  }

  // About once a second, a PING to the node with the oldest PONG among a few random ones.
  const std::vector<ClusterNode*>& all = state().nodes();
  if (iteration_ % 10 == 0 && !all.empty()) {
    std::uniform_int_distribution<size_t> pick(0, all.size() - 1);
    ClusterNode* oldest = nullptr;
    for (int i = 0; i < kPingCandidates; ++i) {
      ClusterNode* n = all[pick(rng_)];
      if (n->link == nullptr || n->ping_sent != 0 || n->IsMyself() || n->Has(kNodeHandshake)) {
        continue;
      }
      if (oldest == nullptr || n->pong_recv < oldest->pong_recv) oldest = n;
    }
    if (oldest != nullptr) SendPing(oldest->link, BusType::kPing);
  }

  bool update_state = false;
  nodes = state().nodes();
  for (ClusterNode* n : nodes) CronNode(n, &update_state);

  // cluster-replica-no-failover shows as myself's nofailover flag (gossiped to the others).
  const bool nofailover = cfg.cluster_replica_no_failover;
  if (me.Has(kNodeNoFailover) != nofailover) {
    me.flags = static_cast<uint16_t>(me.flags ^ kNodeNoFailover);
    cluster_.Changed();
  }
  // A master paused for a manual failover keeps its replica told (PAUSED and the offset).
  CheckManualFailoverTimeout();
  if (me.IsMaster() && mf_.end != 0) {
    ClusterNode* replica = state().Lookup(mf_.replica_id);
    if (replica != nullptr && replica->link != nullptr) SendPing(replica->link, BusType::kPing);
  }
  if (me.IsReplica()) {
    cluster_.FollowMasterAddress();
    HandleManualFailover();
    HandleReplicaFailover();
    HandleReplicaMigration();
  }
  if (update_state) cluster_.RecheckState();
}

// One node's share of the cron: reconnect a silent link, PING when the last PONG is old, flag
// PFAIL when a PING stays unanswered past the node timeout.
void ClusterBus::CronNode(ClusterNode* n, bool* update_state) {
  if (n->IsMyself() || n->Has(kNodeNoAddr) || n->Has(kNodeHandshake)) return;
  const int64_t t = now();
  const int64_t timeout = node_timeout();
  const int64_t ping_delay = t - n->ping_sent;
  const int64_t data_delay = t - n->data_received;
  // Nothing heard for half the timeout with a PING pending: the link may be stuck even if the
  // node is alive, so try a fresh one.
  if (n->link != nullptr && t - n->link->create_ms() > timeout && n->ping_sent != 0 &&
      ping_delay > timeout / 2 && data_delay > timeout / 2) {
    FreeLink(n->link);
  }
  if (n->link != nullptr && n->ping_sent == 0 && t - n->pong_recv > timeout / 2) {
    SendPing(n->link, BusType::kPing);
    return;
  }
  if (n->ping_sent == 0) return;
  const int64_t delay = std::min(ping_delay, data_delay);
  if (delay > timeout && !n->Has(kNodePfail) && !n->Has(kNodeFail)) {
    server_.log().Log(LogLevel::kDebug, "*** NODE %.40s possibly failing", n->id.c_str());
    n->flags |= kNodePfail;
    *update_state = true;
  }
}

}  // namespace redistp
