// Allocator facts in one place. Production builds link jemalloc (which replaces malloc), so
// every allocation's real size and the process totals come from jemalloc. Sanitizer builds run
// on the system allocator (ASan must own malloc); then the totals come from glibc's mallinfo2.
#pragma once

#include <cstddef>
#include <cstdint>

namespace redistp {

struct AllocatorStats {
  size_t allocated = 0;  // bytes handed out to the program (INFO used_memory)
  size_t active = 0;
  size_t resident = 0;
  size_t mapped = 0;
  size_t retained = 0;
};

// Usable size of a live allocation (jemalloc size class).
size_t AllocationSize(const void* p);
AllocatorStats ReadAllocatorStats();
// Net bytes the calling thread holds: its cumulative allocations minus its cumulative frees
// (may be negative when it frees what another thread allocated). With jemalloc this reads two
// per-thread counters through cached pointers, so it costs two loads; without jemalloc there
// are no such counters and it returns -1 (ThreadCountersAvailable() is false).
int64_t ThreadNetAllocated();
bool ThreadCountersAvailable();
// Returns the objects the calling thread's allocator cache holds to the arenas, so that the
// process totals stop counting them as allocated (a thread that only frees, such as the lazy
// free thread, calls it after each job). A no-op without jemalloc.
void FlushThreadCache();
// "jemalloc-5.3.0" or "libc".
const char* AllocatorName();

}  // namespace redistp
