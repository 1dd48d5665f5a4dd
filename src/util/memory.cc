#include "util/memory.h"

#include <malloc.h>

#include <cerrno>
#include <cstring>
#include <string_view>

// GCC says it builds with AddressSanitizer by __SANITIZE_ADDRESS__, clang by a feature test.
#if defined(__SANITIZE_ADDRESS__)
#define REDISTP_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define REDISTP_ASAN 1
#endif
#endif

#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#elif defined(REDISTP_ASAN)
// The sanitizer runtime's allocator statistics (GCC ships no header for them).
extern "C" size_t __sanitizer_get_current_allocated_bytes();
extern "C" size_t __sanitizer_get_heap_size();
#endif

namespace redistp {

size_t AllocationSize(const void* p) { return malloc_usable_size(const_cast<void*>(p)); }

AllocatorStats ReadAllocatorStats() {
  AllocatorStats s;
#ifdef USE_JEMALLOC
  uint64_t epoch = 1;
  size_t sz = sizeof(epoch);
  // Objects this thread freed into its tcache still count as allocated in jemalloc's stats, so
  // without a flush the figure depends on what the thread happened to free last (a test's
  // before/after comparison then depends on the tests that ran before it). Cheap, and callers
  // read the stats about once a second.
  mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0);
  mallctl("epoch", &epoch, &sz, &epoch, sz);
  sz = sizeof(size_t);
  mallctl("stats.allocated", &s.allocated, &sz, nullptr, 0);
  mallctl("stats.active", &s.active, &sz, nullptr, 0);
  mallctl("stats.resident", &s.resident, &sz, nullptr, 0);
  mallctl("stats.mapped", &s.mapped, &sz, nullptr, 0);
  mallctl("stats.retained", &s.retained, &sz, nullptr, 0);
#elif defined(REDISTP_ASAN)
  // AddressSanitizer owns malloc; its allocator keeps the totals.
  s.allocated = __sanitizer_get_current_allocated_bytes();
  s.active = s.allocated;
  s.resident = __sanitizer_get_heap_size();
  s.mapped = s.resident;
#else
  struct mallinfo2 mi = mallinfo2();
  s.allocated = mi.uordblks + mi.hblkhd;
  s.active = s.allocated;
  s.resident = mi.arena + mi.hblkhd;
  s.mapped = s.resident;
#endif
  return s;
}

#ifdef USE_JEMALLOC
namespace {
// jemalloc's "thread.allocatedp"/"thread.deallocatedp": pointers to the calling thread's
// cumulative byte counters, fetched once per thread.
struct ThreadCounters {
  uint64_t* allocated = nullptr;
  uint64_t* deallocated = nullptr;
  ThreadCounters() {
    size_t sz = sizeof(allocated);
    if (mallctl("thread.allocatedp", &allocated, &sz, nullptr, 0) != 0) allocated = nullptr;
    sz = sizeof(deallocated);
    if (mallctl("thread.deallocatedp", &deallocated, &sz, nullptr, 0) != 0) deallocated = nullptr;
  }
};
const ThreadCounters& Counters() {
  static thread_local ThreadCounters counters;
  return counters;
}
}  // namespace

int64_t ThreadNetAllocated() {
  const ThreadCounters& t = Counters();
  if (t.allocated == nullptr || t.deallocated == nullptr) return -1;
  return static_cast<int64_t>(*t.allocated - *t.deallocated);
}
bool ThreadCountersAvailable() {
  const ThreadCounters& t = Counters();
  return t.allocated != nullptr && t.deallocated != nullptr;
}
void FlushThreadCache() { mallctl("thread.tcache.flush", nullptr, nullptr, nullptr, 0); }
#else
int64_t ThreadNetAllocated() { return -1; }
bool ThreadCountersAvailable() { return false; }
void FlushThreadCache() {}
#endif

#ifdef USE_JEMALLOC
namespace {
// jemalloc 5.3's controls whose value is a `const char*` (mallctl(3)); arena.<i>.dss too.
bool IsStringControl(std::string_view name) {
  static constexpr std::string_view kNames[] = {"version",          "config.malloc_conf",
                                                "opt.dss",          "opt.metadata_thp",
                                                "opt.percpu_arena", "opt.thp",
                                                "opt.junk",         "opt.prof_prefix",
                                                "opt.zero_realloc", "opt.stats_print_opts",
                                                "thread.prof.name", "prof.dump",
                                                "prof.prefix"};
  for (std::string_view n : kNames) {
    if (name == n) return true;
  }
  constexpr std::string_view kArena = "arena.";
  constexpr std::string_view kDss = ".dss";
  return name.size() > kArena.size() + kDss.size() && name.starts_with(kArena) &&
         name.ends_with(kDss);
}
}  // namespace

bool MallctlAvailable() { return true; }

int MallctlInt(const char* name, const int64_t* value, int64_t* old, bool* wrote_only) {
  *wrote_only = false;
  int64_t in = value != nullptr ? *value : 0;
  size_t len = sizeof(*old);
  int rc =
      mallctl(name, old, &len, value != nullptr ? &in : nullptr, value != nullptr ? sizeof(in) : 0);
  if (rc == EPERM && value != nullptr) {
    // A write-only control refuses the read half: write alone.
    if (mallctl(name, nullptr, nullptr, &in, sizeof(in)) == 0) {
      *wrote_only = true;
      return 0;
    }
  }
  return rc;
}

int MallctlString(const char* name, const char* value, std::string* old, int* write_status) {
  *write_status = 0;
  const char* current = nullptr;
  size_t len = sizeof(current);
  int rc = mallctl(name, &current, &len, nullptr, 0);
  if (rc == 0 && !IsStringControl(name)) rc = EINVAL;
  if (rc == 0) old->assign(current != nullptr ? current : "");
  // A failed read ends it, unless the control is write-only (EPERM) and there is a value.
  if (rc != 0 && !(rc == EPERM && value != nullptr)) return rc;
  if (value != nullptr) {
    if (std::strcmp(value, "VOID") == 0) {
      *write_status = mallctl(name, nullptr, nullptr, nullptr, 0);
    } else {
      const char* in = value;
      *write_status = mallctl(name, nullptr, nullptr, &in, sizeof(in));
    }
  }
  return rc;
}
#else
bool MallctlAvailable() { return false; }
int MallctlInt(const char*, const int64_t*, int64_t*, bool* wrote_only) {
  *wrote_only = false;
  return ENOENT;
}
int MallctlString(const char*, const char*, std::string*, int* write_status) {
  *write_status = ENOENT;
  return ENOENT;
}
#endif

const char* AllocatorName() {
#ifdef USE_JEMALLOC
  return "jemalloc-5.3.0";
#elif defined(REDISTP_ASAN)
  return "libc";
#else
  return "libc";
#endif
}

}  // namespace redistp
