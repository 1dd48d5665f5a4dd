// Unit tests for Server::Push, the one path of server-initiated messages (WATCHEX today;
// Pub/Sub, tracking and keyspace notifications next): the RESP2/RESP3 framing and the ordering
// rule (a push caused by the target's own command follows that command's reply). The Server is
// built but not started (no listeners, no loop); clients are plain objects without a socket.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "server/client.h"
#include "server/config.h"
#include "server/server.h"

namespace redistp {
namespace {

constexpr std::string_view kFrameBody = "$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nADD\r\n";

class PushTest : public ::testing::Test {
 protected:
  PushTest() { target_.server = &server_; }
  void PushAdd(Client& c) {
    const std::string_view parts[] = {"watchex", "k", "ADD"};
    server_.Push(c, parts);
  }
  static std::string Out(const Client& c) { return c.out.ToString(); }

  Server server_{Config()};
  Client target_{1, -1};
};

TEST_F(PushTest, Resp2SendsAnInBandArray) {
  PushAdd(target_);
  EXPECT_EQ(Out(target_), "*3\r\n" + std::string(kFrameBody));
}

TEST_F(PushTest, Resp3SendsAPushFrame) {
  target_.reply.SetResp(3);
  PushAdd(target_);
  EXPECT_EQ(Out(target_), ">3\r\n" + std::string(kFrameBody));
}

TEST_F(PushTest, APushBetweenRepliesGoesOutAtOnce) {
  target_.reply.Simple("OK");
  PushAdd(target_);
  target_.reply.Int(7);
  EXPECT_EQ(Out(target_), "+OK\r\n*3\r\n" + std::string(kFrameBody) + ":7\r\n");
  EXPECT_EQ(target_.pending_pushes.Readable(), 0u);
}

TEST_F(PushTest, APushCausedByTheTargetsOwnCommandFollowsItsReply) {
  // The command runs (kClientExecuting, as for a whole EXEC): the push made during it is
  // held, the reply is written, and only then the push.
  target_.set_flag(kClientExecuting, true);
  target_.reply.Array(2);
  target_.reply.Simple("OK");
  PushAdd(target_);
  target_.reply.Int(1);
  EXPECT_EQ(Out(target_), "*2\r\n+OK\r\n:1\r\n") << "never inside the reply";
  server_.ReleaseHeldPushes(target_);
  target_.set_flag(kClientExecuting, false);
  EXPECT_EQ(Out(target_), "*2\r\n+OK\r\n:1\r\n*3\r\n" + std::string(kFrameBody));
  EXPECT_EQ(target_.pending_pushes.Readable(), 0u);
  server_.ReleaseHeldPushes(target_);  // nothing held: nothing added
  EXPECT_EQ(Out(target_), "*2\r\n+OK\r\n:1\r\n*3\r\n" + std::string(kFrameBody));
}

TEST_F(PushTest, HeldPushesKeepTheirOrder) {
  target_.set_flag(kClientExecuting, true);
  const std::string_view add[] = {"watchex", "k", "ADD"};
  const std::string_view del[] = {"watchex", "k", "DEL"};
  server_.Push(target_, del);
  server_.Push(target_, add);
  server_.ReleaseHeldPushes(target_);
  EXPECT_EQ(Out(target_),
            "*3\r\n$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nDEL\r\n*3\r\n" + std::string(kFrameBody));
}

TEST_F(PushTest, AClosedClientGetsNothing) {
  target_.closed = true;
  PushAdd(target_);
  EXPECT_EQ(Out(target_), "");
  EXPECT_EQ(target_.pending_pushes.Readable(), 0u);
}

}  // namespace
}  // namespace redistp
