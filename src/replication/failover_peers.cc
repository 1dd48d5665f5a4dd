// The failover's view of this server's replication (failover.h's FailoverPeers): the master
// side's replica links and acknowledgements, the replica side's following and promotion.
//
// Kept apart from the state machine so that what FAILOVER decides (failover.cc) does not depend
// on how the sides keep their links; each method is a thin read or call of theirs.
#include "replication/failover.h"
#include "replication/master_side.h"
#include "replication/replica_side.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/server.h"

namespace redistp {

namespace {

class ReplicationPeers : public FailoverPeers {
 public:
  explicit ReplicationPeers(Replication& repl) : repl_(repl) {}

  std::vector<FailoverReplica> Replicas() override {
    MasterSide& master = repl_.master();
    const int64_t now = repl_.server().NowMs();
    std::vector<FailoverReplica> out;
    for (const std::unique_ptr<ReplicaLink>& l : master.links()) {
      FailoverReplica r;
      // The address INFO's slaveN line shows: the announced one, else the connection's.
      r.ip = l->announced_ip;
      if (r.ip.empty() && l->client != nullptr) {
        r.ip = l->client->addr.substr(0, l->client->addr.rfind(':'));
      }
      r.port = l->listening_port;
      r.ack_offset = l->ack_offset;
      r.online = l->state == ReplicaState::kOnline;
      r.name = master.Name(*l);
      r.lag_s = (now - l->ack_time_ms) / 1000;
      r.state = ReplicaStateName(l->state);
      out.push_back(std::move(r));
    }
    return out;
  }

  void RequestAcks() override { repl_.master().RequestAcks(); }

  void FollowForFailover(const std::string& host, int port) override {
    Replication& repl = repl_;
    repl_.replica().FollowForFailover(
        host, port, [&repl](bool accepted) { repl.failover().OnFailoverPsyncResult(accepted); });
  }

  void BecomeMaster(const char* kind, const std::string& who) override {
    repl_.replica().Unfollow(who.empty() ? std::string(kind)
                                         : std::string(kind) + " from '" + who + "'");
  }

 private:
  Replication& repl_;
};

}  // namespace

std::unique_ptr<FailoverPeers> MakeReplicationPeers(Replication& repl) {
  return std::make_unique<ReplicationPeers>(repl);
}

}  // namespace redistp
