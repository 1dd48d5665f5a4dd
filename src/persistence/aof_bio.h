// AofBio: the AOF's background thread (Redis's bio for the AOF): fsyncs, closes and unlinks
// that would stall the event loop when the disk is busy.
//
// Jobs run one at a time in the order they were queued, so "fsync fd, then close fd" is
// safe. pending_fsyncs() is what INFO's aof_pending_bio_fsync and the everysec postponement
// rule read. The thread only touches descriptors and paths it is given; it never sees server
// state. A forked child inherits no thread (only the forking one), so it must not queue jobs.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>

namespace redistp {

class AofBio {
 public:
  AofBio();
  ~AofBio();  // runs the jobs still queued, then joins
  AofBio(const AofBio&) = delete;
  AofBio& operator=(const AofBio&) = delete;

  // `mark` names what the fsync covers (the AOF's written-bytes count, aof.h): once the job
  // succeeds, synced_mark() reports it (marks only grow, jobs run in order).
  void Fsync(int fd, uint64_t mark = 0);
  void FsyncAndClose(int fd);
  void Unlink(std::string path);
  uint64_t pending_fsyncs() const { return pending_fsyncs_.load(std::memory_order_acquire); }
  // The outcome of the last Fsync job: 0 when it succeeded (or none ran yet), else its errno.
  // Only Fsync jobs count: FsyncAndClose's fsync is of a file the AOF has left, and Redis
  // ignores its failure too. ResetFsyncStatus forgets a failure (the AOF was switched off).
  int fsync_status() const { return fsync_status_.load(std::memory_order_acquire); }
  void ResetFsyncStatus() { fsync_status_.store(0, std::memory_order_release); }
  // The mark of the last Fsync job that succeeded (0 before any).
  uint64_t synced_mark() const { return synced_mark_.load(std::memory_order_acquire); }

 private:
  enum class Kind { kFsync, kFsyncClose, kUnlink };
  struct Job {
    Kind kind;
    int fd;
    std::string path;
    uint64_t mark = 0;
  };
  void Push(Job job);
  void Run();

  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> jobs_;
  bool stop_ = false;
  std::atomic<uint64_t> pending_fsyncs_{0};
  std::atomic<int> fsync_status_{0};
  std::atomic<uint64_t> synced_mark_{0};
  std::thread thread_;
};

}  // namespace redistp
