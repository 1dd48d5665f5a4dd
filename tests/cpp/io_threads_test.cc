// Unit tests for IoThreads (util/io_threads.h) and the write the I/O threads run
// (ReplyBuffer::WriteTo): every slice of every job runs once, on its own worker, and its results
// are visible when Run returns; many connections' buffers, sharing frames, written from several
// threads at once reach their sockets byte for byte, and the frames' references come back to
// their handles only through Consume on the owner's thread.
#include "util/io_threads.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "util/reply_buffer.h"

namespace redistp {
namespace {

struct Slices {
  std::vector<int> runs;               // per worker, plain ints: written by that worker only
  std::vector<std::thread::id> where;  // the thread that ran each slice last
};

void CountSlice(void* ctx, int w) {
  auto* s = static_cast<Slices*>(ctx);
  ++s->runs[static_cast<size_t>(w)];
  s->where[static_cast<size_t>(w)] = std::this_thread::get_id();
}

TEST(IoThreadsTest, EverySliceRunsOncePerJobAndItsResultsAreVisible) {
  for (int workers : {1, 2, 4}) {
    IoThreads pool(workers);
    EXPECT_EQ(pool.workers(), workers);
    Slices s;
    s.runs.assign(static_cast<size_t>(workers), 0);
    s.where.resize(static_cast<size_t>(workers));
    constexpr int kJobs = 3000;
    for (int j = 0; j < kJobs; ++j) pool.Run(&CountSlice, &s);
    for (int w = 0; w < workers; ++w) EXPECT_EQ(s.runs[static_cast<size_t>(w)], kJobs) << w;
    // Slice 0 is the caller's; the others ran on threads of their own.
    EXPECT_EQ(s.where[0], std::this_thread::get_id());
    for (int w = 1; w < workers; ++w) {
      EXPECT_NE(s.where[static_cast<size_t>(w)], std::this_thread::get_id());
      for (int v = w + 1; v < workers; ++v) {
        EXPECT_NE(s.where[static_cast<size_t>(w)], s.where[static_cast<size_t>(v)]);
      }
    }
  }
}

TEST(IoThreadsTest, HelpersThatFellAsleepWakeForTheNextJob) {
  IoThreads pool(3);
  Slices s;
  s.runs.assign(3, 0);
  s.where.resize(3);
  for (int j = 0; j < 5; ++j) {
    pool.Run(&CountSlice, &s);
    // Longer than a helper spins (50 µs): each job finds the helpers asleep.
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(s.runs, (std::vector<int>{5, 5, 5}));
}

struct Conn {
  int ours = -1;    // the server's end, non-blocking
  int theirs = -1;  // the client's end
  ReplyBuffer out;
  std::string expected;
  std::string received;
};

struct Pass {
  std::vector<Conn*> conns;
  std::vector<size_t> written;
  std::vector<int> err;
  int workers;
};

void WriteConns(void* ctx, int w) {
  auto* p = static_cast<Pass*>(ctx);
  for (size_t i = static_cast<size_t>(w); i < p->conns.size();
       i += static_cast<size_t>(p->workers)) {
    p->err[i] = p->conns[i]->out.WriteTo(p->conns[i]->ours, &p->written[i]);
  }
}

void Drain(Conn* c) {
  char buf[65536];
  for (;;) {
    ssize_t n = read(c->theirs, buf, sizeof(buf));
    if (n <= 0) return;
    c->received.append(buf, static_cast<size_t>(n));
  }
}

TEST(IoThreadsTest, SharedFramesWrittenFromSeveralThreadsArriveWhole) {
  signal(SIGPIPE, SIG_IGN);
  constexpr int kConns = 24;
  constexpr int kWorkers = 4;
  std::string big(300000, 'f');
  for (size_t i = 0; i < big.size(); i += 997) big[i] = static_cast<char>('a' + i % 26);
  SharedFrame frame(big);
  SharedFrame small("*3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$5\r\nhello\r\n");
  std::vector<Conn> conns(kConns);
  for (int i = 0; i < kConns; ++i) {
    int sv[2];
    ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    conns[i].ours = sv[0];
    conns[i].theirs = sv[1];
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    fcntl(sv[1], F_SETFL, O_NONBLOCK);
    // Each buffer: its own reply, the big frame, its own again, the small frame 50 times.
    std::string own = "+reply-" + std::to_string(i) + "\r\n";
    conns[i].out.Append(own);
    conns[i].out.AppendShared(frame);
    conns[i].out.Append(own);
    conns[i].expected = own + big + own;
    for (int k = 0; k < 50; ++k) {
      conns[i].out.AppendShared(small);
      conns[i].expected += small.view();
    }
  }
  EXPECT_EQ(frame.refs(), 1u + kConns);
  IoThreads pool(kWorkers);
  Pass pass;
  pass.workers = kWorkers;
  for (Conn& c : conns) pass.conns.push_back(&c);
  // Passes until every buffer is written: the sockets fill, the reader drains them between
  // passes, as the event loop's next turn would.
  for (int round = 0; round < 10000; ++round) {
    pass.written.assign(kConns, 0);
    pass.err.assign(kConns, 0);
    pool.Run(&WriteConns, &pass);
    bool left = false;
    for (int i = 0; i < kConns; ++i) {
      ASSERT_EQ(pass.err[i], 0);
      conns[i].out.Consume(pass.written[i]);
      Drain(&conns[i]);
      left = left || conns[i].out.Readable() > 0;
    }
    if (!left) break;
  }
  for (int i = 0; i < kConns; ++i) {
    EXPECT_EQ(conns[i].out.Readable(), 0u);
    EXPECT_EQ(conns[i].received, conns[i].expected) << i;
  }
  EXPECT_EQ(frame.refs(), 1u);
  EXPECT_EQ(small.refs(), 1u);
  for (Conn& c : conns) {
    close(c.ours);
    close(c.theirs);
  }
}

TEST(IoThreadsTest, WriteToReportsAFailedWriteAndConsumesNothing) {
  signal(SIGPIPE, SIG_IGN);
  int sv[2];
  ASSERT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  close(sv[1]);
  ReplyBuffer b;
  b.Append("+OK\r\n");
  size_t written = 99;
  EXPECT_EQ(b.WriteTo(sv[0], &written), EPIPE);
  EXPECT_EQ(written, 0u);
  EXPECT_EQ(b.Readable(), 5u);
  close(sv[0]);
}

}  // namespace
}  // namespace redistp
