// Unit tests for shared frames in ReplyBuffer (util/reply_buffer.h) and PushFrame
// (protocol/push_frame.h): one encoded push referenced by many receivers' buffers, never
// copied; its lifetime when receivers write part of it, disconnect or are refused by the
// output limit; the accounting each receiver reports (omem); and a model check of random
// operations mixing shared frames with ordinary appends. (The sanitizer flavour runs these
// under ASan, which turns any use of a freed frame into a failure.)
#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

#include "protocol/push_frame.h"
#include "protocol/reply_builder.h"
#include "reply_gather.h"
#include "util/reply_buffer.h"

namespace redistp {
namespace {

TEST(SharedFrameTest, ReceiversReferenceOneCopyOfTheFrame) {
  const std::string bytes(5000, 'm');
  SharedFrame frame(bytes);
  EXPECT_EQ(frame.refs(), 1u);
  std::vector<std::unique_ptr<ReplyBuffer>> receivers;
  for (int i = 0; i < 10; ++i) {
    receivers.push_back(std::make_unique<ReplyBuffer>());
    receivers.back()->Append("+OK\r\n");  // a reply pending before the push
    receivers.back()->AppendShared(frame);
  }
  EXPECT_EQ(frame.refs(), 11u);
  for (auto& r : receivers) {
    // The reply and the frame go out in one writev: the frame's iovec points at the one copy.
    iovec iov[4];
    ASSERT_EQ(r->Gather(iov, 4), 2);
    EXPECT_EQ(iov[1].iov_base, static_cast<const void*>(frame.view().data()));
    EXPECT_EQ(r->ToString(), "+OK\r\n" + bytes);
    // Each receiver's omem counts the frame in full, as Redis counts its copy.
    EXPECT_EQ(r->block_bytes(), bytes.size());
    EXPECT_EQ(r->block_count(), 1u);
  }
  // The encoder lets go: the receivers keep the frame alive.
  frame.Reset();
  EXPECT_EQ(receivers[0]->ToString(), "+OK\r\n" + bytes);
}

TEST(SharedFrameTest, PartialWritesAndAReceiverGoneMidWriteLeaveTheOthersIntact) {
  std::string bytes;
  for (int i = 0; i < 3000; ++i) bytes.push_back(static_cast<char>('a' + i % 26));
  SharedFrame frame(bytes);
  auto a = std::make_unique<ReplyBuffer>();
  ReplyBuffer b;
  a->AppendShared(frame);
  b.AppendShared(frame, 1);  // a RESP3 receiver: its own '>' went before
  frame.Reset();
  // `a` writes part of the frame, then its connection is gone (the buffer is freed).
  a->Consume(1234);
  EXPECT_EQ(a->ToString(), bytes.substr(1234));
  a.reset();
  // `b` writes it in odd pieces and sees the bytes unchanged.
  std::string written;
  size_t step = 1;
  while (b.Readable() > 0) {
    std::string pending = Gathered(b);
    size_t n = std::min(step, pending.size());
    written += pending.substr(0, n);
    b.Consume(n);
    step = step * 3 + 1;
  }
  EXPECT_EQ(written, bytes.substr(1));
  EXPECT_EQ(b.block_bytes(), 0u);
  EXPECT_EQ(b.block_count(), 0u);
}

TEST(SharedFrameTest, AppendsAfterASharedFrameNeverWriteIntoIt) {
  SharedFrame frame(std::string(2000, 'f'));
  ReplyBuffer b;
  b.AppendShared(frame);
  b.Append("+OK\r\n");
  b.InsertAt(1000, "*2\r\n");  // a deferred header inside the frame's bytes splits the piece
  EXPECT_EQ(frame.view(), std::string(2000, 'f'));
  EXPECT_EQ(b.ToString(), std::string(1000, 'f') + "*2\r\n" + std::string(1000, 'f') + "+OK\r\n");
  EXPECT_EQ(frame.refs(), 3u);  // the handle and two pieces of `b`
  b.TruncateTo(500);            // a rolled-back reply shortens the view only
  EXPECT_EQ(frame.view(), std::string(2000, 'f'));
  EXPECT_EQ(b.ToString(), std::string(500, 'f'));
  EXPECT_EQ(frame.refs(), 2u);
  b.Clear();
  EXPECT_EQ(frame.refs(), 1u);
  EXPECT_EQ(b.block_bytes(), 0u);
}

TEST(SharedFrameTest, HeldPushesMovedAfterAReplyKeepReferencingTheFrame) {
  SharedFrame frame(std::string(4000, 'p'));
  ReplyBuffer held, out;
  held.Append(">");
  held.AppendShared(frame, 1);
  out.Append("+OK\r\n");
  out.Append(held);  // Server::ReleaseHeldPushes
  held.Clear();
  EXPECT_EQ(frame.refs(), 2u);  // the handle and `out`'s piece: no copy was made
  EXPECT_EQ(out.ToString(), "+OK\r\n>" + std::string(3999, 'p'));
}

TEST(SharedFrameTest, TheOutputLimitIsAskedForAFrameAndRefusalReleasesIt) {
  SharedFrame frame(std::string(3000, 's'));
  ReplyBuffer b;
  struct Seen {
    int calls = 0;
    size_t last = 0;
  } seen;
  b.SetLimitCheck(
      [](void* ctx, size_t would_hold) {
        auto* s = static_cast<Seen*>(ctx);
        ++s->calls;
        s->last = would_hold;
        return would_hold > 7000;
      },
      &seen);
  b.AppendShared(frame);
  b.AppendShared(frame);
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.last, 6000u);
  EXPECT_EQ(frame.refs(), 3u);
  b.AppendShared(frame);  // 9000 bytes would be held: refused, everything goes
  EXPECT_TRUE(b.refused());
  EXPECT_EQ(b.Readable(), 0u);
  EXPECT_EQ(b.block_bytes(), 0u);
  EXPECT_EQ(frame.refs(), 1u);
  b.AppendShared(frame);
  EXPECT_EQ(frame.refs(), 1u);
  EXPECT_EQ(seen.calls, 3);
}

TEST(SharedFrameTest, PushFrameCopiesSmallFramesAndSharesBigOnesInBothProtocols) {
  PushFrame small;
  small.AppendHeader(3);
  small.AppendBulk("watchex");
  small.AppendBulk("k");
  small.AppendBulk("ADD");
  small.Seal();
  EXPECT_FALSE(small.shared());
  ReplyBuffer out2, out3;
  ReplyBuilder rb2(&out2), rb3(&out3);
  rb3.SetResp(3);
  small.WriteTo(rb2);
  small.WriteTo(rb3);
  EXPECT_EQ(out2.ToString(), "*3\r\n$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nADD\r\n");
  EXPECT_EQ(out3.ToString(), ">3\r\n$7\r\nwatchex\r\n$1\r\nk\r\n$3\r\nADD\r\n");
  EXPECT_EQ(out2.block_count(), 0u);

  const std::string key(PushFrame::kShareMin, 'k');
  PushFrame big;
  big.AppendHeader(3);
  big.AppendBulk("watchex");
  big.AppendBulk(key);
  big.AppendBulk("DEL");
  big.Seal();
  ASSERT_TRUE(big.shared());
  const std::string body =
      "3\r\n$7\r\nwatchex\r\n$" + std::to_string(key.size()) + "\r\n" + key + "\r\n$3\r\nDEL\r\n";
  out2.Clear();
  out3.Clear();
  big.WriteTo(rb2);
  big.WriteTo(rb3);
  big.Release();  // the receivers hold it now
  EXPECT_EQ(out2.ToString(), "*" + body);
  EXPECT_EQ(out3.ToString(), ">" + body);
}

// A model check: random appends, shared frames (whole or from an offset), inserts, partial
// consumes and truncations against a std::string; frames are dropped by their encoder at
// random, so buffers often hold the last reference.
TEST(SharedFrameTest, RandomOperationsWithSharedFramesMatchAString) {
  std::mt19937 rng(11);
  for (int round = 0; round < 40; ++round) {
    ReplyBuffer a, b;
    std::string ma, mb;
    for (int op = 0; op < 300; ++op) {
      const int kind = static_cast<int>(rng() % 12);
      if (kind < 4) {
        size_t n = rng() % 4 == 0 ? rng() % 40000 : rng() % 100;
        std::string s(n, static_cast<char>('a' + rng() % 26));
        a.Append(s);
        ma += s;
      } else if (kind < 7) {
        // One frame to both buffers, as a fan-out does.
        std::string s(1 + rng() % 5000, static_cast<char>('A' + rng() % 26));
        s[0] = '*';
        SharedFrame frame(s);
        size_t from = rng() % 2;
        a.AppendShared(frame, from);
        b.AppendShared(frame);
        ma += s.substr(from);
        mb += s;
      } else if (kind < 8) {
        size_t at = ma.empty() ? 0 : rng() % (ma.size() + 1);
        std::string s = "*" + std::to_string(rng() % 100000) + "\r\n";
        a.InsertAt(at, s);
        ma.insert(at, s);
      } else if (kind < 10) {
        size_t n = ma.empty() ? 0 : rng() % (ma.size() + 1);
        a.Consume(n);
        ma.erase(0, n);
        n = mb.empty() ? 0 : rng() % (mb.size() + 1);
        b.Consume(n);
        mb.erase(0, n);
      } else if (kind < 11) {
        size_t keep = ma.empty() ? 0 : rng() % (ma.size() + 1);
        a.TruncateTo(keep);
        ma.resize(keep);
      } else if (mb.size() < 20000) {
        // Held pushes moved after a reply.
        a.Append(b);
        ma += mb;
      }
      ASSERT_EQ(a.Readable(), ma.size());
      ASSERT_EQ(a.ToString(), ma);
      ASSERT_EQ(Gathered(a), ma);
      ASSERT_EQ(b.ToString(), mb);
    }
    a.Consume(a.Readable());
    b.Clear();
    EXPECT_EQ(a.block_bytes(), 0u);
    EXPECT_EQ(b.block_bytes(), 0u);
  }
}

}  // namespace
}  // namespace redistp
