// Temporary keys, sessions and fencing tokens across replication, in process: two harnesses, a
// "master" whose replicas-only records are captured by a sink that takes what a replica link
// takes, and a "replica" whose master-link client (ClientKind::kMasterLink) applies them, as the
// replica side applies its master's stream. The replica's promotion is the replication layer's
// own (Replication::BecameMaster, replication/promotion.cc).
//
// What is checked: the AOF's records are unchanged by the replicas-only SESSION KEY record; the
// replica holds each key with the master's owner (in the inherited namespace), exact token and
// hold count; nothing is released on the replica but by the stream (local connection with the
// same id, link drop, grace); a watcher on the replica sees the stream's DEL; on promotion a
// session resumes with its token and keeps its fence, a plain connection's key goes after
// tp-failover-grace-ms to a BSETTP waiter, and tokens start above every earlier one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "replication/promotion.h"
#include "replication/replication.h"
#include "watch/owners.h"
#include "watch/sessions.h"

namespace redistp {
namespace {

using testing::Harness;

// Takes what a replica link takes.
struct ReplicaStream : PropagationSink {
  void OnPropagate(const std::vector<std::string>& argv) override { records.push_back(argv); }
  uint8_t targets() const override { return kPropagateReplicas; }
  std::vector<std::vector<std::string>> records;
};

// A master, a replica following it and the stream between them.
struct Pair {
  Pair() {
    master.server().propagator().AddSink(&stream);
    // A local connection first, so that its id equals the id of the master's first client.
    replica.Connect("local");
    Replication::Of(replica.server()).BecameReplica();
    Link();
  }
  ~Pair() { master.server().propagator().RemoveSink(&stream); }
  // A new master link (after a drop).
  void Link() {
    ++links;
    replica.Connect(LinkName())->set_kind(ClientKind::kMasterLink);
  }
  std::string LinkName() const { return "link" + std::to_string(links); }
  // Applies what the master sent since the last call, as the link would.
  void Pump() {
    for (const auto& rec : stream.records) replica.Run(LinkName(), rec);
    stream.records.clear();
  }
  // Drops what the master sent since the last call: the link was down and the replica is
  // promoted before it comes back.
  void Lose() { stream.records.clear(); }
  uint64_t MasterId(const std::string& name) { return master.client(name)->id; }
  Entry* OnReplica(const std::string& key) { return replica.server().db(0).FindRaw(key); }

  Harness master;
  Harness replica;
  ReplicaStream stream;
  int links = 0;
};

TEST(TempKeysReplica, OwnershipRecordsGoToReplicasOnlyAndLeaveTheAofAlone) {
  Harness h;
  ReplicaStream rs;
  h.server().propagator().AddSink(&rs);
  const testing::Frame token = h.Run("a", {"SETTP", "lock", "v", "FENCE"});
  ASSERT_EQ(token.kind, testing::Frame::Kind::kInt);
  const std::string id = std::to_string(h.client("a")->id);
  const std::string fence = std::to_string(token.integer);
  using Records = std::vector<std::vector<std::string>>;
  EXPECT_EQ(h.Propagated(), (Records{{"SELECT", "0"}, {"SETTP", "lock", "v", "FENCE"}}));
  EXPECT_EQ(rs.records, (Records{{"SELECT", "0"},
                                 {"MULTI"},
                                 {"SETTP", "lock", "v", "FENCE"},
                                 {"SESSION", "KEY", "0", "lock", id, fence, "1"},
                                 {"EXEC"}}));
  rs.records.clear();
  // A re-entry and a DELTP that only drops a hold change no key: the AOF gets nothing.
  EXPECT_EQ(h.Run("a", {"SETTP", "lock", "v", "REENTRANT"}).integer, token.integer);
  EXPECT_EQ(rs.records, (Records{{"SESSION", "KEY", "0", "lock", id, fence, "2"}}));
  rs.records.clear();
  EXPECT_EQ(h.Run("a", {"DELTP", "lock"}).Text(), "(integer) 0");
  EXPECT_EQ(rs.records, (Records{{"SESSION", "KEY", "0", "lock", id, fence, "1"}}));
  EXPECT_TRUE(h.Propagated().empty());
  rs.records.clear();
  EXPECT_EQ(h.Run("a", {"DELTP", "lock"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "lock"}}));
  EXPECT_EQ(rs.records, (Records{{"DEL", "lock"}}));
  h.server().propagator().RemoveSink(&rs);
}

TEST(TempKeysReplica, ReplicaHoldsExactOwnershipAndReleasesNothingOnItsOwn) {
  Pair p;
  const testing::Frame token = p.master.Run("a", {"SETTP", "lock", "v", "FENCE"});
  p.master.Run("a", {"SETTP", "lock", "v", "REENTRANT"});
  p.replica.SetResp("w", 3);
  EXPECT_EQ(p.replica.Run("w", {"WATCHEX", "lock"}).Text(), "NOEXIST");
  p.Pump();
  ASSERT_NE(p.OnReplica("lock"), nullptr);
  const uint64_t owner = OwnerIndex::Inherited(p.MasterId("a"));
  EXPECT_EQ(p.replica.Run("w", {"OBJECT", "OWNER", "lock"}).integer, static_cast<int64_t>(owner));
  EXPECT_EQ(p.replica.Run("w", {"OBJECT", "FENCE", "lock"}).integer, token.integer);
  EXPECT_EQ(p.replica.server().owners().HoldsOf(p.OnReplica("lock")), 2u);
  EXPECT_GE(p.replica.server().owners().last_fence(), static_cast<uint64_t>(token.integer));
  ASSERT_EQ(p.replica.Pushes("w").size(), 1u);  // ADD, as the master's change arrived

  // The replica's own connection with the master owner's id ends, then the link drops: the
  // master's key stays.
  ASSERT_EQ(p.replica.client("local")->id, p.MasterId("a"));
  p.replica.Disconnect("local");
  p.replica.Disconnect(p.LinkName());
  p.replica.AdvanceTime(60000);
  ASSERT_NE(p.OnReplica("lock"), nullptr);
  EXPECT_TRUE(p.replica.Pushes("w").empty());

  // The owner leaves the master: the stream's DEL releases it, and the watcher is told.
  p.Link();
  p.master.Disconnect("a");
  p.master.Run("x", {"PING"});  // the teardown has run
  p.Pump();
  EXPECT_EQ(p.OnReplica("lock"), nullptr);
  std::vector<testing::Frame> pushes = p.replica.Pushes("w");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].Text(), ">[\"watchex\", \"lock\", \"DEL\"]");
}

TEST(TempKeysReplica, SessionResumesOnThePromotedReplicaWithItsFence) {
  Pair p;
  const std::string token = p.master.Run("s", {"SESSION", "OPEN", "5000"}).str;
  const int64_t fence = p.master.Run("s", {"SETTP", "lock", "v", "FENCE"}).integer;
  p.Pump();
  // On the replica the session is detached and its grace does not run.
  EXPECT_EQ(p.replica.server().sessions().size(), 1u);
  EXPECT_EQ(p.replica.Run("c", {"SESSION", "RESUME", token}).Text(),
            "(error) READONLY You can't write against a read only replica.");
  EXPECT_EQ(p.replica.Run("c", {"SESSION", "OPEN", "10"}).Text(),
            "(error) READONLY You can't write against a read only replica.");
  p.replica.AdvanceTime(60000);
  ASSERT_NE(p.OnReplica("lock"), nullptr);

  // The master hands out tokens that never reach the replica, then is gone.
  const int64_t lost = p.master.Run("b", {"SETTP", "other", "v", "FENCE"}).integer;
  EXPECT_GT(lost, fence);
  p.Lose();
  Replication::Of(p.replica.server()).BecameMaster();

  EXPECT_EQ(p.replica.Run("c", {"SESSION", "RESUME", token}).Text(), "OK");
  EXPECT_EQ(p.replica.Run("c", {"OBJECT", "FENCE", "lock"}).integer, fence);
  EXPECT_EQ(p.replica.Run("c", {"SETTP", "lock", "v", "REENTRANT", "FENCE"}).integer, fence);
  const int64_t next = p.replica.Run("c", {"SETTP", "new", "v", "FENCE"}).integer;
  EXPECT_GT(next, lost);
  EXPECT_GT(static_cast<uint64_t>(next), static_cast<uint64_t>(fence) + Promotion::kFenceGap);
  EXPECT_EQ(p.replica.Run("c", {"DELTP", "lock"}).Text(), "(integer) 0");  // one hold left
  EXPECT_EQ(p.replica.Run("c", {"DELTP", "lock"}).Text(), "(integer) 1");
}

TEST(TempKeysReplica, AnUnresumedSessionEndsWithItsGraceAfterPromotion) {
  Pair p;
  p.master.Run("s", {"SESSION", "OPEN", "3000"});
  p.master.Run("s", {"SETTP", "lock", "v"});
  p.Pump();
  p.replica.AdvanceTime(10000);  // no grace on a replica
  Replication::Of(p.replica.server()).BecameMaster();
  p.replica.AdvanceTime(3000);
  ASSERT_NE(p.OnReplica("lock"), nullptr);
  p.replica.AdvanceTime(2);
  EXPECT_EQ(p.OnReplica("lock"), nullptr);
  EXPECT_EQ(p.replica.server().sessions().size(), 0u);
}

TEST(TempKeysReplica, PlainKeyGoesToAWaiterAfterTheFailoverGrace) {
  Pair p;
  p.replica.Run("cfg", {"CONFIG", "SET", "tp-failover-grace-ms", "2000"});
  p.master.Run("a", {"SETTP", "lock", "v"});
  p.Pump();
  Replication::Of(p.replica.server()).BecameMaster();
  EXPECT_TRUE(p.replica.Run("w", {"BSETTP", "lock", "mine", "0"}).is_none());
  p.replica.AdvanceTime(1900);
  EXPECT_TRUE(p.replica.TakeReply("w").is_none());
  p.replica.AdvanceTime(200);
  EXPECT_EQ(p.replica.TakeReply("w").Text(), "(integer) 1");
  EXPECT_EQ(p.replica.Run("w", {"OBJECT", "OWNER", "lock"}).integer,
            static_cast<int64_t>(p.replica.client("w")->id));
  const std::string info = p.replica.Run("w", {"INFO", "coordination"}).str;
  EXPECT_NE(info.find("released_by_failover:1\r\n"), std::string::npos) << info;
}

TEST(TempKeysReplica, BecomingAReplicaAgainDropsThePendingReleases) {
  Pair p;
  p.replica.Run("cfg", {"CONFIG", "SET", "tp-failover-grace-ms", "1000"});
  p.master.Run("a", {"SETTP", "lock", "v"});
  p.master.Run("s", {"SESSION", "OPEN", "1000"});
  p.master.Run("s", {"SETTP", "lock2", "v"});
  p.Pump();
  Replication& repl = Replication::Of(p.replica.server());
  repl.BecameMaster();
  EXPECT_TRUE(p.replica.Run("w", {"BSETTP", "lock", "mine", "0"}).is_none());
  p.replica.AdvanceTime(500);
  repl.BecameReplica();
  // The waiter is not left to be handed a key on a replica: it gets the timeout answer (out
  // with the next turn's writes).
  p.replica.Run("x", {"PING"});
  EXPECT_EQ(p.replica.TakeReply("w").Text(), "(integer) 0");
  p.replica.AdvanceTime(5000);
  EXPECT_NE(p.OnReplica("lock"), nullptr);
  EXPECT_NE(p.OnReplica("lock2"), nullptr);
}

// A full sync: the image carries the temporary keys and sessions for a redis-tp replica only.
TEST(TempKeysReplica, FullSyncImageCarriesKeysSessionsAndFences) {
  Harness master;
  const std::string token = master.Run("s", {"SESSION", "OPEN", "4000"}).str;
  const int64_t fence = master.Run("s", {"SETTP", "slock", "sv", "FENCE"}).integer;
  master.Run("s", {"SETTP", "slock", "sv", "REENTRANT"});
  master.Run("a", {"SELECT", "2"});
  master.Run("a", {"SETTP", "plain", "pv"});
  master.Run("a", {"SET", "ordinary", "o"});
  RdbSaveOptions o;
  o.replication = true;
  const std::string image = RdbImage(master.server(), o);
  // Without the option (SAVE, BGSAVE, DEBUG RELOAD) no temporary key is written.
  EXPECT_EQ(RdbImage(master.server(), RdbSaveOptions{}).find("redistp-tpkey"), std::string::npos);

  // Loaded by a server that follows no master (a kept file at a restart): nothing of it.
  Harness alone;
  RdbLoadInfo info;
  ASSERT_TRUE(LoadRdb(alone.server(), image, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(alone.server().db(0).size(), 0u);
  EXPECT_EQ(alone.server().db(2).size(), 1u);
  EXPECT_EQ(alone.server().sessions().size(), 0u);

  Harness replica;
  Replication& repl = Replication::Of(replica.server());
  repl.BecameReplica();
  ASSERT_TRUE(LoadRdb(replica.server(), image, RdbLoadOptions{}, &info).ok());
  Entry* e = replica.server().db(0).FindRaw("slock");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(replica.server().owners().FenceOf(e), static_cast<uint64_t>(fence));
  EXPECT_EQ(replica.server().owners().HoldsOf(e), 2u);
  EXPECT_TRUE(OwnerIndex::IsInherited(replica.server().owners().OwnerOf(e)));
  ASSERT_NE(replica.server().db(2).FindRaw("plain"), nullptr);
  EXPECT_EQ(replica.server().db(2).FindRaw("plain")->value.ToString(), "pv");
  EXPECT_EQ(replica.server().sessions().size(), 1u);
  EXPECT_GE(replica.server().owners().last_fence(), static_cast<uint64_t>(fence));

  repl.BecameMaster();
  EXPECT_EQ(replica.Run("c", {"SESSION", "RESUME", token}).Text(), "OK");
  EXPECT_EQ(replica.Run("c", {"DELTP", "slock"}).Text(), "(integer) 0");
  EXPECT_EQ(replica.Run("c", {"DELTP", "slock"}).Text(), "(integer) 1");
}

// A replica restarting from its file (replicaof in its configuration) keeps its master's keys.
TEST(TempKeysReplica, AReplicaStartingFromItsFileKeepsTheMastersKeys) {
  Harness master;
  master.Run("s", {"SETTP", "lock", "v", "FENCE"});
  RdbSaveOptions o;
  o.replication = true;
  Config config;
  config.replicaof_host = "127.0.0.1";
  config.replicaof_port = 6379;
  Harness restarted(std::move(config));
  RdbLoadInfo info;
  ASSERT_TRUE(
      LoadRdb(restarted.server(), RdbImage(master.server(), o), RdbLoadOptions{}, &info).ok());
  Entry* e = restarted.server().db(0).FindRaw("lock");
  ASSERT_NE(e, nullptr);
  EXPECT_TRUE(OwnerIndex::IsInherited(restarted.server().owners().OwnerOf(e)));
}

// A second full sync replaces the sessions of the first.
TEST(TempKeysReplica, ANewFullSyncForgetsTheSessionsOfTheLast) {
  Harness master;
  master.Run("s", {"SESSION", "OPEN", "4000"});
  master.Run("s", {"SETTP", "slock", "sv"});
  RdbSaveOptions o;
  o.replication = true;
  Harness replica;
  Replication::Of(replica.server()).BecameReplica();
  RdbLoadInfo info;
  ASSERT_TRUE(
      LoadRdb(replica.server(), RdbImage(master.server(), o), RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(replica.server().sessions().size(), 1u);
  master.Run("s", {"SESSION", "CLOSE"});
  replica.Run("c", {"FLUSHALL"});  // as the sync flushes the old data
  ASSERT_TRUE(
      LoadRdb(replica.server(), RdbImage(master.server(), o), RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(replica.server().sessions().size(), 0u);
  EXPECT_EQ(replica.server().db(0).size(), 0u);
}

TEST(TempKeysReplica, ConfigTpFailoverGraceMs) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"CONFIG", "GET", "tp-failover-grace-ms"}).Text(),
            "[\"tp-failover-grace-ms\", \"10000\"]");
  EXPECT_EQ(h.Run("a", {"CONFIG", "SET", "tp-failover-grace-ms", "-1"}).kind,
            testing::Frame::Kind::kError);
  EXPECT_EQ(h.Run("a", {"CONFIG", "SET", "tp-failover-grace-ms", "0"}).Text(), "OK");
  EXPECT_EQ(h.server().config().tp_failover_grace_ms, 0);
}

// A key that arrived with MIGRATE (TPADOPT after its RESTORE) reaches the replica as the
// master holds it: the RESTORE, then SESSION CREATE/OWN/KEY; promoted, it resumes with the
// source's token.
TEST(TempKeysReplica, AMigratedKeysOwnershipReachesTheReplica) {
  Pair p;
  const std::string secret = "0123456789abcdef0123456789abcdef";
  const std::string digest = SessionRegistry::DigestHex(SessionRegistry::DigestOf(secret));
  p.master.Run("a", {"SET", "lock", "v"});
  EXPECT_EQ(p.master.Run("a", {"TPADOPT", "lock", "77", "0", "2", "SESSION", "900", "500", digest})
                .Text(),
            "OK");
  p.Pump();
  Entry* e = p.OnReplica("lock");
  ASSERT_NE(e, nullptr);
  OwnerIndex& owners = p.replica.server().owners();
  EXPECT_EQ(owners.OwnerOf(e), OwnerIndex::Inherited(900));
  EXPECT_EQ(owners.FenceOf(e), 77u);
  EXPECT_EQ(owners.HoldsOf(e), 2u);
  Replication::Of(p.replica.server()).BecameMaster();
  EXPECT_EQ(p.replica.Run("c", {"SESSION", "RESUME", "900:" + secret}).Text(), "OK");
  EXPECT_EQ(p.replica.Run("c", {"OBJECT", "FENCE", "lock"}).integer, 77);
}

}  // namespace
}  // namespace redistp
