// Unit tests for cluster/cluster_gossip: the bus's rules on a ClusterState built by hand, no
// socket: which nodes a gossip section describes, failure reports (expiry after 2 x node
// timeout, the majority that turns PFAIL into FAIL), slot claims (greater epoch wins, importing
// slots stay, the stale claimer is found for an UPDATE), and epoch collisions (the smaller id
// moves).
#include "cluster/cluster_gossip.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>

namespace redistp {
namespace {

std::string Id(char c) { return std::string(40, c); }

BusSlots SlotsOf(std::initializer_list<int> slots) {
  BusSlots out{};
  for (int s : slots) BusSetSlot(out, s);
  return out;
}

TEST(ClusterGossipTest, FlagsRoundTripBetweenNodeAndWire) {
  ClusterNode n;
  n.flags = kNodeMaster | kNodePfail | kNodeNoAddr;
  const uint16_t bus = BusFlagsOf(n);
  EXPECT_EQ(bus, kBusNodeMaster | kBusNodePfail | kBusNodeNoAddr);
  EXPECT_EQ(NodeFlagsFromBus(bus), n.flags);
  n.meet = true;
  EXPECT_EQ(BusFlagsOf(n) & kBusNodeMeet, kBusNodeMeet);
  EXPECT_EQ(NodeFlagsFromBus(kBusNodeSlave | kBusNodeFail | kBusNodeMyself),
            kNodeSlave | kNodeFail | kNodeMyself);
}

TEST(ClusterGossipTest, SlotBitmapInWireLayout) {
  SlotBitmap b;
  b.set(0);
  b.set(9);
  b.set(16383);
  BusSlots w = ToBusSlots(b);
  EXPECT_EQ(w[0], 1);
  EXPECT_EQ(w[1], 2);
  EXPECT_EQ(w[2047], 0x80);
  EXPECT_TRUE(BusSlotIsSet(w, 9));
  EXPECT_FALSE(BusSlotIsSet(w, 8));
}

TEST(ClusterGossipTest, GossipSkipsMyselfHandshakeNoAddrAndLinklessEmptyNodesThenAddsPfail) {
  ClusterState st;
  st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  ClusterNode* handshake = st.CreateNode(Id('b'), kNodeHandshake);
  ClusterNode* noaddr = st.CreateNode(Id('c'), kNodeMaster | kNodeNoAddr);
  ClusterNode* linkless = st.CreateNode(Id('d'), kNodeMaster);  // no link, no slots
  ClusterNode* serving = st.CreateNode(Id('e'), kNodeMaster);   // no link but slots
  st.AssignSlot(7, serving);
  ClusterNode* pfail = st.CreateNode(Id('f'), kNodeMaster | kNodePfail);
  ClusterNode* pfail_hs = st.CreateNode(Id('g'), kNodeHandshake | kNodePfail);
  std::mt19937_64 rng(42);
  for (int round = 0; round < 50; ++round) {
    std::vector<ClusterNode*> g = PickGossipNodes(st, rng);
    std::set<ClusterNode*> seen(g.begin(), g.end());
    EXPECT_EQ(seen.size(), g.size()) << "no node twice";
    EXPECT_FALSE(seen.count(st.myself()));
    EXPECT_FALSE(seen.count(handshake));
    EXPECT_FALSE(seen.count(noaddr));
    EXPECT_FALSE(seen.count(linkless));
    EXPECT_FALSE(seen.count(pfail_hs));
    ASSERT_FALSE(g.empty());
    EXPECT_EQ(g.back(), pfail) << "the PFAIL node always comes, last";
    for (ClusterNode* n : g) EXPECT_TRUE(n == serving || n == pfail);
  }
}

TEST(ClusterGossipTest, GossipWantsAtLeastThreeOrATenthOfTheNodes) {
  ClusterState st;
  st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  // 49 other nodes serving one slot each: 50 nodes, so max(3, 5) = 5 wanted, all eligible.
  for (int i = 0; i < 49; ++i) {
    std::string id = std::to_string(1000 + i);
    id.resize(40, 'x');
    st.AssignSlot(i, st.CreateNode(id, kNodeMaster));
  }
  std::mt19937_64 rng(7);
  size_t max_seen = 0;
  for (int round = 0; round < 20; ++round) {
    max_seen = std::max(max_seen, PickGossipNodes(st, rng).size());
  }
  EXPECT_EQ(max_seen, 5u);
  // Two nodes only (myself and the receiver): nothing to say.
  ClusterState two;
  two.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  two.AssignSlot(0, two.CreateNode(Id('b'), kNodeMaster));
  EXPECT_TRUE(PickGossipNodes(two, rng).empty());
}

TEST(ClusterGossipTest, FailureReportsExpireAfterTwiceTheNodeTimeout) {
  ClusterState st;
  st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = st.CreateNode(Id('b'), kNodeMaster);
  ClusterNode* c = st.CreateNode(Id('c'), kNodeMaster);
  ClusterNode* d = st.CreateNode(Id('d'), kNodeMaster);
  EXPECT_TRUE(AddFailureReport(d, b, 1000));
  EXPECT_FALSE(AddFailureReport(d, b, 2000));  // refreshed, not added
  EXPECT_TRUE(AddFailureReport(d, c, 1500));
  EXPECT_EQ(CountFailureReports(d, 2000, 1000), 2);
  EXPECT_EQ(CountFailureReports(d, 3500, 1000), 2);  // c's report is exactly 2000 ms old
  EXPECT_EQ(CountFailureReports(d, 3501, 1000), 1);  // c's expired, b's refreshed one stays
  EXPECT_TRUE(DelFailureReport(d, b));
  EXPECT_FALSE(DelFailureReport(d, b));
  EXPECT_EQ(CountFailureReports(d, 3501, 1000), 0);
}

TEST(ClusterGossipTest, RemovingAReporterDropsItsReports) {
  ClusterState st;
  st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = st.CreateNode(Id('b'), kNodeMaster);
  ClusterNode* c = st.CreateNode(Id('c'), kNodeMaster);
  AddFailureReport(c, b, 10);
  st.RemoveNode(b);
  EXPECT_TRUE(c->fail_reports.empty());
}

TEST(ClusterGossipTest, FailNeedsAMajorityOfSlotServingMastersMyselfIncludedWhenMaster) {
  ClusterState st;
  ClusterNode* me = st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = st.CreateNode(Id('b'), kNodeMaster);
  ClusterNode* c = st.CreateNode(Id('c'), kNodeMaster);
  ClusterNode* d = st.CreateNode(Id('d'), kNodeMaster);
  ClusterNode* e = st.CreateNode(Id('e'), kNodeMaster);
  e->flags |= kNodePfail;
  // Size 5: 3 votes needed. Myself counts as one.
  EXPECT_FALSE(FailQuorumReached(st, e, 5, 100, 1000));
  AddFailureReport(e, b, 100);
  EXPECT_FALSE(FailQuorumReached(st, e, 5, 100, 1000));
  AddFailureReport(e, c, 100);
  EXPECT_TRUE(FailQuorumReached(st, e, 5, 100, 1000));
  // The reports expire: no quorum later on.
  EXPECT_FALSE(FailQuorumReached(st, e, 5, 2101, 1000));
  // A replica's own opinion does not count.
  AddFailureReport(e, b, 3000);
  AddFailureReport(e, c, 3000);
  me->flags = kNodeMyself | kNodeSlave;
  EXPECT_FALSE(FailQuorumReached(st, e, 5, 3000, 1000));
  AddFailureReport(e, d, 3000);
  EXPECT_TRUE(FailQuorumReached(st, e, 5, 3000, 1000));
}

TEST(ClusterGossipTest, SlotClaimWithGreaterEpochWinsAndImportingSlotsStay) {
  ClusterState st;
  ClusterNode* me = st.CreateNode(Id('a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = st.CreateNode(Id('b'), kNodeMaster);
  ClusterNode* c = st.CreateNode(Id('c'), kNodeMaster);
  me->config_epoch = 5;
  c->config_epoch = 2;
  st.AssignSlot(1, me);
  st.AssignSlot(2, me);
  st.AssignSlot(3, c);
  st.SetImporting(4, c);
  // Epoch 3: beats c (2) but not myself (5); slot 0 had no owner; slot 4 is being imported.
  SlotClaimResult r = ApplySlotClaim(st, b, 3, SlotsOf({0, 1, 3, 4}));
  EXPECT_TRUE(r.changed);
  EXPECT_EQ(st.owner(0), b);
  EXPECT_EQ(st.owner(1), me);
  EXPECT_EQ(st.owner(3), b);
  EXPECT_EQ(st.owner(4), nullptr);
  EXPECT_TRUE(r.lost_slots.empty());
  // The stale part of the claim (slot 1) names myself for the UPDATE.
  EXPECT_EQ(StaleClaimOwner(st, b, 3, SlotsOf({0, 1, 3, 4})), me);
  EXPECT_EQ(StaleClaimOwner(st, b, 3, SlotsOf({0, 3})), nullptr);
  // Epoch 6 takes myself's slots: both lost, and myself serves nothing any more.
  r = ApplySlotClaim(st, b, 6, SlotsOf({1, 2}));
  EXPECT_EQ(r.lost_slots, (std::vector<int>{1, 2}));
  EXPECT_TRUE(r.myself_lost_all);
  EXPECT_EQ(me->num_slots, 0);
  EXPECT_EQ(b->num_slots, 4);
  // An equal epoch takes nothing; a claim about myself is ignored.
  b->config_epoch = 6;
  r = ApplySlotClaim(st, c, 6, SlotsOf({0}));
  EXPECT_FALSE(r.changed);
  EXPECT_FALSE(ApplySlotClaim(st, me, 100, SlotsOf({0})).changed);
}

TEST(ClusterGossipTest, EpochCollisionMovesTheSmallerIdOnly) {
  ClusterState st;
  ClusterNode* me = st.CreateNode(Id('b'), kNodeMyself | kNodeMaster);
  ClusterNode* bigger = st.CreateNode(Id('c'), kNodeMaster);
  ClusterNode* smaller = st.CreateNode(Id('a'), kNodeMaster);
  st.current_epoch = 7;
  me->config_epoch = bigger->config_epoch = smaller->config_epoch = 3;
  EXPECT_FALSE(ResolveEpochCollision(st, *smaller));  // it moves, not us
  EXPECT_EQ(me->config_epoch, 3u);
  EXPECT_TRUE(ResolveEpochCollision(st, *bigger));
  EXPECT_EQ(st.current_epoch, 8u);
  EXPECT_EQ(me->config_epoch, 8u);
  EXPECT_FALSE(ResolveEpochCollision(st, *bigger));  // no collision any more
  // Replicas never collide.
  bigger->config_epoch = 8;
  bigger->flags = kNodeSlave;
  EXPECT_FALSE(ResolveEpochCollision(st, *bigger));
}

}  // namespace
}  // namespace redistp
