// Unit tests for cluster/cluster_state: the two sides of each relation stay equal (slot owners
// and node bitmaps, masters and replica lists, migrations and the nodes they name) through
// assignment, reassignment and removal, and node ids are fresh 40-hex strings.
#include "cluster/cluster_state.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace redistp {
namespace {

TEST(ClusterStateTest, SlotAssignmentKeepsOwnerAndBitmapEqual) {
  ClusterState state;
  ClusterNode* a = state.CreateNode(std::string(40, 'a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = state.CreateNode(std::string(40, 'b'), kNodeMaster);
  EXPECT_EQ(state.myself(), a);
  EXPECT_TRUE(state.AssignSlot(0, a));
  EXPECT_TRUE(state.AssignSlot(16383, a));
  EXPECT_FALSE(state.AssignSlot(0, b));  // already owned: nothing changes
  EXPECT_EQ(state.owner(0), a);
  EXPECT_EQ(a->num_slots, 2);
  EXPECT_EQ(b->num_slots, 0);
  EXPECT_EQ(state.Size(), 1);
  EXPECT_TRUE(state.UnassignSlot(0));
  EXPECT_FALSE(state.UnassignSlot(0));
  EXPECT_TRUE(state.AssignSlot(0, b));
  EXPECT_TRUE(b->slots.test(0));
  EXPECT_FALSE(a->slots.test(0));
  EXPECT_EQ(state.Size(), 2);
  EXPECT_EQ(state.SlotsAssigned(), 2);
  b->flags |= kNodePfail;
  EXPECT_EQ(state.SlotsWithFlag(kNodePfail), 1);
  EXPECT_EQ(state.SlotsWithFlag(kNodeFail), 0);
}

TEST(ClusterStateTest, RemoveNodeUndoesEveryRelation) {
  ClusterState state;
  ClusterNode* me = state.CreateNode(std::string(40, 'a'), kNodeMyself | kNodeMaster);
  ClusterNode* gone = state.CreateNode(std::string(40, 'b'), kNodeMaster);
  ClusterNode* replica = state.CreateNode(std::string(40, 'c'), kNodeSlave);
  state.SetMaster(replica, gone);
  state.SetMaster(gone, me);  // odd, but RemoveNode must undo this side too
  state.AssignSlot(10, gone);
  state.AssignSlot(11, me);
  state.SetMigrating(11, gone);
  state.SetImporting(12, gone);
  state.RemoveNode(gone);
  EXPECT_EQ(state.Lookup(std::string(40, 'b')), nullptr);
  EXPECT_EQ(state.owner(10), nullptr);
  EXPECT_EQ(state.owner(11), me);
  EXPECT_TRUE(state.migrating().empty());
  EXPECT_TRUE(state.importing().empty());
  EXPECT_EQ(replica->master, nullptr);
  EXPECT_TRUE(me->replicas.empty());
  ASSERT_EQ(state.nodes().size(), 2u);
  EXPECT_EQ(state.nodes()[0], me);
  EXPECT_EQ(state.nodes()[1], replica);
}

TEST(ClusterStateTest, SetMasterMovesTheReplicaBetweenLists) {
  ClusterState state;
  ClusterNode* m1 = state.CreateNode(std::string(40, '1'), kNodeMaster);
  ClusterNode* m2 = state.CreateNode(std::string(40, '2'), kNodeMaster);
  ClusterNode* r = state.CreateNode(std::string(40, '3'), kNodeSlave);
  state.SetMaster(r, m1);
  state.SetMaster(r, m1);  // twice: listed once
  ASSERT_EQ(m1->replicas.size(), 1u);
  state.SetMaster(r, m2);
  EXPECT_TRUE(m1->replicas.empty());
  ASSERT_EQ(m2->replicas.size(), 1u);
  EXPECT_EQ(r->master, m2);
  m2->config_epoch = 5;
  EXPECT_EQ(r->ShownEpoch(), 5u);
}

TEST(ClusterStateTest, RenameKeepsTheNodeAndItsPlace) {
  ClusterState state;
  ClusterNode* hs = state.CreateNode(std::string(40, 'e'), kNodeHandshake);
  state.RenameNode(hs, std::string(40, 'f'));
  EXPECT_EQ(state.Lookup(std::string(40, 'e')), nullptr);
  EXPECT_EQ(state.Lookup(std::string(40, 'f')), hs);
  EXPECT_EQ(hs->id, std::string(40, 'f'));
  EXPECT_EQ(state.nodes()[0], hs);
}

TEST(ClusterStateTest, RandomNodeIdsAreFortyHexAndDistinct) {
  std::set<std::string> seen;
  for (int i = 0; i < 100; ++i) {
    std::string id = RandomClusterNodeId();
    ASSERT_EQ(id.size(), kClusterNodeIdLen);
    EXPECT_EQ(id.find_first_not_of("0123456789abcdef"), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 100u);
}

}  // namespace
}  // namespace redistp
