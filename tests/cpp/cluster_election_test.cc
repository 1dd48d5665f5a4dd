// Unit tests for cluster/cluster_election (a replica's election, no socket) and the slot-claim
// result that makes a replica follow a new master (cluster_gossip): the rank among fellow
// replicas by offset, the delay, the validity of old data, the quorum and which votes count.
#include "cluster/cluster_election.h"

#include <gtest/gtest.h>

#include <string>

#include "cluster/cluster_gossip.h"

namespace redistp {
namespace {

std::string Id(char c) { return std::string(40, c); }

// A master `m` with three replicas: myself (offset set by the test) and two others.
struct Shard {
  ClusterState st;
  ClusterNode* m;
  ClusterNode* me;
  ClusterNode* r1;
  ClusterNode* r2;
  Shard() {
    m = st.CreateNode(Id('a'), kNodeMaster);
    me = st.CreateNode(Id('b'), kNodeMyself | kNodeSlave);
    r1 = st.CreateNode(Id('c'), kNodeSlave);
    r2 = st.CreateNode(Id('d'), kNodeSlave);
    for (ClusterNode* r : {me, r1, r2}) st.SetMaster(r, m);
  }
};

TEST(ClusterElectionTest, RankCountsFellowReplicasWithAGreaterOffset) {
  Shard s;
  s.r1->repl_offset = 100;
  s.r2->repl_offset = 200;
  EXPECT_EQ(ReplicaRank(s.st, 300), 0);
  EXPECT_EQ(ReplicaRank(s.st, 150), 1);
  EXPECT_EQ(ReplicaRank(s.st, 50), 2);
  // An equal offset does not rank ahead.
  EXPECT_EQ(ReplicaRank(s.st, 200), 0);
  // A replica that will not fail over is no competitor.
  s.r2->flags |= kNodeNoFailover;
  EXPECT_EQ(ReplicaRank(s.st, 50), 1);
}

TEST(ClusterElectionTest, RankIsZeroWithoutAMaster) {
  ClusterState st;
  st.CreateNode(Id('b'), kNodeMyself | kNodeSlave);
  EXPECT_EQ(ReplicaRank(st, 0), 0);
}

TEST(ClusterElectionTest, DelayIsHalfASecondPlusJitterPlusASecondPerRank) {
  EXPECT_EQ(ElectionDelayMs(0, 0), 500);
  EXPECT_EQ(ElectionDelayMs(0, 499), 999);
  EXPECT_EQ(ElectionDelayMs(2, 100), 2600);
}

TEST(ClusterElectionTest, DataAgeBeyondTheValidityFactorStopsTheReplica) {
  // node timeout 1000, ping period 10 s, factor 10: the limit is 10000 + 10000 past the timeout.
  EXPECT_FALSE(ReplicaDataTooOld(21000, 1000, 10000, 10));
  EXPECT_TRUE(ReplicaDataTooOld(21001, 1000, 10000, 10));
  // Within the node timeout nothing is subtracted, and nothing is too old.
  EXPECT_FALSE(ReplicaDataTooOld(900, 1000, 10000, 10));
  // Factor 0: any age may stand, even a link that was never up.
  EXPECT_FALSE(ReplicaDataTooOld(INT64_MAX, 1000, 10000, 0));
  EXPECT_TRUE(ReplicaDataTooOld(INT64_MAX, 1000, 10000, 1));
}

TEST(ClusterElectionTest, QuorumAndAuthTimeout) {
  EXPECT_EQ(FailoverQuorum(1), 1);
  EXPECT_EQ(FailoverQuorum(2), 2);
  EXPECT_EQ(FailoverQuorum(3), 2);
  EXPECT_EQ(FailoverQuorum(4), 3);
  EXPECT_EQ(FailoverAuthTimeoutMs(500), 2000);
  EXPECT_EQ(FailoverAuthTimeoutMs(15000), 30000);
}

TEST(ClusterElectionTest, OnlySlotServingMastersOfTheElectionsEpochVote) {
  ClusterState st;
  ClusterNode* voter = st.CreateNode(Id('a'), kNodeMaster);
  EXPECT_FALSE(VoteCounts(*voter, 5, 5));  // no slots
  st.AssignSlot(1, voter);
  EXPECT_TRUE(VoteCounts(*voter, 5, 5));
  EXPECT_TRUE(VoteCounts(*voter, 6, 5));
  EXPECT_FALSE(VoteCounts(*voter, 4, 5));  // an ACK of an older election
  ClusterNode* replica = st.CreateNode(Id('b'), kNodeSlave);
  EXPECT_FALSE(VoteCounts(*replica, 5, 5));
}

TEST(ClusterElectionTest, AReplicaWhoseMasterLostEverySlotSeesItsShardEmptied) {
  Shard s;
  s.st.AssignSlot(1, s.m);
  s.st.AssignSlot(2, s.m);
  s.m->config_epoch = 1;
  ClusterNode* winner = s.st.CreateNode(Id('e'), kNodeMaster);
  BusSlots claim{};
  BusSetSlot(claim, 1);
  SlotClaimResult partial = ApplySlotClaim(s.st, winner, 2, claim);
  EXPECT_EQ(partial.moved_from_my_shard, 1);
  EXPECT_FALSE(partial.my_shard_emptied);
  BusSetSlot(claim, 2);
  SlotClaimResult all = ApplySlotClaim(s.st, winner, 2, claim);
  EXPECT_EQ(all.moved_from_my_shard, 1);
  EXPECT_EQ(all.claimed, 2);
  EXPECT_TRUE(all.my_shard_emptied);
  EXPECT_TRUE(all.lost_slots.empty());  // myself, a replica, served none itself
}

TEST(ClusterElectionTest, AMasterThatLostEverySlotSeesItsShardEmptied) {
  ClusterState st;
  ClusterNode* me = st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  st.AssignSlot(7, me);
  me->config_epoch = 1;
  ClusterNode* other = st.CreateNode(Id('b'), kNodeMaster);
  BusSlots claim{};
  BusSetSlot(claim, 7);
  BusSetSlot(claim, 8);  // unowned before: not taken from us
  SlotClaimResult r = ApplySlotClaim(st, other, 3, claim);
  EXPECT_TRUE(r.myself_lost_all);
  EXPECT_TRUE(r.my_shard_emptied);
  EXPECT_EQ(r.moved_from_my_shard, 1);
  EXPECT_EQ(r.claimed, 2);
}

// Masters a (two replicas: myself 'b' and 'c') and d (one replica 'e', then none working).
struct Migration {
  ClusterState st;
  ClusterNode *a, *me, *c, *d, *e;
  Migration(char my_id) {
    a = st.CreateNode(Id('a'), kNodeMaster);
    me = st.CreateNode(Id(my_id), kNodeMyself | kNodeSlave);
    c = st.CreateNode(Id('c'), kNodeSlave);
    d = st.CreateNode(Id('d'), kNodeMaster);
    e = st.CreateNode(Id('e'), kNodeSlave);
    st.AssignSlot(1, a);
    st.AssignSlot(2, d);
    st.SetMaster(me, a);
    st.SetMaster(c, a);
    st.SetMaster(e, d);
  }
};

TEST(ClusterElectionTest, NoMigrationWhileEveryMasterHasAWorkingReplica) {
  Migration m('b');
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 1000, 5000), nullptr);
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 99000, 5000), nullptr);
}

TEST(ClusterElectionTest, TheSmallestIdOfTheRichestMasterMigratesAfterTheDelay) {
  Migration m('b');
  m.e->flags |= kNodeFail;                                          // d is orphaned now
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 1000, 5000), nullptr);  // orphaned since 1000
  EXPECT_EQ(m.d->orphaned_time, 1000);
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 6000, 5000), nullptr);  // not more than the delay
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 6001, 5000), m.d);
  // The barrier: a master keeps at least that many replicas.
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 2, 6001, 5000), nullptr);
  // Back to a working replica: no longer orphaned, the clock restarts.
  m.e->flags &= static_cast<uint16_t>(~kNodeFail);
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 7000, 5000), nullptr);
}

TEST(ClusterElectionTest, AGreaterIdStays) {
  Migration m('f');  // 'c' has the smaller id: it is the one to go
  m.e->flags |= kNodeFail;
  ReplicaMigrationTarget(m.st, 1, 1000, 5000);
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 9000, 5000), nullptr);
}

TEST(ClusterElectionTest, AMasterThatNeverHadReplicasIsNoOrphan) {
  Migration m('b');
  ClusterNode* lone = m.st.CreateNode(Id('g'), kNodeMaster);
  m.st.AssignSlot(3, lone);
  ReplicaMigrationTarget(m.st, 1, 1000, 5000);
  EXPECT_EQ(ReplicaMigrationTarget(m.st, 1, 9000, 5000), nullptr);
  EXPECT_EQ(lone->orphaned_time, 0);
}

}  // namespace
}  // namespace redistp
