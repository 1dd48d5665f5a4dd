// Unit tests for ReplyBuffer: order of bytes across the static buffer and the blocks, deferred
// inserts at any offset, gathering for writev, and the memory accounting CLIENT LIST reports
// (omem counts only blocks; a drained buffer holds no block; a backlog costs what it holds).
#include "util/reply_buffer.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

#include "reply_gather.h"

namespace redistp {
namespace {

TEST(ReplyBufferTest, SmallRepliesStayInTheStaticBuffer) {
  ReplyBuffer b;
  b.Append("+OK\r\n");
  b.Append(':');
  b.Append("1\r\n");
  EXPECT_EQ(b.ToString(), "+OK\r\n:1\r\n");
  EXPECT_EQ(b.static_used(), 9u);
  EXPECT_EQ(b.block_count(), 0u);
  EXPECT_EQ(b.block_bytes(), 0u);
  b.Consume(9);
  EXPECT_EQ(b.Readable(), 0u);
}

TEST(ReplyBufferTest, ABacklogCostsWhatItHolds) {
  ReplyBuffer b;
  std::string chunk(1000, 'x');
  for (int i = 0; i < 10000; ++i) b.Append(chunk);  // 10 MB
  EXPECT_EQ(b.Readable(), 10000000u);
  EXPECT_EQ(b.static_used(), ReplyBuffer::kStaticMax);
  // Every block but the last is full: at most one block's worth of slack.
  EXPECT_LE(b.block_bytes(), b.Readable() - b.static_used() + ReplyBuffer::kBlockBytes);
  b.Consume(b.Readable());
  EXPECT_EQ(b.block_count(), 0u);
  EXPECT_EQ(b.block_bytes(), 0u);
}

TEST(ReplyBufferTest, ABigValueGetsOneBlockOfItsSize) {
  ReplyBuffer b;
  b.Append(std::string(ReplyBuffer::kStaticMax, 'a'));
  b.Append(std::string(1 << 20, 'b'));
  EXPECT_EQ(b.block_count(), 1u);
  EXPECT_EQ(b.block_bytes(), size_t{1} << 20);
}

TEST(ReplyBufferTest, AppendsAfterABlockExistNeverGoBackToTheStaticBuffer) {
  ReplyBuffer b;
  b.Append(std::string(ReplyBuffer::kStaticMax + 10, 'a'));
  b.Consume(100);  // room in the static buffer again
  b.Append("tail");
  std::string s = b.ToString();
  EXPECT_EQ(s.substr(s.size() - 4), "tail");
  EXPECT_EQ(s.size(), ReplyBuffer::kStaticMax + 10 - 100 + 4);
}

// A model check: random appends, inserts, consumes and truncations against a std::string.
TEST(ReplyBufferTest, RandomOperationsMatchAString) {
  std::mt19937 rng(7);
  for (int round = 0; round < 50; ++round) {
    ReplyBuffer b;
    std::string model;
    for (int op = 0; op < 300; ++op) {
      int kind = static_cast<int>(rng() % 10);
      if (kind < 6) {
        size_t n = rng() % 4 == 0 ? rng() % 40000 : rng() % 100;
        std::string s(n, static_cast<char>('a' + rng() % 26));
        b.Append(s);
        model += s;
      } else if (kind < 8) {
        size_t at = model.empty() ? 0 : rng() % (model.size() + 1);
        std::string s = "*" + std::to_string(rng() % 100000) + "\r\n";
        b.InsertAt(at, s);
        model.insert(at, s);
      } else if (kind < 9) {
        size_t n = model.empty() ? 0 : rng() % (model.size() + 1);
        b.Consume(n);
        model.erase(0, n);
      } else {
        // A rolled-back reply: everything after a random point goes.
        size_t keep = model.empty() ? 0 : rng() % (model.size() + 1);
        b.TruncateTo(keep);
        model.resize(keep);
      }
      ASSERT_EQ(b.Readable(), model.size());
      ASSERT_EQ(b.ToString(), model);
      ASSERT_EQ(Gathered(b), model);
      const size_t skip = model.empty() ? 0 : rng() % (model.size() + 1);
      ASSERT_EQ(GatheredFrom(b, skip), model.substr(skip));
    }
    b.Consume(b.Readable());
    EXPECT_EQ(b.block_bytes(), 0u);
  }
}

// A reply written after a mark and then rolled back (a script's reply conversion that ran out of
// memory) leaves what was pending before the mark, in the static buffer and in blocks.
TEST(ReplyBufferTest, TruncateToDropsWhatFollowsAMark) {
  ReplyBuffer b;
  b.Append("+OK\r\n");
  const size_t mark = b.Readable();
  b.Append(std::string(100000, 'x'));
  EXPECT_GT(b.block_count(), 0u);
  b.TruncateTo(mark);
  EXPECT_EQ(b.ToString(), "+OK\r\n");
  EXPECT_EQ(b.block_count(), 0u);
  EXPECT_EQ(b.block_bytes(), 0u);
  b.Append(std::string(40000, 'y'));
  const size_t mark2 = b.Readable();
  b.Append("tail");
  b.TruncateTo(mark2);
  EXPECT_EQ(b.Readable(), mark2);
  b.Append("z");
  std::string s = b.ToString();
  EXPECT_EQ(s.substr(s.size() - 2), "yz");
  b.TruncateTo(b.Readable() + 10);  // past the end: nothing to drop
  EXPECT_EQ(b.ToString(), s);
}

TEST(ReplyBufferTest, AppendCopiesAnotherBuffer) {
  ReplyBuffer a, b;
  a.Append("reply\r\n");
  b.Append(std::string(20000, 'p'));
  a.Append(b);
  EXPECT_EQ(a.ToString(), "reply\r\n" + std::string(20000, 'p'));
  EXPECT_EQ(b.Readable(), 20000u);
}

TEST(ReplyBufferTest, PreallocatedBufferIsSizedByItsPeakNotByAppends) {
  ReplyBuffer b;
  b.Preallocate(ReplyBuffer::kStaticMax);
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMax);
  EXPECT_EQ(b.static_peak(), ReplyBuffer::kStaticMax);  // counted as full until a reset
  // Full peak: nothing changes; the reset restarts the peak from what is pending (nothing).
  EXPECT_FALSE(b.CronResize(true, true));
  EXPECT_EQ(b.static_peak(), 0u);
  // A quiet interval: down to the minimum.
  EXPECT_TRUE(b.CronResize(true, true));
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMin);
  // A reply bigger than the buffer fills it and spills into a block; the buffer does not grow.
  std::string big(3000, 'x');
  b.Append(big);
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMin);
  EXPECT_EQ(b.block_count(), 1u);
  EXPECT_EQ(b.static_peak(), ReplyBuffer::kStaticMin);
  EXPECT_FALSE(b.CronResize(true, false));  // bytes pending: decided, not applied
  b.Consume(big.size());
  // Used to the last byte: it doubles, without the peak restarting (PEAK-RESET-TIME NEVER).
  EXPECT_TRUE(b.CronResize(true, false));
  EXPECT_EQ(b.static_capacity(), 2 * ReplyBuffer::kStaticMin);
  // The peak (1 KB) is not under half of 2 KB: the size holds; the peak restarts (0).
  EXPECT_FALSE(b.CronResize(true, true));
  EXPECT_EQ(b.static_peak(), 0u);
  // A small peak shrinks it to the peak plus one, never under the minimum.
  b.Append(std::string(100, 'y'));
  b.Consume(100);
  EXPECT_TRUE(b.CronResize(true, true));
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMin);
  // Resizing off: the peak still restarts, the size never changes.
  b.Append(std::string(1024, 'z'));
  b.Consume(1024);
  EXPECT_FALSE(b.CronResize(false, true));
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMin);
  b.Append("abc");
  EXPECT_EQ(b.ToString(), "abc");
}

TEST(ReplyBufferTest, BufferNotPreallocatedGrowsOnDemandAndIsNeverResized) {
  ReplyBuffer b;
  std::string big(9000, 'x');
  b.Append(big);
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMax);
  EXPECT_EQ(b.block_count(), 0u);
  b.Consume(big.size());
  EXPECT_FALSE(b.CronResize(true, true));
  EXPECT_EQ(b.static_capacity(), ReplyBuffer::kStaticMax);
}

TEST(ReplyBufferTest, LimitCheckIsAskedPerBlockAndRefusalDropsEverything) {
  ReplyBuffer b;
  b.Preallocate(ReplyBuffer::kStaticMin);
  struct Seen {
    int calls = 0;
    size_t last = 0;
    size_t limit = 3 * ReplyBuffer::kBlockBytes;
  } seen;
  b.SetLimitCheck(
      [](void* ctx, size_t would_hold) {
        auto* s = static_cast<Seen*>(ctx);
        ++s->calls;
        s->last = would_hold;
        return would_hold >= s->limit;
      },
      &seen);
  // Bytes that fit the static buffer never ask.
  b.Append(std::string(ReplyBuffer::kStaticMin, 'a'));
  EXPECT_EQ(seen.calls, 0);
  // Small appends fill one block with one question.
  for (int i = 0; i < 100; ++i) b.Append(std::string(100, 'b'));
  EXPECT_EQ(seen.calls, 1);
  EXPECT_EQ(seen.last, ReplyBuffer::kBlockBytes);
  EXPECT_FALSE(b.refused());
  // A big append fills the tail block's room, then asks for one block of the rest; over the
  // limit, everything held goes.
  const size_t room = ReplyBuffer::kBlockBytes - 100 * 100;
  b.Append(std::string(4 * ReplyBuffer::kBlockBytes, 'c'));
  EXPECT_EQ(seen.calls, 2);
  EXPECT_EQ(seen.last, ReplyBuffer::kBlockBytes + 4 * ReplyBuffer::kBlockBytes - room);
  EXPECT_TRUE(b.refused());
  EXPECT_EQ(b.Readable(), 0u);
  EXPECT_EQ(b.block_bytes(), 0u);
  // Nothing is taken afterwards, small or big, appended or inserted, and nobody is asked.
  b.Append("small");
  b.Append(std::string(ReplyBuffer::kBlockBytes, 'd'));
  b.InsertAt(0, "*2\r\n");
  EXPECT_EQ(b.Readable(), 0u);
  EXPECT_EQ(b.block_count(), 0u);
  EXPECT_EQ(seen.calls, 2);
  iovec iov[4];
  EXPECT_EQ(b.Gather(iov, 4), 0);
}

}  // namespace
}  // namespace redistp
