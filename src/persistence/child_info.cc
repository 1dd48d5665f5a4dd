#include "persistence/child_info.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace redistp {
namespace {

constexpr uint32_t kRecordCurrent = 1;
constexpr uint32_t kRecordFinal = 2;

// One message on the pipe (well under PIPE_BUF, so a write is atomic).
struct Record {
  uint32_t kind;
  uint32_t pad;
  uint64_t keys;
  uint64_t cow_bytes;
  int64_t cow_measured_ms;
};

int64_t MonotonicMs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

uint64_t PrivateDirtyBytes() {
  // smaps_rollup (Linux 4.14+) sums every mapping for us; the per-mapping smaps is the
  // fallback, summed here.
  FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) f = std::fopen("/proc/self/smaps", "r");
  if (f == nullptr) return 0;
  char line[256];
  uint64_t kb = 0;
  while (std::fgets(line, sizeof(line), f) != nullptr) {
    unsigned long long v = 0;
    if (std::strncmp(line, "Private_Dirty:", 14) == 0 && std::sscanf(line + 14, "%llu", &v) == 1) {
      kb += v;
    }
  }
  std::fclose(f);
  return kb * 1024;
}

Status ChildInfoPipe::Open() {
  Close();
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::Error(std::strerror(errno));
  read_fd_ = fds[0];
  write_fd_ = fds[1];
  // Both ends non-blocking: the parent drains from the cron, the child never waits on it.
  fcntl(read_fd_, F_SETFL, fcntl(read_fd_, F_GETFL) | O_NONBLOCK);
  fcntl(write_fd_, F_SETFL, fcntl(write_fd_, F_GETFL) | O_NONBLOCK);
  return Status::Ok();
}

void ChildInfoPipe::KeepWriteEnd() {
  if (read_fd_ >= 0) close(read_fd_);
  read_fd_ = -1;
}

void ChildInfoPipe::KeepReadEnd() {
  if (write_fd_ >= 0) close(write_fd_);
  write_fd_ = -1;
}

void ChildInfoPipe::Close() {
  KeepWriteEnd();
  KeepReadEnd();
}

void ChildInfoPipe::MeasureCow(int64_t now_ms, bool force) {
  if (!force && samples_ > 0 && now_ms - cow_measured_ms_ < cow_cost_ms_ * kCowDutyCycle) return;
  const int64_t start = MonotonicMs();
  cow_ = PrivateDirtyBytes();
  cow_cost_ms_ = MonotonicMs() - start;
  cow_measured_ms_ = now_ms;
  if (cow_ > cow_peak_) cow_peak_ = cow_;
  cow_sum_ += cow_;
  ++samples_;
}

void ChildInfoPipe::Send(uint32_t kind, uint64_t keys) {
  if (write_fd_ < 0) return;
  Record r{kind, 0, keys, cow_, cow_measured_ms_};
  // A full pipe (the parent is slow to drain) loses this record; the next one says more.
  ssize_t n;
  do {
    n = write(write_fd_, &r, sizeof(r));
  } while (n < 0 && errno == EINTR);
}

void ChildInfoPipe::SendCurrent(uint64_t keys, int64_t now_ms) {
  if (last_sent_ms_ >= 0 && now_ms - last_sent_ms_ < 1000) return;
  last_sent_ms_ = now_ms;
  MeasureCow(now_ms, false);
  Send(kRecordCurrent, keys);
}

void ChildInfoPipe::LogCow(Logger& log, const char* job) const {
  constexpr uint64_t kMb = 1024 * 1024;
  log.Log(LogLevel::kNotice, "Fork CoW for %s: current %llu MB, peak %llu MB, average %llu MB", job,
          static_cast<unsigned long long>(child_cow_current() / kMb),
          static_cast<unsigned long long>(child_cow_peak() / kMb),
          static_cast<unsigned long long>(child_cow_average() / kMb));
}

void ChildInfoPipe::SendFinal(uint64_t keys, int64_t now_ms) {
  MeasureCow(now_ms, true);
  Send(kRecordFinal, keys);
}

void ChildInfoPipe::Drain(ChildProgress* progress) {
  if (read_fd_ < 0) return;
  Record r;
  for (;;) {
    ssize_t n = read(read_fd_, &r, sizeof(r));
    if (n < 0 && errno == EINTR) continue;
    if (n != static_cast<ssize_t>(sizeof(r))) return;  // empty (EAGAIN), closed, or torn
    progress->keys_processed = r.keys;
    progress->cow_bytes = r.cow_bytes;
    progress->cow_updated_ms = r.cow_measured_ms;
    if (r.cow_bytes > progress->cow_peak) progress->cow_peak = r.cow_bytes;
    if (r.kind == kRecordFinal) {
      progress->final_received = true;
      progress->final_cow_bytes = r.cow_bytes;
    }
  }
}

}  // namespace redistp
