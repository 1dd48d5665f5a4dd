// The server's side of busy scripts (server/busy.cc), without a script: the tests put the
// server in the busy state directly, as the script engine's hook does once a script has run
// past busy-reply-threshold (the Lua side is covered by tests/unit/scripting-busy.tcl).
//   - the admission gate: BUSY for commands without allow-busy, with the EVAL or the FUNCTION
//     text, MULTI failed by it, the allow-busy commands served;
//   - a busy pass (Server::BusyPeriod::Serve) reads and answers other connections but never the
//     script's caller, and closes a connection whose peer left;
//   - the temporary keys of a session that ends while busy stay until the script is over.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <optional>
#include <string>

#include "harness.h"

namespace redistp::testing {
namespace {

constexpr const char* kBusyEval =
    "(error) BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
    "NOSAVE.";
constexpr const char* kBusyFunction =
    "(error) BUSY Redis is busy running a script. You can only call FUNCTION KILL or SHUTDOWN "
    "NOSAVE.";

// A connection attached to the server over a socketpair: the test holds the peer end.
struct RawConn {
  int peer = -1;
  Client* client = nullptr;
};

RawConn Attach(Server& server) {
  int sv[2];
  EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
  fcntl(sv[1], F_SETFL, fcntl(sv[1], F_GETFL) | O_NONBLOCK);
  RawConn c;
  c.peer = sv[1];
  c.client = server.AttachClient(sv[0], true, "raw", "raw");
  return c;
}

void Send(const RawConn& c, const std::string& bytes) {
  ASSERT_EQ(write(c.peer, bytes.data(), bytes.size()), static_cast<ssize_t>(bytes.size()));
}

// What the server wrote to the connection so far ("" if nothing).
std::string Received(const RawConn& c) {
  std::string out;
  char buf[4096];
  for (;;) {
    ssize_t n = read(c.peer, buf, sizeof(buf));
    if (n <= 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

TEST(BusyScript, TheGateAnswersBusyToCommandsWithoutAllowBusy) {
  Harness h;
  Server& s = h.server();
  auto busy = std::make_optional<Server::BusyPeriod>(s, h.Connect("caller"), /*is_eval=*/true);
  EXPECT_TRUE(s.busy_script());
  EXPECT_EQ(h.Run("x", {"GET", "k"}).Text(), kBusyEval);
  EXPECT_EQ(h.Run("x", {"PING"}).Text(), kBusyEval);
  EXPECT_EQ(h.Run("x", {"SHUTDOWN"}).Text(), kBusyEval);
  EXPECT_EQ(h.Run("x", {"SHUTDOWN", "SAVE"}).Text(), kBusyEval);
  EXPECT_EQ(h.Run("x", {"SCRIPT", "KILL"}).Text(),
            "(error) NOTBUSY No scripts in execution right now.");  // no script really runs
  // Arity and unknown commands are told first.
  EXPECT_EQ(h.Run("x", {"GET"}).Text(), "(error) ERR wrong number of arguments for 'get' command");
  // MULTI is served; a refused command fails the transaction.
  EXPECT_EQ(h.Run("x", {"MULTI"}).Text(), "OK");
  EXPECT_EQ(h.Run("x", {"SET", "k", "v"}).Text(), kBusyEval);
  EXPECT_EQ(h.Run("x", {"EXEC"}).Text(),
            "(error) EXECABORT Transaction discarded because of: BUSY Redis is busy running a "
            "script. You can only call SCRIPT KILL or SHUTDOWN NOSAVE.");
  EXPECT_EQ(h.Run("x", {"WATCH", "k"}).Text(), "OK");
  EXPECT_EQ(h.Run("x", {"UNWATCH"}).Text(), "OK");
  busy.reset();
  EXPECT_FALSE(s.busy_script());
  EXPECT_EQ(h.Run("x", {"PING"}).Text(), "PONG");
  EXPECT_EQ(h.Run("x", {"SET", "k", "v"}).Text(), "OK");
}

TEST(BusyScript, AFunctionGivesTheFunctionKillText) {
  Harness h;
  Server::BusyPeriod busy(h.server(), h.Connect("caller"), /*is_eval=*/false);
  EXPECT_EQ(h.Run("x", {"GET", "k"}).Text(), kBusyFunction);
}

TEST(BusyScript, APassServesOtherConnectionsButNeverTheCaller) {
  Harness h;
  Server& s = h.server();
  RawConn other = Attach(s);
  RawConn caller = Attach(s);
  Send(other, "PING\r\n*2\r\n$3\r\nGET\r\n$1\r\nk\r\n");
  Send(caller, "PING\r\n");
  auto period = std::make_optional<Server::BusyPeriod>(s, caller.client, /*is_eval=*/true);
  period->Serve();
  const std::string busy =
      "-BUSY Redis is busy running a script. You can only call SCRIPT KILL or SHUTDOWN "
      "NOSAVE.\r\n";
  EXPECT_EQ(Received(other), busy + busy);
  EXPECT_EQ(Received(caller), "");
  EXPECT_EQ(caller.client->query.Readable(), 0u) << "the caller's socket is not even read";
  // QUIT is served and closes the connection.
  Send(other, "QUIT\r\n");
  period->Serve();
  EXPECT_EQ(Received(other), "+OK\r\n");
  EXPECT_TRUE(other.client->closed);
  // A peer that leaves is closed by the pass too.
  RawConn third = Attach(s);
  period.reset();
  period.emplace(s, caller.client, /*is_eval=*/true);
  close(third.peer);
  period->Serve();
  EXPECT_TRUE(third.client->closed);
  EXPECT_FALSE(caller.client->closed);
  period.reset();
  close(other.peer);
  close(caller.peer);
}

TEST(BusyScript, TemporaryKeysOfASessionEndedWhileBusyGoAfterTheScript) {
  Harness h;
  Server& s = h.server();
  EXPECT_EQ(h.Run("owner", {"SETTP", "lock", "a"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("reset", {"SETTP", "lock2", "b"}).Text(), "(integer) 1");
  EXPECT_EQ(h.Run("w", {"WATCHEX", "lock", "lock2"}).Text(), "[EXIST, EXIST]");
  auto busy = std::make_optional<Server::BusyPeriod>(s, h.Connect("caller"), /*is_eval=*/true);
  h.Disconnect("owner");
  EXPECT_EQ(h.Run("reset", {"RESET"}).Text(), "RESET");
  EXPECT_EQ(s.db(0).size(), 2u) << "the keys stay while the script runs";
  EXPECT_TRUE(h.Pushes("w").empty());
  busy.reset();
  h.AdvanceTime(0);  // the end of the callback that ran the script
  EXPECT_EQ(s.db(0).size(), 0u);
  EXPECT_EQ(h.Pushes("w").size(), 2u);
}

// The script engine freezes the command clock for the script (its commands see its start
// time); a busy pass thaws it for the connections it serves and must give the frozen time
// back, or the rest of the script would run at the pass's time and see keys expire mid-way.
TEST(BusyScript, APassGivesTheScriptItsFrozenTimeBack) {
  Harness h;
  Server& s = h.server();
  EXPECT_EQ(h.Run("setup", {"SET", "k", "v", "PX", "100"}).Text(), "OK");
  RawConn other = Attach(s);
  RawConn caller = Attach(s);
  const int64_t start_ms = s.keyspace().now_ms();
  {
    CommandClock::Scope frozen = s.keyspace().command_clock.Freeze();  // as RunScript does
    Server::BusyPeriod busy(s, caller.client, /*is_eval=*/true);
    h.clock().AdvanceMs(500);  // the TTL passes while the script runs
    Send(other, "PING\r\n");
    busy.Serve();
    EXPECT_EQ(Received(other).substr(0, 6), "-BUSY ");
    EXPECT_TRUE(s.keyspace().command_clock.frozen());
    EXPECT_EQ(s.keyspace().now_ms(), start_ms);
    EXPECT_NE(s.db(0).Peek("k"), nullptr) << "the script still runs at its start time";
  }
  EXPECT_FALSE(s.keyspace().command_clock.frozen());
  EXPECT_EQ(h.Run("setup", {"EXISTS", "k"}).Text(), "(integer) 0");
  close(other.peer);
  close(caller.peer);
}

}  // namespace
}  // namespace redistp::testing
