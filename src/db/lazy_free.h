// LazyFree: freeing big values and whole keyspaces on a background thread, as Redis's lazyfree.
//
// Model. Removing a key is two jobs: making it unreachable (unlinking it from the table, the
// TTL index and every listener's index: the keyspace's Remove does that, at once, on the main
// thread) and giving its memory back (walking a million-member set, node by node). Only the
// second may move off the main thread, and only once nothing the main thread can reach still
// points into the value. So a value is handed over by moving it out of its entry: the Value
// moved in here is the only owner of its object, the entry that held it is already gone, and
// no index, iterator, blocked client or reply holds a pointer into an aggregate (replies copy
// bytes). A flush hands over the whole table (Dict) and TTL index the same way: the database
// swaps in empty ones first, so the old ones are reachable from the job only.
//
// Effort. Handing a value to the thread costs a lock and a wake-up; freeing a string or a
// listpack costs one free. So, as Redis does, a value goes to the thread only when freeing it
// means walking more than kThreshold (64) allocations: a quicklist's nodes, a hashtable set's
// or hash's members, a skiplist's members, a stream's nodes and pending entries. Anything
// smaller is freed inline by the caller, and is not counted as lazily freed.
//
// Counters (INFO memory): pending() is what the thread has been given and not yet freed
// (keys of a flushed database count one each, as in Redis), freed() what it has freed since
// start (or CONFIG RESETSTAT). Both are atomics the thread updates after each job.
//
// Memory accounting. With jemalloc, the thread's frees first land in its own thread cache,
// which the allocator's process totals still count as allocated: the thread flushes its cache
// after each job, so used_memory drops as soon as the job is done. The thread also publishes
// its own net allocation counter (allocations minus frees, negative: it only frees), so the
// eviction code, which follows the main thread's counters between rebases, can see memory the
// thread gave back (net_freed_bytes()).
//
// Threads. Submit/SubmitTable/ResetStats are main-thread only. A forked child inherits no
// thread: it must not submit (it frees nothing anyway; it exits).
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>

#include "db/dict.h"
#include "db/ptr_set.h"
#include "types/value.h"

namespace redistp {

class LazyFree {
 public:
  // Redis's LAZYFREE_THRESHOLD: values whose freeing walks more allocations go to the thread.
  static constexpr size_t kThreshold = 64;

  LazyFree();
  ~LazyFree();  // frees what is still queued, then joins
  LazyFree(const LazyFree&) = delete;
  LazyFree& operator=(const LazyFree&) = delete;

  // How many allocations freeing `v` walks (1 for strings and compact encodings).
  static size_t FreeEffort(const Value& v);

  // Takes `v` (left empty). Frees it on the thread when its effort exceeds kThreshold, else
  // here and now. Returns true when the thread took it.
  bool Submit(Value&& v);
  // Takes a whole table and TTL index (the database swapped in empty ones): the thread frees
  // every entry. Counts table->size() objects pending. An empty table is freed here.
  void SubmitTable(std::unique_ptr<Dict> table, std::unique_ptr<ExpireIndex> expires);

  uint64_t pending() const { return pending_.load(std::memory_order_acquire); }
  uint64_t freed() const { return freed_.load(std::memory_order_acquire); }
  // CONFIG RESETSTAT: zeroes freed() (pending work stays pending).
  void ResetStats() { freed_.store(0, std::memory_order_release); }
  // Bytes the thread has given back to the allocator so far (0 without jemalloc's per-thread
  // counters); monotonic.
  int64_t net_freed_bytes() const { return net_freed_.load(std::memory_order_acquire); }

  // Blocks until every job queued so far is done (tests, DEBUG, shutdown paths).
  void Drain();

 private:
  struct Job {
    Value value;
    std::unique_ptr<Dict> table;
    std::unique_ptr<ExpireIndex> expires;
    uint64_t objects = 1;
  };
  void Enqueue(Job job);
  void Run();

  std::mutex mu_;
  std::condition_variable wake_;
  std::condition_variable idle_;
  std::deque<Job> jobs_;
  bool busy_ = false;
  bool stop_ = false;
  std::atomic<uint64_t> pending_{0};
  std::atomic<uint64_t> freed_{0};
  std::atomic<int64_t> net_freed_{0};
  std::thread thread_;  // last: started once everything above exists
};

}  // namespace redistp
