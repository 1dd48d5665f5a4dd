// Clock: the one source of time for a server.
//
// Three readings: wall-clock milliseconds and microseconds since the Unix epoch (expiry times,
// TTLs, CLIENT LIST ages, slowlog timestamps) and a monotonic microsecond count that never
// goes back (time budgets such as the active-expiry slice). Production uses SystemClock; tests
// use ManualClock, which moves only when told to, so expiry, timeouts, leases and pauses are
// exercised by advancing time instead of sleeping.
//
// Invariant of ManualClock: wall and monotonic readings advance together by exactly the amount
// given to Advance; nothing else changes them.
#pragma once

#include <sys/time.h>
#include <time.h>

#include <cstdint>

namespace redistp {

class Clock {
 public:
  virtual ~Clock() = default;
  virtual int64_t WallUs() const = 0;
  virtual int64_t MonotonicUs() const = 0;
  int64_t WallMs() const { return WallUs() / 1000; }
};

class SystemClock final : public Clock {
 public:
  int64_t WallUs() const override {
    timeval tv;
    gettimeofday(&tv, nullptr);
    return static_cast<int64_t>(tv.tv_sec) * 1000000 + tv.tv_usec;
  }
  int64_t MonotonicUs() const override {
    timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<int64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
  }
};

class ManualClock final : public Clock {
 public:
  // Starts at `wall_us` (a fixed, realistic epoch time by default) and monotonic 0.
  explicit ManualClock(int64_t wall_us = 1'700'000'000'000'000) : wall_us_(wall_us) {}
  int64_t WallUs() const override { return wall_us_; }
  int64_t MonotonicUs() const override { return mono_us_; }
  void AdvanceUs(int64_t us) {
    wall_us_ += us;
    mono_us_ += us;
  }
  void AdvanceMs(int64_t ms) { AdvanceUs(ms * 1000); }

 private:
  int64_t wall_us_;
  int64_t mono_us_ = 0;
};

}  // namespace redistp
