// The child info pipe: how a forked child (BGSAVE, the AOF rewrite) tells the parent how far it
// got and how much memory copy-on-write has cost, as Redis 7.0 does.
//
// Model. The parent opens a pipe just before fork(). The child keeps the write end and sends
// fixed-size records: a "current" record while it works (its keys processed so far, for INFO's
// current_save_keys_processed and current_fork_perc) and one "final" record when its work is
// done and successful (rdb_last_cow_size). Every record carries the child's copy-on-write size:
// the bytes of its private dirty pages (Private_Dirty of /proc/self/smaps_rollup), i.e. the
// pages the child and the parent no longer share.
//
// Invariants.
//   - Records are smaller than PIPE_BUF, so each write(2) is atomic: the parent reads whole
//     records or nothing. The parent's end is non-blocking and drained by the cron, so the
//     child never waits for the parent (a full pipe drops a "current" record, never blocks).
//   - Measuring the CoW walks the child's page tables, which costs time proportional to its
//     memory; the child measures again only when the time since the last measurement is at
//     least kCowDutyCycle times what that measurement cost (so at most ~1% of its time), and
//     "current" records are sent at most once a second. The final record always measures.
//   - One pipe per child; the parent closes it when the child is reaped (after a last drain).
#pragma once

#include <cstddef>
#include <cstdint>

#include "server/log.h"
#include "util/status.h"

namespace redistp {

// What the parent knows of the running child (INFO persistence's current_* fields).
struct ChildProgress {
  uint64_t keys_processed = 0;
  uint64_t cow_bytes = 0;       // the latest CoW size the child measured
  uint64_t cow_peak = 0;        // the largest it reported
  int64_t cow_updated_ms = 0;   // when that latest measurement was taken (0: none yet)
  bool final_received = false;  // the child sent its final record
  uint64_t final_cow_bytes = 0;
};

// Private dirty bytes of the calling process (0 when /proc cannot tell).
uint64_t PrivateDirtyBytes();

class ChildInfoPipe {
 public:
  ChildInfoPipe() = default;
  ~ChildInfoPipe() { Close(); }
  ChildInfoPipe(const ChildInfoPipe&) = delete;
  ChildInfoPipe& operator=(const ChildInfoPipe&) = delete;

  // Parent, before fork: opens the pipe (close-on-exec, the read end non-blocking).
  Status Open();
  bool is_open() const { return read_fd_ >= 0; }
  // After fork, in each process: drops the end it does not use.
  void KeepWriteEnd();  // in the child
  void KeepReadEnd();   // in the parent
  void Close();

  // --- child side -----------------------------------------------------------------------------
  // A progress report: sent when a second has passed since the last one (or on the first call).
  void SendCurrent(uint64_t keys, int64_t now_ms);
  // The end of a successful job: measures the CoW and sends the final record. Logs nothing;
  // the caller logs the summary with LogCow.
  void SendFinal(uint64_t keys, int64_t now_ms);
  // The child's summary line, as Redis writes it: "Fork CoW for <job>: current N MB, peak N MB,
  // average N MB" (job: "RDB", "AOF rewrite").
  void LogCow(Logger& log, const char* job) const;
  uint64_t child_cow_current() const { return cow_; }
  uint64_t child_cow_peak() const { return cow_peak_; }
  uint64_t child_cow_average() const { return samples_ == 0 ? 0 : cow_sum_ / samples_; }

  // --- parent side ----------------------------------------------------------------------------
  // Reads every whole record waiting in the pipe into `progress`. Never blocks.
  void Drain(ChildProgress* progress);

 private:
  static constexpr int64_t kCowDutyCycle = 100;
  // Measures the CoW when due (or `force`), keeping the peak and the average of the samples.
  void MeasureCow(int64_t now_ms, bool force);
  void Send(uint32_t kind, uint64_t keys);

  int read_fd_ = -1;
  int write_fd_ = -1;
  // child side
  int64_t last_sent_ms_ = -1;
  int64_t cow_measured_ms_ = 0;
  int64_t cow_cost_ms_ = 0;
  uint64_t cow_ = 0;
  uint64_t cow_peak_ = 0;
  uint64_t cow_sum_ = 0;
  uint64_t samples_ = 0;
};

}  // namespace redistp
