#include "util/io_threads.h"

#include <chrono>

namespace redistp {

namespace {

void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

IoThreads::IoThreads(int workers) : workers_(workers < 1 ? 1 : workers) {
  threads_.reserve(static_cast<size_t>(workers_ - 1));
  for (int i = 1; i < workers_; ++i) threads_.emplace_back([this, i] { Helper(i); });
}

IoThreads::~IoThreads() {
  stop_ = true;
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void IoThreads::AwaitChange(const std::atomic<uint32_t>& a, uint32_t old) {
  // The clock is read once per 64 spins: a read costs about as much as the pause itself.
  const auto start = std::chrono::steady_clock::now();
  for (uint32_t i = 1;; ++i) {
    if (a.load(std::memory_order_acquire) != old) return;
    CpuRelax();
    if ((i & 63) == 0 &&
        std::chrono::steady_clock::now() - start > std::chrono::nanoseconds(kSpinNs)) {
      break;
    }
  }
  while (a.load(std::memory_order_acquire) == old) a.wait(old, std::memory_order_acquire);
}

void IoThreads::Run(Job job, void* ctx) {
  if (workers_ == 1) {
    job(ctx, 0);
    return;
  }
  job_ = job;
  ctx_ = ctx;
  pending_.store(static_cast<uint32_t>(workers_ - 1), std::memory_order_relaxed);
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  job(ctx, 0);
  for (uint32_t left = pending_.load(std::memory_order_acquire); left != 0;
       left = pending_.load(std::memory_order_acquire)) {
    AwaitChange(pending_, left);
  }
}

void IoThreads::Helper(int index) {
  uint32_t seen = 0;
  for (;;) {
    AwaitChange(generation_, seen);
    seen = generation_.load(std::memory_order_acquire);
    if (stop_) return;
    job_(ctx_, index);
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) pending_.notify_one();
  }
}

}  // namespace redistp
