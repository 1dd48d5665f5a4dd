#include "persistence/aof_bio.h"

#include <unistd.h>

#include <cerrno>
#include <utility>

namespace redistp {

AofBio::AofBio() : thread_([this] { Run(); }) {}

AofBio::~AofBio() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

void AofBio::Push(Job job) {
  if (job.kind != Kind::kUnlink) pending_fsyncs_.fetch_add(1, std::memory_order_acq_rel);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void AofBio::Fsync(int fd, uint64_t mark) { Push(Job{Kind::kFsync, fd, {}, mark}); }
void AofBio::FsyncAndClose(int fd) { Push(Job{Kind::kFsyncClose, fd, {}}); }
void AofBio::Unlink(std::string path) { Push(Job{Kind::kUnlink, -1, std::move(path)}); }

void AofBio::Run() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
      if (jobs_.empty()) return;  // stop_ and nothing left
      job = std::move(jobs_.front());
      jobs_.pop_front();
    }
    switch (job.kind) {
      case Kind::kFsync:
      case Kind::kFsyncClose: {
        // EBADF/EINVAL: a descriptor that cannot be synced (a pipe, /dev/null) is no failure.
        int status = 0;
        if (fdatasync(job.fd) != 0 && errno != EBADF && errno != EINVAL) status = errno;
        if (job.kind == Kind::kFsync) {
          fsync_status_.store(status, std::memory_order_release);
          if (status == 0 && job.mark > synced_mark_.load(std::memory_order_relaxed)) {
            synced_mark_.store(job.mark, std::memory_order_release);
          }
        } else {
          close(job.fd);
        }
        pending_fsyncs_.fetch_sub(1, std::memory_order_acq_rel);
        break;
      }
      case Kind::kUnlink:
        unlink(job.path.c_str());
        break;
    }
  }
}

}  // namespace redistp
