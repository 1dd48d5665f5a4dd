// Sessions: the registry (watch/sessions.h) on its own, then the server's behaviour through the
// in-process harness (tests/cpp/harness.h) on a manual clock: a detached session keeps its keys
// silently until the exact millisecond its grace ends, RESUME moves it, and the propagation
// stream carries SESSION CREATE/OWN/DROP with the digest, never the secret.
#include "watch/sessions.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"

namespace redistp {
namespace {

TEST(SessionRegistry, TokensParseAndCheckOnlyWithTheRightSecret) {
  SessionRegistry reg;
  std::string token;
  SessionDigest digest;
  ASSERT_TRUE(SessionRegistry::NewToken(42, &token, &digest));
  ASSERT_EQ(token.size(), 3u + 32u);
  EXPECT_EQ(token.substr(0, 3), "42:");
  uint64_t id;
  std::string_view secret;
  ASSERT_TRUE(SessionRegistry::ParseToken(token, &id, &secret));
  EXPECT_EQ(id, 42u);
  EXPECT_EQ(SessionRegistry::DigestOf(secret), digest);
  EXPECT_EQ(reg.Check(token), nullptr);  // no such session yet
  reg.Create(42, digest, 1000, 7, 0);
  ASSERT_NE(reg.Check(token), nullptr);
  std::string wrong = token;
  wrong.back() = wrong.back() == '0' ? '1' : '0';
  EXPECT_EQ(reg.Check(wrong), nullptr);
  for (std::string_view bad :
       {"", ":", "42", "42:", "0:00000000000000000000000000000000",
        "-1:00000000000000000000000000000000", "42:0000000000000000000000000000000",
        "42:000000000000000000000000000000000", "42:0000000000000000000000000000000G",
        "42:000000000000000000000000000000A0",
        "99999999999999999999:00000000000000000000000000000000"}) {
    EXPECT_FALSE(SessionRegistry::ParseToken(bad, &id, &secret)) << bad;
  }
  // The digest's hex form round-trips (the SESSION CREATE record).
  SessionDigest back{};
  ASSERT_TRUE(SessionRegistry::DigestFromHex(SessionRegistry::DigestHex(digest), &back));
  EXPECT_EQ(back, digest);
  EXPECT_FALSE(SessionRegistry::DigestFromHex("zz", &back));
}

TEST(SessionRegistry, DeadlinesFollowAttachAndDetach) {
  SessionRegistry reg;
  SessionDigest d{};
  reg.Create(1, d, 100, 10, 0);
  reg.Create(2, d, 50, 11, 0);
  EXPECT_EQ(reg.attached(), 2u);
  EXPECT_EQ(reg.next_deadline(), 0);
  reg.Detach(*reg.Find(1), 1000);  // ends at 1100
  reg.Detach(*reg.Find(2), 1000);  // ends at 1050
  EXPECT_EQ(reg.attached(), 0u);
  EXPECT_EQ(reg.detached(), 2u);
  EXPECT_EQ(reg.next_deadline(), 1050);
  EXPECT_TRUE(reg.TakeExpired(1050).empty());  // a grace has ended when now > deadline
  EXPECT_EQ(reg.TakeExpired(1101), (std::vector<uint64_t>{2, 1}));
  reg.Attach(*reg.Find(2), 12);
  EXPECT_EQ(reg.next_deadline(), 1100);
  EXPECT_EQ(reg.attached(), 1u);
  reg.Erase(1);
  EXPECT_EQ(reg.next_deadline(), 0);
  reg.Erase(2);
  EXPECT_EQ(reg.size(), 0u);
  EXPECT_EQ(reg.attached(), 0u);
}

}  // namespace

namespace testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

std::string IdOf(const std::string& token) { return token.substr(0, token.find(':')); }

TEST(Sessions, DetachedKeysStaySilentUntilTheGraceEndsThenGoLikeADisconnect) {
  Harness h;
  h.SetResp("w", 3);
  std::string token = h.Run("a", {"SESSION", "OPEN", "500"}).str;
  EXPECT_EQ(h.Run("a", {"SETTP", "lock", "x"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("w", {"WATCHEX", "lock"}).Text(), "EXIST");
  h.Disconnect("a");
  h.AdvanceTime(500);  // the grace ends at detach + 500: still held at that millisecond
  EXPECT_TRUE(h.Pushes("w").empty());
  EXPECT_EQ(h.Run("w", {"EXISTS", "lock"}).Text(), "(integer) 1");
  h.AdvanceTime(1);
  std::vector<Frame> pushes = h.Pushes("w");
  ASSERT_EQ(pushes.size(), 1u);
  EXPECT_EQ(pushes[0].Text(), ">[\"watchex\", \"lock\", \"DEL\"]");
  EXPECT_EQ(h.Run("w", {"SESSION", "RESUME", token}).Text(),
            "(error) ERR invalid or expired session token");
}

TEST(Sessions, ResumeWithinTheGraceKeepsTheKeysAndStopsTheClock) {
  Harness h;
  std::string token = h.Run("a", {"SESSION", "OPEN", "500"}).str;
  Frame fence = h.Run("a", {"SETTP", "lock", "x", "FENCE"});
  h.Disconnect("a");
  h.AdvanceTime(400);
  EXPECT_EQ(h.Run("b", {"SESSION", "RESUME", token}).Text(), "OK");
  h.AdvanceTime(10000);
  EXPECT_EQ(h.Run("b", {"OBJECT", "OWNER", "lock"}).integer, std::stoll(IdOf(token)));
  EXPECT_EQ(h.Run("b", {"OBJECT", "FENCE", "lock"}).integer, fence.integer);
  // Moved again: the connection that had it is closed, the keys stay.
  EXPECT_EQ(h.Run("c", {"SESSION", "RESUME", token}).Text(), "OK");
  EXPECT_TRUE(h.Closed("b"));
  EXPECT_EQ(h.Run("c", {"EXISTS", "lock"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("c", {"SESSION", "CLOSE"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("c", {"EXISTS", "lock"}).Text(), "(integer) 0");
}

TEST(Sessions, PropagationCarriesTheDigestAndOwnershipNeverTheSecret) {
  Harness h;
  h.Run("a", {"SETTP", "before", "v"});
  h.Propagated();
  std::string token = h.Run("a", {"SESSION", "OPEN", "100"}).str;
  const std::string id = IdOf(token);
  const std::string secret = token.substr(token.find(':') + 1);
  Records open = h.Propagated();
  ASSERT_EQ(open.size(), 4u);  // MULTI, CREATE, OWN, EXEC
  EXPECT_EQ(open[1][0], "SESSION");
  EXPECT_EQ(open[1][1], "CREATE");
  EXPECT_EQ(open[1][2], id);
  EXPECT_EQ(open[1][3], "100");
  EXPECT_EQ(open[1][4], SessionRegistry::DigestHex(SessionRegistry::DigestOf(secret)));
  EXPECT_EQ(open[2], (std::vector<std::string>{"SESSION", "OWN", id, "0", "before"}));
  h.Run("a", {"SETTP", "k", "v", "FENCE"});
  Records settp = h.Propagated();
  ASSERT_EQ(settp.size(), 4u);
  EXPECT_EQ(settp[1], (std::vector<std::string>{"SETTP", "k", "v", "FENCE"}));
  EXPECT_EQ(settp[2], (std::vector<std::string>{"SESSION", "OWN", id, "0", "k"}));
  h.Run("b", {"SESSION", "RESUME", token});
  EXPECT_TRUE(h.Propagated().empty());
  h.Disconnect("b");
  h.AdvanceTime(101);
  Records end = h.Propagated();
  EXPECT_EQ(end.size(), 3u);
  for (const auto& r : end) {
    for (const std::string& arg : r) EXPECT_EQ(arg.find(secret), std::string::npos);
  }
  EXPECT_EQ(end.back(), (std::vector<std::string>{"SESSION", "DROP", id}));
}

TEST(Sessions, AHandOffToASessionsWaiterIsOwnedByTheSession) {
  Harness h;
  h.Run("holder", {"SETTP", "lock", "h"});
  std::string token = h.Run("w", {"SESSION", "OPEN", "1000"}).str;
  EXPECT_TRUE(h.Run("w", {"BSETTP", "lock", "mine", "0"}).is_none());
  h.Propagated();
  h.Disconnect("holder");
  EXPECT_EQ(h.TakeReply("w").Text(), "(integer) 1");
  EXPECT_EQ(h.Run("x", {"OBJECT", "OWNER", "lock"}).integer, std::stoll(IdOf(token)));
  Records r = h.Propagated();
  ASSERT_GE(r.size(), 3u);
  EXPECT_EQ(r[r.size() - 2], (std::vector<std::string>{"SETTP", "lock", "mine"}));
  EXPECT_EQ(r.back(), (std::vector<std::string>{"SESSION", "OWN", IdOf(token), "0", "lock"}));
}

}  // namespace
}  // namespace testing
}  // namespace redistp
