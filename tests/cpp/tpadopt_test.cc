// TPADOPT, the target's half of a temporary key's MIGRATE (commands/tpadopt.cc,
// Server::AdoptMigratedKey), through the in-process harness on a manual clock: a session's key
// is resumable with the source's token, an id taken here moves to its inherited form, a plain
// connection's key is released after tp-failover-grace-ms, the fencing counter is raised, and
// what is propagated is SESSION CREATE/OWN, never TPADOPT itself.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "watch/owners.h"
#include "watch/sessions.h"

namespace redistp {
namespace testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

constexpr const char* kSecret = "0123456789abcdef0123456789abcdef";

std::string DigestHex() { return SessionRegistry::DigestHex(SessionRegistry::DigestOf(kSecret)); }

TEST(TpAdopt, ASessionsKeyIsResumableWithTheSourcesTokenAndTheCounterIsRaised) {
  Harness h;
  h.Run("a", {"SET", "lock", "v"});
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"TPADOPT", "lock", "77", "5000", "2", "SESSION", "900", "500", DigestHex()})
                .Text(),
            "OK");
  EXPECT_EQ(h.Run("a", {"OBJECT", "OWNER", "lock"}).integer, 900);
  EXPECT_EQ(h.Run("a", {"OBJECT", "FENCE", "lock"}).integer, 77);
  Records recs = h.Propagated();
  ASSERT_EQ(recs.size(), 4u);  // MULTI, CREATE, OWN, EXEC
  EXPECT_EQ(recs[1], (std::vector<std::string>{"SESSION", "CREATE", "900", "500", DigestHex()}));
  EXPECT_EQ(recs[2], (std::vector<std::string>{"SESSION", "OWN", "900", "0", "lock"}));
  EXPECT_GT(h.Run("b", {"SETTP", "other", "x", "FENCE"}).integer, 5000);
  // The client-id counter is above the id: a session opened here never gets it.
  std::string mine = h.Run("c", {"SESSION", "OPEN", "100"}).str;
  EXPECT_GT(std::stoll(mine.substr(0, mine.find(':'))), 900);
  EXPECT_EQ(h.Run("b", {"SESSION", "RESUME", std::string("900:") + kSecret}).Text(), "OK");
  EXPECT_EQ(h.Run("b", {"DELTP", "lock"}).Text(), "(integer) 0");  // two holds: one dropped
  EXPECT_EQ(h.Run("b", {"DELTP", "lock"}).Text(), "(integer) 1");
}

TEST(TpAdopt, AnUnresumedSessionsKeyIsReleasedAtTheEndOfItsGrace) {
  Harness h;
  h.Run("a", {"SET", "lock", "v"});
  EXPECT_EQ(
      h.Run("a", {"TPADOPT", "lock", "0", "0", "1", "SESSION", "900", "500", DigestHex()}).Text(),
      "OK");
  h.AdvanceTime(500);
  EXPECT_EQ(h.Run("a", {"EXISTS", "lock"}).Text(), "(integer) 1");
  h.AdvanceTime(1);
  EXPECT_EQ(h.Run("a", {"EXISTS", "lock"}).Text(), "(integer) 0");
}

TEST(TpAdopt, AnIdTakenHereIsKeptInItsInheritedFormAndStaysResumable) {
  Harness h;
  const int64_t taken = h.Run("a", {"CLIENT", "ID"}).integer;
  h.Run("a", {"SET", "lock", "v"});
  const std::string id = std::to_string(taken);
  EXPECT_EQ(
      h.Run("a", {"TPADOPT", "lock", "0", "0", "1", "SESSION", id, "500", DigestHex()}).Text(),
      "OK");
  const int64_t owner = h.Run("a", {"OBJECT", "OWNER", "lock"}).integer;
  EXPECT_EQ(static_cast<uint64_t>(owner), OwnerIndex::Inherited(static_cast<uint64_t>(taken)));
  // The connection with that id ending releases nothing.
  h.Disconnect("a");
  EXPECT_EQ(h.Run("b", {"EXISTS", "lock"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("b", {"SESSION", "RESUME", id + ":" + kSecret}).Text(), "OK");
  EXPECT_EQ(h.Run("b", {"SESSION", "CLOSE"}).Text(), "(integer) 1");
}

TEST(TpAdopt, APlainConnectionsKeyIsReleasedAfterTheFailoverGrace) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"CONFIG", "SET", "tp-failover-grace-ms", "300"}).Text(), "OK");
  h.Run("a", {"SET", "lock", "v"});
  EXPECT_EQ(h.Run("a", {"TPADOPT", "lock", "12", "0", "1"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"OBJECT", "FENCE", "lock"}).integer, 12);
  // Nobody here owns it: neither the sender's connection nor anyone else can release it.
  EXPECT_EQ(h.Run("a", {"DELTP", "lock"}).Text(), "(integer) 0");
  h.Disconnect("a");
  h.AdvanceTime(300);
  EXPECT_EQ(h.Run("b", {"EXISTS", "lock"}).Text(), "(integer) 1");
  h.AdvanceTime(1);
  EXPECT_EQ(h.Run("b", {"EXISTS", "lock"}).Text(), "(integer) 0");
}

TEST(TpAdopt, ErrorsChangeNothing) {
  Harness h;
  EXPECT_EQ(h.Run("a", {"TPADOPT", "nokey", "0", "0", "1"}).Text(), "(error) ERR no such key");
  h.Run("a", {"SETTP", "held", "v"});
  EXPECT_EQ(h.Run("a", {"TPADOPT", "held", "0", "0", "1"}).Text(),
            "(error) ERR the key is already a temporary key");
  h.Run("a", {"SET", "k", "v"});
  EXPECT_EQ(h.Run("a", {"TPADOPT", "k", "0", "0", "0"}).Text(),
            "(error) ERR value is not an integer or out of range");
  EXPECT_EQ(h.Run("a", {"TPADOPT", "k", "0", "0", "1", "SESSION", "5"}).Text(),
            "(error) ERR syntax error");
  EXPECT_EQ(h.Run("a", {"TPADOPT", "k", "0", "0", "1", "SESSION", "5", "10", "zz"}).Text(),
            "(error) ERR invalid session record");
  EXPECT_EQ(h.Run("a", {"OBJECT", "OWNER", "k"}).Text(), "(nil)");
}

}  // namespace
}  // namespace testing
}  // namespace redistp
