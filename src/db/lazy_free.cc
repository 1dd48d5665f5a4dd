#include "db/lazy_free.h"

#include <utility>

#include "types/hash.h"
#include "types/list.h"
#include "types/set.h"
#include "types/stream.h"
#include "types/zset.h"
#include "util/memory.h"

namespace redistp {

LazyFree::LazyFree() : thread_([this] { Run(); }) {}

LazyFree::~LazyFree() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

// Counts what a free walks, per representation: compact encodings (int/embstr/raw strings,
// listpacks, intsets) are one or two allocations; the others one allocation or more per node
// or member.
size_t LazyFree::FreeEffort(const Value& v) {
  if (!v.is_aggregate()) return 1;
  switch (v.type()) {
    case ValueType::kList:
      return ListOf(v).NodeCount();
    case ValueType::kSet: {
      const SetObject& s = SetOf(v);
      return s.encoding() == SetObject::Encoding::kHashtable ? s.size() : 1;
    }
    case ValueType::kZSet: {
      const ZSetObject& z = ZSetOf(v);
      return z.encoding() == ZSetObject::Encoding::kSkiplist ? z.size() : 1;
    }
    case ValueType::kHash: {
      const HashObject& h = HashOf(v);
      return h.encoding() == HashObject::Encoding::kHashtable ? h.size() : 1;
    }
    case ValueType::kStream: {
      const auto* s = static_cast<const StreamObject*>(v.object());
      size_t effort = s->node_count();
      for (const auto& [name, group] : s->groups()) {
        effort += 1 + group->pel.size() + group->consumers.size();
      }
      return effort;
    }
    case ValueType::kString:
      break;
  }
  return 1;
}

bool LazyFree::Submit(Value&& v) {
  if (FreeEffort(v) <= kThreshold) {
    Value dropped(std::move(v));  // freed here, at the end of the scope
    return false;
  }
  Job job;
  job.value = std::move(v);
  Enqueue(std::move(job));
  return true;
}

void LazyFree::SubmitTable(std::unique_ptr<Dict> table, std::unique_ptr<ExpireIndex> expires) {
  if (table == nullptr || table->size() == 0) return;  // nothing worth a thread hop
  Job job;
  job.objects = table->size();
  job.table = std::move(table);
  job.expires = std::move(expires);
  Enqueue(std::move(job));
}

void LazyFree::Enqueue(Job job) {
  pending_.fetch_add(job.objects, std::memory_order_acq_rel);
  {
    std::lock_guard<std::mutex> lock(mu_);
    jobs_.push_back(std::move(job));
  }
  wake_.notify_one();
}

void LazyFree::Drain() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_.wait(lock, [this] { return jobs_.empty() && !busy_; });
}

// The thread: takes one job at a time, frees it outside the lock, flushes its allocator cache
// so the process totals show the memory as free, then publishes the counters. On stop it
// finishes what is queued first.
void LazyFree::Run() {
  int64_t start_net = ThreadNetAllocated();
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (jobs_.empty()) break;  // stop_ with nothing left
    Job job = std::move(jobs_.front());
    jobs_.pop_front();
    busy_ = true;
    lock.unlock();
    uint64_t objects = job.objects;
    job.table.reset();
    job.expires.reset();
    job.value = Value();
    FlushThreadCache();
    int64_t net = ThreadNetAllocated();
    if (net != -1 || ThreadCountersAvailable()) {
      net_freed_.store(start_net - net, std::memory_order_release);
    }
    freed_.fetch_add(objects, std::memory_order_acq_rel);
    pending_.fetch_sub(objects, std::memory_order_acq_rel);
    lock.lock();
    busy_ = false;
    if (jobs_.empty()) idle_.notify_all();
  }
  busy_ = false;
  idle_.notify_all();
}

}  // namespace redistp
