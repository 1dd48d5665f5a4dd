// Fencing tokens that never repeat (watch/fence.h, server/fence_file.h; issue 20, defect 3):
// the reservation logic against a store that records and can fail, restarts simulated by a new
// counter raised the way StartFencing raises it, the commands' errors when nothing can be
// reserved (SETTP, BSETTP at once and by a hand-off), and the file's format and crash-safe
// write in a temporary directory.
#include "watch/fence.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness.h"
#include "server/fence_file.h"

namespace redistp {
namespace {

using testing::Frame;
using testing::Harness;

constexpr uint64_t kBlock = FenceCounter::kBlock;

// Records every mark it is asked to persist; fails while `fail` is set.
class RecordingStore : public FenceStore {
 public:
  Status Persist(uint64_t mark) override {
    ++calls;
    if (fail) return Status::Error("disk full");
    marks.push_back(mark);
    return Status::Ok();
  }
  uint64_t durable() const { return marks.empty() ? 0 : marks.back(); }
  std::vector<uint64_t> marks;
  int calls = 0;
  bool fail = false;
};

TEST(FenceCounterTest, WithoutAStoreItOnlyCounts) {
  FenceCounter f;
  EXPECT_EQ(f.Next().value(), 1u);
  EXPECT_EQ(f.Next().value(), 2u);
  EXPECT_EQ(f.reserved(), 0u);
}

TEST(FenceCounterTest, TheFirstTokenReservesItsWholeBlockFirst) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  f.Raise(5 * kBlock + 17);
  Result<uint64_t> t = f.Next();
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t.value(), 5 * kBlock + 18);
  ASSERT_EQ(store.marks, (std::vector<uint64_t>{6 * kBlock - 1}));
  // Every other token of the block needs no write.
  for (int i = 0; i < 1000; ++i) ASSERT_TRUE(f.Next().ok());
  EXPECT_EQ(store.calls, 1);
  EXPECT_EQ(f.reserved(), 6 * kBlock - 1);
}

TEST(FenceCounterTest, CrossingABlockReservesTheNextOne) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  f.Raise(kBlock - 3);
  for (int i = 0; i < 2; ++i) ASSERT_TRUE(f.Next().ok());  // up to kBlock - 1 included
  EXPECT_EQ(store.marks, (std::vector<uint64_t>{kBlock - 1}));
  EXPECT_EQ(f.Next().value(), kBlock);  // the first token of block 1, its epoch
  EXPECT_EQ(store.marks, (std::vector<uint64_t>{kBlock - 1, 2 * kBlock - 1}));
  EXPECT_EQ(f.reservations(), 2u);
}

TEST(FenceCounterTest, AFailedReservationHandsOutNothingAndTheNextCallRetries) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  f.Raise(100);
  store.fail = true;
  Result<uint64_t> t = f.Next();
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().message(), "disk full");
  EXPECT_FALSE(f.Next().ok());
  EXPECT_EQ(f.last(), 100u);  // nothing was handed out
  EXPECT_EQ(f.failures(), 2u);
  store.fail = false;
  EXPECT_EQ(f.Next().value(), 101u);
  EXPECT_EQ(store.durable(), kBlock - 1);
}

TEST(FenceCounterTest, EveryTokenHandedOutIsAtMostTheDurableMark) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  f.Raise(3 * kBlock - 50);
  for (int i = 0; i < 200; ++i) {
    store.fail = (i % 7 == 3);  // some reservations fail on the way
    Result<uint64_t> t = f.Next();
    if (t.ok()) {
      ASSERT_LE(t.value(), store.durable());
    }
  }
}

// A restart after a crash: the new counter starts from what a new process knows — an old
// saved counter (the RDB file's, far behind), the stored mark, a clock that went back — and
// its next token is above every token of the run before.
TEST(FenceCounterTest, TokensAfterACrashAreAboveEveryEarlierOne) {
  RecordingStore store;
  uint64_t saved_counter = 0, highest = 0;
  const uint64_t clock_us = 1'000'000;
  {
    FenceCounter run1;
    run1.set_store(&store);
    run1.Raise(clock_us);
    for (int i = 0; i < 100; ++i) {
      highest = run1.Next().value();
      if (i == 10) saved_counter = run1.last();  // the last save before the crash
    }
  }
  for (int restart = 0; restart < 3; ++restart) {
    FenceCounter next;
    next.Raise(saved_counter);
    next.Raise(store.durable());
    next.Raise(clock_us / 2);  // the clock stepped back
    next.set_store(&store);
    uint64_t first = next.Next().value();
    EXPECT_GT(first, highest);
    // A start resumes at the next block: its first token opens a new epoch.
    EXPECT_EQ(first % kBlock, 0u);
    highest = first;
  }
}

TEST(FenceCounterTest, ReplayedTokensNeedNoReservation) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  EXPECT_EQ(f.Replayed(), 1u);
  EXPECT_EQ(f.Replayed(), 2u);
  EXPECT_EQ(store.calls, 0);
  EXPECT_EQ(f.Next().value(), 3u);
  EXPECT_EQ(store.calls, 1);
}

TEST(FenceCounterTest, AMovedFileIsReservedAgain) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  ASSERT_TRUE(f.Next().ok());
  f.ForgetReservation();
  ASSERT_TRUE(f.Next().ok());
  EXPECT_EQ(store.marks, (std::vector<uint64_t>{kBlock - 1, kBlock - 1}));
}

// A floor from another node (issue 26: a slot's new owner raised to its old owner's counter).
TEST(FenceCounterTest, ARaisedFloorIsDurableBeforeAnyToken) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  ASSERT_TRUE(f.Next().ok());  // mark kBlock - 1
  const uint64_t floor = 7 * kBlock + 5;
  ASSERT_TRUE(f.RaiseDurable(floor).ok());
  EXPECT_EQ(f.last(), floor);
  EXPECT_EQ(store.durable(), 8 * kBlock - 1);
  EXPECT_GE(f.reserved(), floor);
  // A crash now: the restarted counter starts from the durable mark, above the floor.
  FenceCounter restarted;
  restarted.Raise(store.durable());
  restarted.set_store(&store);
  EXPECT_GT(restarted.Next().value(), floor);
  // Tokens of this run go on above the floor, within the block already reserved.
  const int calls = store.calls;
  EXPECT_EQ(f.Next().value(), floor + 1);
  EXPECT_EQ(store.calls, calls);
}

TEST(FenceCounterTest, AFloorBelowTheCounterWritesNothing) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  f.Raise(3 * kBlock);
  ASSERT_TRUE(f.Next().ok());
  const int calls = store.calls;
  ASSERT_TRUE(f.RaiseDurable(2 * kBlock).ok());
  ASSERT_TRUE(f.RaiseDurable(3 * kBlock + 1).ok());  // its own last token
  ASSERT_TRUE(f.RaiseDurable(4 * kBlock - 1).ok());  // within the reserved block
  EXPECT_EQ(store.calls, calls);
  EXPECT_EQ(f.last(), 4 * kBlock - 1);
}

TEST(FenceCounterTest, AFloorThatCannotBeMadeDurableStillStopsLowerTokens) {
  RecordingStore store;
  FenceCounter f;
  f.set_store(&store);
  store.fail = true;
  const uint64_t floor = 9 * kBlock + 1;
  EXPECT_FALSE(f.RaiseDurable(floor).ok());
  EXPECT_EQ(f.last(), floor);   // raised in memory
  EXPECT_FALSE(f.Next().ok());  // and nothing is handed out until a reservation succeeds
  store.fail = false;
  EXPECT_EQ(f.Next().value(), floor + 1);
  EXPECT_EQ(store.durable(), 10 * kBlock - 1);
}

// Records the marks a listener hears of.
class RecordingListener : public FenceListener {
 public:
  void OnReserved(uint64_t mark) override { marks.push_back(mark); }
  std::vector<uint64_t> marks;
};

TEST(FenceCounterTest, TheListenerHearsEveryDurableMarkAndOnlyThose) {
  RecordingStore store;
  RecordingListener listener;
  FenceCounter f;
  f.set_store(&store);
  f.set_listener(&listener);
  ASSERT_TRUE(f.Next().ok());
  ASSERT_TRUE(f.Next().ok());
  ASSERT_TRUE(f.RaiseDurable(2 * kBlock).ok());
  store.fail = true;
  EXPECT_FALSE(f.RaiseDurable(5 * kBlock).ok());
  EXPECT_FALSE(f.Next().ok());
  EXPECT_EQ(listener.marks, (std::vector<uint64_t>{kBlock - 1, 3 * kBlock - 1}));
  EXPECT_EQ(listener.marks, store.marks);
}

// --- the commands ------------------------------------------------------------------------------

TEST(FenceCommandsTest, SetTpFenceIsRefusedAndCreatesNothingWhenNothingCanBeReserved) {
  Harness h;
  RecordingStore store;
  h.server().owners().fences().set_store(&store);
  store.fail = true;
  Frame r = h.Run("a", {"SETTP", "lock", "v", "FENCE"});
  EXPECT_EQ(r.Text(),
            "(error) ERR fencing token unavailable: the reservation could not be made durable "
            "(disk full)");
  EXPECT_EQ(h.Run("a", {"EXISTS", "lock"}).Text(), "(integer) 0");
  // SETTP without FENCE needs no token.
  EXPECT_EQ(h.Run("a", {"SETTP", "plain", "v"}).Text(), "(integer) 1");
  store.fail = false;
  Frame t = h.Run("a", {"SETTP", "lock", "v", "FENCE"});
  ASSERT_EQ(t.kind, Frame::Kind::kInt);
  EXPECT_LE(static_cast<uint64_t>(t.integer), store.durable());
  EXPECT_EQ(h.Run("a", {"OBJECT", "FENCE", "lock"}).integer, t.integer);
}

TEST(FenceCommandsTest, ABsetTpHandOffThatGetsNoTokenFailsAndTheNextWaiterIsServed) {
  Harness h;
  RecordingStore store;
  h.server().owners().fences().set_store(&store);
  ASSERT_EQ(h.Run("holder", {"SETTP", "lock", "h"}).Text(), "(integer) 1");
  EXPECT_TRUE(h.Run("fenced", {"BSETTP", "lock", "f", "0", "FENCE"}).is_none());
  EXPECT_TRUE(h.Run("plain", {"BSETTP", "lock", "p", "0"}).is_none());
  store.fail = true;
  EXPECT_EQ(h.Run("holder", {"DELTP", "lock"}).Text(), "(integer) 1");
  EXPECT_EQ(h.TakeReply("fenced").Text(),
            "(error) ERR fencing token unavailable: the reservation could not be made durable "
            "(disk full)");
  EXPECT_EQ(h.TakeReply("plain").Text(), "(integer) 1");
  EXPECT_EQ(h.Run("holder", {"GET", "lock"}).Text(), "\"p\"");
  // BSETTP FENCE that creates at once is refused the same way, nothing created.
  EXPECT_EQ(h.Run("fenced", {"BSETTP", "free", "f", "0", "FENCE"}).kind, Frame::Kind::kError);
  EXPECT_EQ(h.Run("fenced", {"EXISTS", "free"}).Text(), "(integer) 0");
}

// --- the file ------------------------------------------------------------------------------

class FenceFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/fence-test-XXXXXX";
    ASSERT_NE(mkdtemp(tmpl), nullptr);
    dir_ = tmpl;
    ASSERT_EQ(getcwd(old_cwd_, sizeof(old_cwd_)) != nullptr, true);
    ASSERT_EQ(chdir(dir_.c_str()), 0);  // the file lives in the working directory, `dir`
    config_.tp_fence_file = "redistp-fence";
  }
  void TearDown() override {
    unlink("redistp-fence");
    unlink("redistp-fence.tmp");
    ASSERT_EQ(chdir(old_cwd_), 0);
    rmdir(dir_.c_str());
  }
  static void WriteFile(const std::string& text) {
    std::ofstream("redistp-fence", std::ios::binary) << text;
  }
  static std::string ReadFile() {
    std::ifstream in("redistp-fence", std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

  std::string dir_;
  char old_cwd_[4096];
  Config config_;
  Logger log_;
};

TEST_F(FenceFileTest, AMissingFileIsMarkZero) {
  Result<uint64_t> m = FenceFile::Read("redistp-fence");
  ASSERT_TRUE(m.ok());
  EXPECT_EQ(m.value(), 0u);
}

TEST_F(FenceFileTest, PersistWritesOneLineThatReadsBack) {
  FenceFile file(&config_, &log_);
  ASSERT_TRUE(file.Persist(123456789).ok());
  EXPECT_EQ(ReadFile(), "redistp-fence-mark:123456789\n");
  EXPECT_EQ(access("redistp-fence.tmp", F_OK), -1);  // renamed over the file
  ASSERT_TRUE(file.Persist(987654321012).ok());
  EXPECT_EQ(FenceFile::Read("redistp-fence").value(), 987654321012u);
}

TEST_F(FenceFileTest, ADamagedFileIsAnError) {
  for (const char* text : {"", "redistp-fence-mark:12", "redistp-fence-mark:x\n",
                           "redistp-fence-mark:-5\n", "something else\n"}) {
    WriteFile(text);
    Result<uint64_t> m = FenceFile::Read("redistp-fence");
    EXPECT_FALSE(m.ok()) << text;
    if (!m.ok()) {
      EXPECT_NE(m.status().message().find("is damaged"), std::string::npos);
    }
  }
  WriteFile(std::string(300, '9'));
  EXPECT_FALSE(FenceFile::Read("redistp-fence").ok());
}

TEST_F(FenceFileTest, AFailedWriteIsAnErrorThatSaysWhy) {
  FenceFile file(&config_, &log_);
  config_.tp_fence_file = "no-such-dir-file";
  ASSERT_EQ(mkdir("no-such-dir-file.tmp", 0755), 0);  // the temp name is taken by a directory
  Status s = file.Persist(7);
  rmdir("no-such-dir-file.tmp");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("no-such-dir-file.tmp"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace redistp
