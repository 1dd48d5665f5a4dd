// Unit tests for cluster/nodes_conf: files Redis 7.0.15 wrote (tests/assets/cluster/, from
// nodes of a three-node cluster on 127.0.0.1: a fresh node, slots added, a MEET, a replica, slot
// migrations both ways, an announced hostname, a failed peer, a nofailover replica) are read and
// written back byte-identical, their content lands in the model, Redis's loader rules hold
// (old files without a bus port, bare referenced nodes, epochs), malformed lines are refused,
// and the config file is locked and replaced atomically.
#include "cluster/nodes_conf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace redistp {
namespace {

const char* const kAssets[] = {
    "fresh.conf",   "single-addslots.conf",    "master-migrating.conf", "master-importing.conf",
    "replica.conf", "replica-nofailover.conf", "peer-failed.conf",
};

std::string ReadAsset(const std::string& name) {
  // Compiled from the repository's root, where the tests also run.
  std::filesystem::path dir = std::filesystem::path(__FILE__).parent_path() / "../assets/cluster";
  std::ifstream in(dir / name, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

constexpr char kA[] = "2b9fb1dc852e508e1d27813e2d11115143ca1f2f";
constexpr char kB[] = "ef37fefc445743ce672dd386ae09d2c50bcfc902";
constexpr char kC[] = "ef0f613e156d88dde1f26de68ae08388db5383bc";

TEST(NodesConfTest, RedisFilesRoundTripByteIdentical) {
  for (const char* name : kAssets) {
    std::string content = ReadAsset(name);
    ASSERT_FALSE(content.empty()) << name;
    ClusterState state;
    Status st = ParseNodesConf(content, &state);
    ASSERT_TRUE(st.ok()) << name << ": " << st.message();
    EXPECT_EQ(FormatNodesConf(state), content) << name;
  }
}

// A save without fsync rewrites the file in place, padded with newlines to the old size before
// the truncation: a process killed between the two leaves a tail of blank lines, which must
// load as the file without them.
TEST(NodesConfTest, BlankLinesLeftByAnInPlaceSaveAreSkipped) {
  const std::string content = ReadAsset("master-migrating.conf");
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(content + std::string(300, '\n'), &state).ok());
  EXPECT_EQ(FormatNodesConf(state), content);
}

TEST(NodesConfTest, FreshNodeHasNoAddressYet) {
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("fresh.conf"), &state).ok());
  ASSERT_EQ(state.nodes().size(), 1u);
  const ClusterNode* me = state.myself();
  ASSERT_NE(me, nullptr);
  EXPECT_EQ(me->ip, "");
  EXPECT_EQ(me->port, 0);
  EXPECT_EQ(me->cport, 0);
  EXPECT_EQ(me->flags, kNodeMyself | kNodeMaster);
  EXPECT_EQ(me->num_slots, 0);
  EXPECT_EQ(state.current_epoch, 0u);
}

TEST(NodesConfTest, MasterWithMigrationsAndAReplica) {
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("master-migrating.conf"), &state).ok());
  ClusterNode* a = state.Lookup(kA);
  ClusterNode* b = state.Lookup(kB);
  ClusterNode* c = state.Lookup(kC);
  ASSERT_TRUE(a && b && c);
  EXPECT_EQ(state.myself(), a);
  // 0-2 5 100 1000-5460
  EXPECT_EQ(a->num_slots, 3 + 1 + 1 + 4461);
  EXPECT_EQ(state.owner(0), a);
  EXPECT_EQ(state.owner(3), nullptr);
  EXPECT_EQ(state.owner(5), a);
  EXPECT_EQ(state.owner(5460), a);
  EXPECT_EQ(state.owner(5461), b);
  EXPECT_EQ(state.owner(10922), b);
  EXPECT_EQ(state.owner(10923), nullptr);
  EXPECT_EQ(state.SlotsAssigned(), a->num_slots + 5462);
  EXPECT_EQ(state.migrating_to(5), b);
  EXPECT_EQ(state.migrating_to(100), b);
  EXPECT_EQ(state.migrating_to(6), nullptr);
  EXPECT_TRUE(state.importing().empty());
  EXPECT_EQ(b->hostname, "host-b.example");
  EXPECT_EQ(b->ip, "127.0.0.1");
  EXPECT_EQ(b->port, 23602);
  EXPECT_EQ(b->cport, 33602);
  EXPECT_EQ(c->master, a);
  ASSERT_EQ(a->replicas.size(), 1u);
  EXPECT_EQ(a->replicas[0], c);
  EXPECT_TRUE(c->IsReplica());
  EXPECT_EQ(c->ShownEpoch(), 1u);
  EXPECT_EQ(state.current_epoch, 2u);
  EXPECT_EQ(state.Size(), 2);
  // The replica's line comes before its master's: order is the file's, not reference order.
  ASSERT_EQ(state.nodes().size(), 3u);
  EXPECT_EQ(state.nodes()[0], b);
  EXPECT_EQ(state.nodes()[1], c);
  EXPECT_EQ(state.nodes()[2], a);
}

TEST(NodesConfTest, ImportingShowsOnMyselfOnly) {
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("master-importing.conf"), &state).ok());
  EXPECT_EQ(state.myself(), state.Lookup(kB));
  EXPECT_EQ(state.importing_from(5), state.Lookup(kA));
  EXPECT_TRUE(state.migrating().empty());
  // Myself printing an importing slot it does not own, and another node owning it.
  EXPECT_EQ(state.owner(5), state.Lookup(kA));
}

TEST(NodesConfTest, FailedPeerAndNoFailoverFlags) {
  ClusterState failed;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("peer-failed.conf"), &failed).ok());
  const ClusterNode* c = failed.Lookup(kC);
  EXPECT_EQ(c->flags, kNodeSlave | kNodeFail);
  EXPECT_FALSE(c->link_connected);
  EXPECT_EQ(c->ping_sent, 1795974893445);
  EXPECT_EQ(c->pong_recv, 1795974892438);
  ClusterState nofailover;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("replica-nofailover.conf"), &nofailover).ok());
  EXPECT_EQ(nofailover.myself()->flags, kNodeMyself | kNodeSlave | kNodeNoFailover);
  EXPECT_EQ(nofailover.myself()->master, nofailover.Lookup(kA));
}

TEST(NodesConfTest, ResetAfterLoadReadsNonZeroTimesAsNowAndLinksAsDown) {
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(ReadAsset("peer-failed.conf"), &state).ok());
  EXPECT_TRUE(state.Lookup(kB)->link_connected);
  ResetAfterLoad(&state, 42);
  EXPECT_FALSE(state.Lookup(kB)->link_connected);
  EXPECT_EQ(state.Lookup(kC)->ping_sent, 42);
  EXPECT_EQ(state.Lookup(kC)->pong_recv, 42);
  EXPECT_EQ(state.Lookup(kB)->ping_sent, 0);
}

TEST(NodesConfTest, CrlfBlankLinesAndCaseAreTolerated) {
  std::string id(40, 'a');
  std::string text = "\n" + id + " 10.0.0.1:7000@17000 MySelf,Master - 0 0 3 connected 1-3\r\n\n" +
                     "VARS currentepoch 7 lastvoteepoch 2\n";
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(text, &state).ok());
  EXPECT_EQ(state.myself()->port, 7000);
  EXPECT_EQ(state.myself()->num_slots, 3);
  EXPECT_EQ(state.current_epoch, 7u);
  EXPECT_EQ(state.last_vote_epoch, 2u);
  EXPECT_EQ(FormatNodesConf(state), id + " 10.0.0.1:7000@17000 myself,master - 0 0 3 connected "
                                         "1-3\nvars currentEpoch 7 lastVoteEpoch 2\n");
}

TEST(NodesConfTest, OldFileWithoutBusPortGetsPortPlus10000) {
  std::string text = std::string(40, 'a') + " 127.0.0.1:7000 myself,master - 0 0 0 connected\n";
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(text, &state).ok());
  EXPECT_EQ(state.myself()->cport, 17000);
}

TEST(NodesConfTest, ReferencedUnknownNodeIsCreatedBare) {
  std::string me(40, 'a'), master(40, 'b'), peer(40, 'c');
  std::string text = me + " 127.0.0.1:7000@17000 myself,slave " + master + " 0 0 0 connected\n" +
                     std::string(40, 'd') +
                     " 127.0.0.1:7001@17001 master - 0 0 0 disconnected [9->-" + peer + "]\n";
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(text, &state).ok());
  ASSERT_NE(state.Lookup(master), nullptr);
  EXPECT_EQ(state.myself()->master, state.Lookup(master));
  // A migration on another node's line is still this node's state, printed on myself's line.
  EXPECT_EQ(state.migrating_to(9), state.Lookup(peer));
  std::string out = FormatNodesConf(state);
  EXPECT_NE(out.find(master + " :0@0 noflags - 0 0 0 disconnected\n"), std::string::npos) << out;
  EXPECT_NE(out.find("connected [9->-" + peer + "]\n"), std::string::npos) << out;
}

TEST(NodesConfTest, CurrentEpochRaisedToLargestConfigEpoch) {
  std::string text = std::string(40, 'a') +
                     " 127.0.0.1:7000@17000 myself,master - 0 0 9 connected\n"
                     "vars currentEpoch 4 lastVoteEpoch 0\n";
  ClusterState state;
  ASSERT_TRUE(ParseNodesConf(text, &state).ok());
  EXPECT_EQ(state.current_epoch, 9u);
}

TEST(NodesConfTest, UnknownVariableIsSkippedWithAWarning) {
  std::string text = std::string(40, 'a') +
                     " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected\n"
                     "vars currentEpoch 1 shardId x lastVoteEpoch 1\n";
  ClusterState state;
  std::vector<std::string> warnings;
  ASSERT_TRUE(ParseNodesConf(text, &state, &warnings).ok());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_EQ(warnings[0], "Skipping unknown cluster config variable 'shardId'");
  EXPECT_EQ(state.last_vote_epoch, 1u);
}

TEST(NodesConfTest, MalformedLinesAreRefusedWithTheLine) {
  const std::string me = std::string(40, 'a') + " 127.0.0.1:7000@17000 myself,master - 0 0 0 ";
  const std::string other = std::string(40, 'b') + " 127.0.0.1:7001@17001 ";
  const std::vector<std::string> bad_lines = {
      me + "connected 16384",    // slot out of range
      me + "connected 5-16384",  // range end out of range
      me + "connected [16384->-" + std::string(40, 'b') + "]",
      me + "connected [5=>-" + std::string(40, 'b') + "]",
      me + "connected [5->-short]",
      std::string(40, 'a') + " 127.0.0.1:7000@17000 myself,master - 0 0 0",  // seven fields
      std::string(40, 'a') + " 127.0.0.1 myself,master - 0 0 0 connected",   // no port
      std::string(40, 'a') + " 127.0.0.1:7000@17000 myself,boss - 0 0 0 connected",
      std::string(39, 'a') + " 127.0.0.1:7000@17000 myself,master - 0 0 0 connected",
      "vars currentEpoch",
  };
  for (const std::string& line : bad_lines) {
    ClusterState state;
    Status st = ParseNodesConf(line + "\n", &state);
    ASSERT_FALSE(st.ok()) << line;
    EXPECT_EQ(st.message(), line);
  }
  // Two nodes calling themselves myself.
  ClusterState two;
  std::string second = other + "myself,master - 0 0 0 connected";
  Status st = ParseNodesConf(me + "connected\n" + second + "\n", &two);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), second);
  // No myself at all.
  ClusterState none;
  EXPECT_FALSE(ParseNodesConf(other + "master - 0 0 0 connected\n", &none).ok());
  EXPECT_FALSE(ParseNodesConf("", &none).ok());
}

TEST(NodesConfTest, ClusterNodesShowsHandshakeNodesTheFileDoesNot) {
  ClusterState state;
  ClusterNode* me = state.CreateNode(std::string(40, 'a'), kNodeMyself | kNodeMaster);
  me->ip = "127.0.0.1";
  me->port = 7000;
  me->cport = 17000;
  ClusterNode* hs = state.CreateNode(std::string(40, 'b'), kNodeHandshake);
  hs->ip = "127.0.0.1";
  hs->port = 7001;
  hs->cport = 17001;
  std::string handshake_line =
      std::string(40, 'b') + " 127.0.0.1:7001@17001 handshake - 0 0 0 disconnected\n";
  EXPECT_NE(FormatClusterNodes(state).find(handshake_line), std::string::npos);
  EXPECT_EQ(FormatNodesConf(state).find(handshake_line), std::string::npos);
}

TEST(NodesConfTest, SlotBothMigratingAndImportingPrintsMigrating) {
  ClusterState state;
  ClusterNode* me = state.CreateNode(std::string(40, 'a'), kNodeMyself | kNodeMaster);
  ClusterNode* b = state.CreateNode(std::string(40, 'b'), kNodeMaster);
  state.SetImporting(3, b);
  state.SetMigrating(3, b);
  state.SetImporting(1, b);
  state.SetMigrating(7, b);
  std::string line;
  AppendNodeLine(state, *me, &line);
  std::string id_b(40, 'b');
  EXPECT_EQ(line, std::string(40, 'a') + " :0@0 myself,master - 0 0 0 connected [1-<-" + id_b +
                      "] [3->-" + id_b + "] [7->-" + id_b + "]\n");
}

// Damaged files: each mutation of a Redis-written file (bytes replaced by ones that matter to
// the grammar, cut, duplicated) is either refused or read; whatever is read writes out a text
// that reads back to the same text (the written form is a fixed point).
TEST(NodesConfTest, MutatedFilesAreRefusedOrReadStably) {
  const std::string alphabet = "0123456789abcdef:@,-<>[] \n?";
  uint64_t x = 0x243f6a8885a308d3ULL;
  auto next = [&x] {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<size_t>(x >> 33);
  };
  int read = 0;
  for (const char* name : kAssets) {
    const std::string original = ReadAsset(name);
    for (int round = 0; round < 400; ++round) {
      std::string text = original;
      for (int edits = 1 + static_cast<int>(next() % 3); edits > 0; --edits) {
        size_t at = next() % text.size();
        switch (next() % 3) {
          case 0:
            text[at] = alphabet[next() % alphabet.size()];
            break;
          case 1:
            text.erase(at, next() % 8);
            break;
          default:
            text.insert(at, text.substr(at, next() % 50));
        }
        if (text.empty()) text = "x";
      }
      ClusterState state;
      if (!ParseNodesConf(text, &state).ok()) continue;
      ++read;
      std::string written = FormatNodesConf(state);
      ClusterState again;
      Status st = ParseNodesConf(written, &again);
      ASSERT_TRUE(st.ok()) << written << "\n" << st.message();
      EXPECT_EQ(FormatNodesConf(again), written) << text;
    }
  }
  EXPECT_GT(read, 0);  // the mutations left some files readable, so the fixed point was tried
}

class NodesConfFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/nodesconf-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    path_ = dir_ + "/nodes.conf";
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, path_;
};

TEST_F(NodesConfFileTest, LockCreatesAnEmptyFileASecondLockIsRefused) {
  NodesConfFile first;
  ASSERT_TRUE(first.Lock(path_).ok());
  std::string content = "x";
  ASSERT_TRUE(first.Read(&content).ok());
  EXPECT_EQ(content, "");
  NodesConfFile second;
  Status st = second.Lock(path_);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(), "Sorry, the cluster configuration file " + path_ +
                              " is already used by a different Redis Cluster node. Please make "
                              "sure that different nodes use different cluster configuration "
                              "files.");
}

TEST_F(NodesConfFileTest, SaveReplacesTheFileAndKeepsItLocked) {
  NodesConfFile file;
  ASSERT_TRUE(file.Lock(path_).ok());
  std::string text = ReadAsset("master-migrating.conf");
  ASSERT_TRUE(file.Save(text, /*fsync=*/true).ok());
  ASSERT_TRUE(file.Save(ReadAsset("fresh.conf"), /*fsync=*/false).ok());  // shorter: no stale tail
  ASSERT_TRUE(file.Save(text, /*fsync=*/false).ok());
  std::string back;
  ASSERT_TRUE(file.Read(&back).ok());
  EXPECT_EQ(back, text);
  // The lock moved with the new file: another holder is still refused.
  NodesConfFile other;
  EXPECT_FALSE(other.Lock(path_).ok());
  // No temporary file is left beside it.
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir_)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "nodes.conf");
  }
  EXPECT_EQ(entries, 1);
}

TEST_F(NodesConfFileTest, LockFailsInAMissingDirectory) {
  NodesConfFile file;
  Status st = file.Lock(dir_ + "/missing/nodes.conf");
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.message(),
            "Impossible to lock " + dir_ + "/missing/nodes.conf: No such file or directory");
}

}  // namespace
}  // namespace redistp
