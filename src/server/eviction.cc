#include "server/eviction.h"

#include <algorithm>
#include <cmath>

#include "db/database.h"
#include "db/keyspace_events.h"
#include "db/lazy_free.h"
#include "server/server.h"
#include "util/memory.h"

namespace redistp {
namespace {

bool VolatileOnly(MaxmemoryPolicy p) {
  return p == MaxmemoryPolicy::kVolatileLru || p == MaxmemoryPolicy::kVolatileLfu ||
         p == MaxmemoryPolicy::kVolatileRandom || p == MaxmemoryPolicy::kVolatileTtl;
}

bool RandomPolicy(MaxmemoryPolicy p) {
  return p == MaxmemoryPolicy::kVolatileRandom || p == MaxmemoryPolicy::kAllkeysRandom;
}

// An entry eviction may take: not a temporary key (see the essay), and, for a volatile policy,
// one that still carries a TTL.
bool Evictable(const Entry* e, bool volatile_only) {
  return !e->has_flag(Entry::kFlagTemporary) && (!volatile_only || e->has_expire());
}

}  // namespace

size_t Evictor::UsedMemory() const {
  int64_t net = ThreadNetAllocated();
  if (net < 0 && !ThreadCountersAvailable()) {
    size_t all = ReadAllocatorStats().allocated;
    return all > server_->script_heap_bytes() ? all - server_->script_heap_bytes() : 0;
  }
  // Lua's heap is not the dataset's: left out, as Redis's allocator never sees it.
  int64_t lazy_freed = server_->lazyfree().net_freed_bytes() - base_lazy_freed_;
  int64_t used = static_cast<int64_t>(base_allocated_) + (net - base_thread_net_) - lazy_freed -
                 static_cast<int64_t>(server_->script_heap_bytes());
  return used > 0 ? static_cast<size_t>(used) : 0;
}

void Evictor::Rebase(size_t allocated) const {
  base_allocated_ = allocated;
  base_thread_net_ = ThreadNetAllocated();
  base_lazy_freed_ = server_->lazyfree().net_freed_bytes();
}

uint64_t Evictor::TimeLimitUs() const {
  // Redis's scale: up to 10, 50 µs per step (the default 10 gives 500 µs); above it the budget
  // grows by 15% per step; 100 means no limit.
  int t = server_->config().maxmemory_eviction_tenacity;
  if (t <= 10) return 50ULL * static_cast<uint64_t>(std::max(t, 0));
  if (t < 100) return static_cast<uint64_t>(500.0 * std::pow(1.15, t - 10.0));
  return UINT64_MAX;
}

uint64_t Evictor::Score(const Database& db, const Entry* e) const {
  const KeyspaceContext& ks = server_->keyspace();
  switch (server_->config().maxmemory_policy_kind) {
    case MaxmemoryPolicy::kVolatileTtl:
      // Nearer expiry scores higher.
      return UINT64_MAX - static_cast<uint64_t>(db.ExpireOf(e));
    case MaxmemoryPolicy::kVolatileLfu:
    case MaxmemoryPolicy::kAllkeysLfu:
      return 255 - Database::LfuFrequency(e->lru(), ks.now_ms(), ks.lfu_decay_time);
    default: {
      // Idle milliseconds on the 24-bit seconds clock, which wraps.
      uint32_t clock = ks.lru_clock();
      uint32_t lru = e->lru();
      uint64_t idle_s = clock >= lru ? clock - lru : clock + (Entry::kLruMask - lru);
      return idle_s * 1000;
    }
  }
}

void Evictor::PoolInsert(uint64_t score, int db, std::string_view key) {
  // The pool is sorted by ascending score with its empty slots (db < 0) at the end: the slots
  // are only ever emptied from the right (best first), so that stays true.
  size_t k = 0;
  while (k < kPoolSize && pool_[k].db >= 0 && pool_[k].score < score) ++k;
  if (k == 0 && pool_[kPoolSize - 1].db >= 0) return;  // full, and worse than every candidate
  if (k < kPoolSize && pool_[k].db < 0) {
    // An empty slot in place: take it.
  } else if (pool_[kPoolSize - 1].db < 0) {
    // Room on the right: shift k.. one to the right (the empty last slot lands on k).
    std::rotate(pool_.begin() + static_cast<std::ptrdiff_t>(k), pool_.end() - 1, pool_.end());
  } else {
    // Full: drop the worst (slot 0) and shift the ones below k left.
    --k;
    std::rotate(pool_.begin(), pool_.begin() + 1,
                pool_.begin() + static_cast<std::ptrdiff_t>(k + 1));
  }
  Candidate& c = pool_[k];
  c.score = score;
  c.db = db;
  c.key.assign(key);  // the slot's string keeps its capacity: no allocation once warmed up
}

size_t Evictor::PopulatePool(Database& db, bool volatile_only) {
  sample_.clear();
  db.SampleEntries(volatile_only, static_cast<size_t>(server_->config().maxmemory_samples),
                   &sample_);
  size_t inserted = 0;
  for (Entry* e : sample_) {
    if (!Evictable(e, volatile_only)) continue;
    PoolInsert(Score(db, e), db.index(), e->key());
    ++inserted;
  }
  return inserted;
}

Entry* Evictor::SelectFromPool(Database** out_db, bool volatile_only) {
  // Each round samples every database and then takes the best candidate that still exists.
  // A round that found no evictable key in any sample ends the search; the bound on rounds
  // only guards against an unlucky run of stale candidates.
  for (int round = 0; round < 16; ++round) {
    size_t keys = 0, inserted = 0;
    for (int i = 0; i < server_->db_count(); ++i) {
      Database& db = server_->db(i);
      size_t n = volatile_only ? db.volatile_size() : db.size();
      if (n == 0) continue;
      keys += n;
      inserted += PopulatePool(db, volatile_only);
    }
    if (keys == 0) return nullptr;
    for (size_t k = kPoolSize; k-- > 0;) {
      Candidate& c = pool_[k];
      if (c.db < 0) continue;
      if (c.db >= server_->db_count()) {
        c.db = -1;
        continue;
      }
      Database& db = server_->db(c.db);
      Entry* e = db.FindRaw(c.key);
      c.db = -1;
      if (e != nullptr && Evictable(e, volatile_only)) {
        *out_db = &db;
        return e;
      }
    }
    if (inserted == 0) return nullptr;
  }
  return nullptr;
}

Entry* Evictor::SelectRandom(Database** out_db, bool volatile_only) {
  // One database after another, round robin across calls, one random key each; a handful of
  // samples per database so temporary keys do not hide the others.
  constexpr size_t kTries = 16;
  int n = server_->db_count();
  for (int i = 0; i < n; ++i) {
    next_db_ = (next_db_ + 1) % n;
    Database& db = server_->db(next_db_);
    if ((volatile_only ? db.volatile_size() : db.size()) == 0) continue;
    sample_.clear();
    db.SampleEntries(volatile_only, kTries, &sample_);
    for (Entry* e : sample_) {
      if (Evictable(e, volatile_only)) {
        *out_db = &db;
        return e;
      }
    }
  }
  return nullptr;
}

Entry* Evictor::SelectVictim(Database** db) {
  MaxmemoryPolicy p = server_->config().maxmemory_policy_kind;
  if (p == MaxmemoryPolicy::kNoEviction) return nullptr;
  bool volatile_only = VolatileOnly(p);
  return RandomPolicy(p) ? SelectRandom(db, volatile_only) : SelectFromPool(db, volatile_only);
}

Evictor::Result Evictor::Perform() {
  const Config& cfg = server_->config();
  follow_up_ = false;
  if (cfg.maxmemory == 0) return Result::kOk;
  // While clients are paused (CLIENT PAUSE) the dataset must not change under them: Redis 7.0
  // skips eviction then, as if it had not been needed.
  if (server_->pause_end_ms() != 0) return Result::kOk;
  // A replica with replica-ignore-maxmemory (the default) leaves its keys to its master: it
  // neither evicts nor refuses writes for memory, as Redis does. Looked up only on a replica.
  if (server_->replica_role().following) {
    std::string ignore;
    if (cfg.GetValue("replica-ignore-maxmemory", &ignore) && ignore == "yes") return Result::kOk;
  }
  size_t used = UsedMemory();
  if (used <= cfg.maxmemory) return Result::kOk;
  // Over the limit: leave out what eviction would only grow (see the essay). Read once per
  // pass; the DELs this pass adds to those buffers do not count against it either.
  const size_t not_counted = server_->NotCountedMemory();
  auto counted = [not_counted](size_t bytes) { return bytes - std::min(bytes, not_counted); };
  used = counted(used);
  if (used <= cfg.maxmemory) return Result::kOk;
  if (cfg.maxmemory_policy_kind == MaxmemoryPolicy::kNoEviction) return Result::kFail;

  const Clock& clock = server_->clock();
  const int64_t threshold_ms = cfg.latency_monitor_threshold;
  const int64_t start_us = clock.MonotonicUs();
  const uint64_t limit_us = TimeLimitUs();
  const size_t to_free = used - cfg.maxmemory;
  size_t freed = 0;
  uint64_t keys_freed = 0;
  Result result = Result::kOk;
  while (freed < to_free) {
    Database* db = nullptr;
    Entry* victim = SelectVictim(&db);
    if (victim == nullptr) {
      result = Result::kFail;
      break;
    }
    size_t before = UsedMemory();
    int64_t del_start_us = threshold_ms > 0 ? clock.MonotonicUs() : 0;
    db->Remove(victim, RemoveCause::kEvicted, notice::kEvicted);
    if (threshold_ms > 0) {
      int64_t ms = (clock.MonotonicUs() - del_start_us) / 1000;
      if (ms >= threshold_ms) server_->LatencyAddSample("eviction-del", static_cast<uint32_t>(ms));
    }
    size_t after = UsedMemory();
    if (before > after) freed += before - after;
    ++server_->stats().evicted_keys;
    ++keys_freed;
    // Every 16 keys: stop when the figure is under the limit anyway (frees elsewhere, e.g. a
    // client that left), or hand over to the follow-up when the pass is out of time.
    if (keys_freed % 16 == 0) {
      if (counted(UsedMemory()) <= cfg.maxmemory) break;
      if (static_cast<uint64_t>(clock.MonotonicUs() - start_us) > limit_us) {
        result = Result::kRunning;
        follow_up_ = true;
        break;
      }
    }
  }
  if (threshold_ms > 0) {
    int64_t ms = (clock.MonotonicUs() - start_us) / 1000;
    if (ms >= threshold_ms) server_->LatencyAddSample("eviction-cycle", static_cast<uint32_t>(ms));
  }
  return result;
}

}  // namespace redistp
