// Eviction: keeping the dataset under `maxmemory`, as Redis 7.0 does.
//
// Used memory. The figure eviction compares with `maxmemory` is the one INFO reports as
// used_memory. Reading the allocator's process totals costs a tcache flush and an epoch bump,
// too much before every command, so the figure is kept as a baseline plus a delta: each time
// the server reads the allocator's totals (INFO, MEMORY STATS, the once-a-second cron refresh)
// it rebases, and in between the calling thread's own jemalloc counters (thread.allocatedp /
// thread.deallocatedp, two loads) give the change since the baseline. The command path is the
// only thread that allocates for the dataset, so the delta misses nothing eviction could free.
// Builds without jemalloc (SANITIZE=1) have no per-thread counters: there the figure is the
// allocator's total read afresh at each check — slower, still correct. Once that figure is over
// maxmemory, the bytes the subsystems name as not counted (Subsystem::NotCountedMemory: the
// replicas' output buffers, the AOF buffer) are subtracted from it, as Redis 7.0 leaves them out
// (mem_not_counted_for_evict): evicting adds a DEL to each of them, so counting them would evict
// more and more while a replica is slow. The lazy free thread frees values the command path
// handed over (db/lazy_free.h); it publishes how many bytes it gave back, and the figure
// subtracts those freed since the baseline.
//
// When. Redis evicts only on demand: before every command while maxmemory is set (Dispatch
// calls Perform), and, when one pass ran out of its time budget (maxmemory-eviction-tenacity),
// from a follow-up on the event loop until the figure is under the limit; never on a timer
// otherwise. Here the follow-up runs from the server's cron (hz times a second) instead of an
// immediate timer: the work per pass is the same, the pauses between passes longer.
//
// Which key. The policy picks the class (all keys or only keys with a TTL) and the order:
//   *-lru   longest idle first (the entry's 24-bit seconds clock),
//   *-lfu   lowest decayed access counter first,
//   volatile-ttl  nearest expiry first,
//   *-random      any.
// The ordered policies sample maxmemory-samples keys per database into a pool of the 16 best
// candidates seen so far (kept across passes, so the approximation improves with every pass),
// then evict the best pool candidate that still exists. The random policies visit the databases
// round robin and take one random key. Temporary keys (SETTP) are never evicted: a temporary
// key is the lock its owning connection holds, and taking it away under memory pressure would
// break the guarantee that it lives exactly as long as its owner (docs/temporary-keys-and-
// watches.md). A dataset of temporary keys only is "nothing evictable".
//
// Each eviction goes through Database::Remove(cause kEvicted), the keyspace choke point, so the
// `evicted` notification, WATCHEX, tracking invalidation and DEL propagation follow from it.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redistp {

class Server;
class Database;
struct Entry;

class Evictor {
 public:
  enum class Result : uint8_t {
    kOk,       // under the limit (or no limit)
    kRunning,  // over the limit, the pass ran out of time; a follow-up continues it
    kFail,     // over the limit and nothing (more) can be evicted
  };

  explicit Evictor(Server* server) : server_(server) {}

  // Used memory as INFO reports it (see the essay). Cheap with jemalloc.
  size_t UsedMemory() const;
  // Sets the baseline to the allocator's total `allocated`, read just now on this thread
  // (const: it changes how the figure is computed, not the figure).
  void Rebase(size_t allocated) const;

  // Redis's performEvictions: when maxmemory is set and the used figure exceeds it, evicts
  // keys by the policy until it does not, or the time budget runs out, or nothing is left.
  // Safe to call between commands only (it emits key events).
  Result Perform();
  // True while a pass ran out of time and the cron should call Perform again.
  bool follow_up() const { return follow_up_; }

 private:
  struct Candidate {
    uint64_t score = 0;  // larger = better to evict
    int db = -1;         // -1 = empty slot
    std::string key;
  };
  static constexpr size_t kPoolSize = 16;

  // The entry to evict next and its database, or nullptr when nothing is evictable.
  Entry* SelectVictim(Database** db);
  Entry* SelectFromPool(Database** db, bool volatile_only);
  Entry* SelectRandom(Database** db, bool volatile_only);
  // Samples one database into the pool; returns how many candidates were inserted.
  size_t PopulatePool(Database& db, bool volatile_only);
  void PoolInsert(uint64_t score, int db, std::string_view key);
  uint64_t Score(const Database& db, const Entry* e) const;
  // The pass's time budget in µs from maxmemory-eviction-tenacity (UINT64_MAX = unlimited).
  uint64_t TimeLimitUs() const;

  Server* server_;
  // Baseline: the allocator's total and this thread's net counter when it was read.
  mutable size_t base_allocated_ = 0;
  mutable int64_t base_thread_net_ = 0;
  // The lazy free thread's bytes given back when the baseline was read (its frees since then
  // lower the figure too).
  mutable int64_t base_lazy_freed_ = 0;
  bool follow_up_ = false;
  int next_db_ = 0;                        // round robin of the random policies
  std::array<Candidate, kPoolSize> pool_;  // ascending score; the best candidate is last
  std::vector<Entry*> sample_;
};

}  // namespace redistp
