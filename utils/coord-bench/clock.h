// Time for the load tool: CLOCK_MONOTONIC in nanoseconds, deadlines and short sleeps.
//
// Every wait in the tool is bounded by a deadline expressed on this clock, so a server that
// stops answering turns into a reported failure after a known time, never into a hang.
#pragma once

#include <time.h>

#include <cstdint>

namespace coordbench {

constexpr int64_t kNsPerUs = 1000;
constexpr int64_t kNsPerMs = 1000 * kNsPerUs;
constexpr int64_t kNsPerSec = 1000 * kNsPerMs;

inline int64_t NowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<int64_t>(ts.tv_sec) * kNsPerSec + ts.tv_nsec;
}

// Milliseconds from now until `deadline_ns`, rounded up, for poll()/epoll_wait(); 0 when due.
inline int MsUntil(int64_t deadline_ns) {
  int64_t left = deadline_ns - NowNs();
  if (left <= 0) return 0;
  int64_t ms = (left + kNsPerMs - 1) / kNsPerMs;
  return ms > 1000000 ? 1000000 : static_cast<int>(ms);
}

inline void SleepUs(int64_t us) {
  if (us <= 0) return;
  timespec ts{static_cast<time_t>(us / 1000000), static_cast<long>((us % 1000000) * 1000)};
  while (nanosleep(&ts, &ts) != 0) {
  }
}

}  // namespace coordbench
