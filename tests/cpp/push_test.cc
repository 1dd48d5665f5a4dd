// Unit tests for Server::Push, the one path of server-initiated messages (WATCHEX, Pub/Sub,
// keyspace notifications, tracking invalidations): the RESP2/RESP3 framing and the ordering
// rule (a push caused by the target's own command follows that command's reply). The Server is
// built but not started (no listeners, no loop); clients are plain objects without a socket.
#include <gtest/gtest.h>

#include <initializer_list>
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
  void PushAdd(Client& c) { PushParts(c, {"watchex", "k", "ADD"}); }
  void PushParts(Client& c, std::initializer_list<std::string_view> parts) {
    server_.Push(c, [&](ReplyBuilder& rb) {
      rb.Push(parts.size());
      for (std::string_view p : parts) rb.Bulk(p);
    });
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
  PushParts(target_, {"watchex", "k", "DEL"});
  PushAdd(target_);
  server_.ReleaseHeldPushes(target_);
  EXPECT_EQ(Out(target_),
            "*3\r\n$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nDEL\r\n*3\r\n" + std::string(kFrameBody));
}

TEST_F(PushTest, CLIENTREPLYOFFNeverStopsAPush) {
  target_.reply.SetEnabled(false);
  target_.reply.Simple("dropped");
  PushAdd(target_);
  EXPECT_EQ(Out(target_), "*3\r\n" + std::string(kFrameBody));
}

// A frame encoded once for many targets (Pub/Sub's fan-out) goes in as its bytes, under the
// same hold rule as any other push.
TEST_F(PushTest, AnEncodedFrameIsAppendedAsItIsAndHeldLikeAnyPush) {
  const std::string frame = "*3\r\n" + std::string(kFrameBody);
  target_.set_flag(kClientExecuting, true);
  server_.Push(target_, [&](ReplyBuilder& rb) { rb.Raw(frame); });
  target_.reply.Simple("OK");
  server_.ReleaseHeldPushes(target_);
  target_.set_flag(kClientExecuting, false);
  EXPECT_EQ(Out(target_), "+OK\r\n" + frame);
}

TEST_F(PushTest, AClosedClientGetsNothing) {
  target_.closed = true;
  PushAdd(target_);
  EXPECT_EQ(Out(target_), "");
  EXPECT_EQ(target_.pending_pushes.Readable(), 0u);
}

}  // namespace
}  // namespace redistp
