// Allocator facts in one place. Production builds link jemalloc (which replaces malloc), so
// every allocation's real size and the process totals come from jemalloc. Sanitizer builds run
// on the system allocator (ASan must own malloc); then the totals come from glibc's mallinfo2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

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
// DEBUG MALLCTL / MALLCTL-STR: jemalloc's named controls (mallctl(3)). Both exist only when
// jemalloc is linked (MallctlAvailable()); each returns 0 or an errno value.
//
// MallctlInt reads control `name` as a 64-bit integer into *old and, with `value`, writes it in
// the same call. Only 8-byte controls can be read this way (a narrower one answers EINVAL, as
// Redis 7.0's DEBUG MALLCTL does on Debian's jemalloc). A write refused with EPERM because the
// control cannot be read is retried as a write alone; then *wrote_only is set.
bool MallctlAvailable();
int MallctlInt(const char* name, const int64_t* value, int64_t* old, bool* wrote_only);
// MallctlString reads control `name` as a string into *old (when it has a value to read), and
// with `value` writes that string (or, for value "VOID", triggers a control that takes no
// value, such as thread.tcache.flush). Returns the read's status; the write is attempted only
// when the read succeeded or was refused with EPERM (a write-only control), and its status goes
// to *write_status. Only
// jemalloc's string controls are read as strings: reading another control's bytes as a pointer
// would dereference an integer, so any other name reads as EINVAL.
int MallctlString(const char* name, const char* value, std::string* old, int* write_status);
// "jemalloc-5.3.0" or "libc".
const char* AllocatorName();

}  // namespace redistp
