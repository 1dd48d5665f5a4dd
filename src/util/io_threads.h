// IoThreads: the helper threads of `io-threads N`, as Redis 7.0 uses its own: a fan-out of one
// job to N workers (the calling thread is worker 0, N - 1 threads are the others) and a fan-in
// before the caller goes on. Nothing else runs between the two, so the job's workers share no
// state with the caller; each works on its own slice of the job, chosen by its index.
//
// Model. One job at a time, set by Run() on the one thread that owns the pool (the server's
// main thread). Run() publishes the job under a new generation number, runs slice 0 itself,
// then waits until every helper has reported its slice done. A helper waits for the next
// generation by spinning for a short while (kSpinNs: so back-to-back loop turns under load
// find it awake, as Redis's threads spin while active) and then sleeps on the generation
// (a futex through std::atomic::wait), so an idle server's helpers cost no CPU. The caller's
// wait for the fan-in spins the same way before it sleeps.
//
// Memory order. The job and its context are written before the generation is bumped with
// release order; a helper reads them after an acquire load of the new generation. A helper's
// writes (the results it stores through the context) happen before its release decrement of
// the pending count, which the caller reads with acquire order, so after Run() returns every
// result is visible to the caller.
//
// Threads. Run() and the destructor are the owner's only. A forked child inherits no helper
// (fork copies only the calling thread): it must not call Run(). The pool forks nothing and
// allocates nothing after construction.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <thread>
#include <vector>

namespace redistp {

class IoThreads {
 public:
  // Runs slice `worker` (0 .. workers()-1) of the job described by `ctx`.
  using Job = void (*)(void* ctx, int worker);

  // A pool of `workers` in all: the caller plus workers - 1 threads (none for 1).
  explicit IoThreads(int workers);
  ~IoThreads();  // stops and joins the threads
  IoThreads(const IoThreads&) = delete;
  IoThreads& operator=(const IoThreads&) = delete;

  int workers() const { return workers_; }
  // Runs job(ctx, i) for every i in [0, workers()), slice 0 on the calling thread, the others
  // on the helpers, and returns when all are done.
  void Run(Job job, void* ctx);

 private:
  static constexpr int64_t kSpinNs = 50'000;

  void Helper(int index);
  // Spins up to kSpinNs while `a` holds `old`, then sleeps until it changes.
  static void AwaitChange(const std::atomic<uint32_t>& a, uint32_t old);

  const int workers_;
  Job job_ = nullptr;
  void* ctx_ = nullptr;
  bool stop_ = false;
  std::atomic<uint32_t> generation_{0};
  std::atomic<uint32_t> pending_{0};  // helpers that have not finished this generation
  std::vector<std::thread> threads_;
};

}  // namespace redistp
