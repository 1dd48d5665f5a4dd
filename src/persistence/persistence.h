// Persistence: RDB snapshots and the append-only file, as Redis 7.0 has them.
//
// Model. One Persistence subsystem per server (server/subsystem.h: the server owns it; main.cc
// attaches it before the server starts). Its hooks are how the server calls it at its own
// moments (startup, cron, before replies are written, shutdown, the admission gate's MISCONF
// check) without knowing this layer.
//
//   - Loading at startup (Start): the AOF when appendonly is yes, else the RDB file
//     `dbfilename` in `dir` (the working directory). A missing file starts an empty server.
//   - Saving: SAVE writes in this process (SaveNow); BGSAVE forks a child that writes the same
//     image from its copy-on-write view of memory while the parent keeps serving (StartChild).
//     One child at a time, whatever it does (an RDB save or an AOF rewrite), as in Redis.
//   - The dirty counter: the keyspace counts every key change (KeyspaceContext::dirty, never
//     reset, because propagation measures differences of it); "changes since the last save" is
//     that counter minus its value when the last successful save began.
//   - Save points (`save <seconds> <changes>`): checked by Cron, which starts a BGSAVE when one
//     is reached (after a failed one, only every 5 seconds).
//   - The child reports its progress and copy-on-write size on an info pipe (child_info.h),
//     drained by Cron: INFO's current_* fields, rdb_last_cow_size.
//   - A failed BGSAVE (an error exit, or any signal but our own SIGUSR1) sets the BGSAVE status
//     to err; with save points and stop-writes-on-bgsave-error, WriteRefusal then answers
//     MISCONF to writes until a save succeeds. A failed SAVE changes no status, as in Redis.
//   - FLUSHALL kills a running BGSAVE and, with save points, saves the empty dataset at once.
//   - Shutdown: with save points configured (or SHUTDOWN SAVE) the final SAVE must succeed, or
//     the server keeps running (unless FORCE).
//
// The fencing counter. Tokens are persisted with the data (the RDB aux field redistp-fence;
// the AOF replays the SETTP FENCE records that drew them), but a crash loses the tokens drawn
// after the last save, so that is not what keeps them from repeating: once loading ends,
// Server::StartFencing raises the counter to the reservation mark of the previous run (a file
// in `dir` that bounds every token ever handed out, watch/fence.h) and the wall clock.
#pragma once

#include <sys/types.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "persistence/aof.h"
#include "persistence/child_info.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "server/server.h"
#include "util/status.h"

namespace redistp {

enum class ChildKind { kNone, kRdb, kAof };

// The exit code of a child stopped by the parent's SIGUSR1 (Redis's SERVER_CHILD_NOERROR_RETVAL).
inline constexpr int kChildStoppedExit = 255;

class Persistence : public Subsystem {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kPersistence;

  explicit Persistence(Server& server);
  ~Persistence() override;
  Persistence(const Persistence&) = delete;
  Persistence& operator=(const Persistence&) = delete;

  // The server's persistence, created and attached on first use.
  static Persistence& Of(Server& server);

  // DEBUG SET-SKIP-CHECKSUM-VALIDATION: while set, neither an RDB file's CRC-64 nor a DUMP
  // payload's is checked (tests feed hand-corrupted payloads through the loaders' own checks).
  bool skip_checksum_validation() const { return skip_checksum_validation_; }
  void set_skip_checksum_validation(bool skip) { skip_checksum_validation_ = skip; }

  // --- RDB ---------------------------------------------------------------------------------
  // The RDB file's path (dbfilename, relative to the working directory `dir`).
  std::string RdbPath() const;
  // SAVE: writes the RDB file now, in this process. Fails with "ERR Background save already in
  // progress" while a BGSAVE child runs. Counts in rdb_saves (even when it fails, as Redis);
  // on success resets the changes count and LASTSAVE and clears a failed BGSAVE's status.
  Status SaveNow();
  // FLUSHALL's save (Redis 7.0): a running BGSAVE child is killed (its snapshot is of data that
  // is gone) and, with save points configured, the empty dataset is saved at once. Not counted
  // in rdb_saves.
  void SaveAfterFlushAll();
  // BGSAVE: forks a child that writes the RDB file. Errors: a child already running, fork.
  // `then` (replication's full sync from disk) runs after the child is reaped, with whether
  // the file was written.
  Status StartBackgroundSave(std::function<void(bool ok)> then = {});
  // The options every save uses (the configuration's and the replication aux fields): a
  // diskless sync's child writes the same image.
  RdbSaveOptions FileSaveOptions() const;
  // BGSAVE SCHEDULE (or BGSAVE in MULTI) while another child runs: Cron starts it once the
  // child is gone.
  void ScheduleBackgroundSave() { bgsave_scheduled_ = true; }
  bool bgsave_scheduled() const { return bgsave_scheduled_; }
  // DEBUG RELOAD: saves (unless !save), empties the databases (and, when flush, the function
  // libraries), loads the file back.
  Status Reload(bool save, bool flush, bool merge);
  // Empties every database and, when `functions`, the function libraries (loading paths);
  // `async` hands the keys to the lazy free thread (replica-lazy-flush).
  void EmptyData(bool functions, bool async = false);

  // The replication aux fields of the RDB files SAVE, BGSAVE, SHUTDOWN and FLUSHALL write: the
  // replication layer (above this one) provides them; false when it has none to write.
  using ReplInfoProvider = std::function<bool(std::string* id, int64_t* offset, int* stream_db)>;
  void SetReplInfoProvider(ReplInfoProvider provider) { repl_info_ = std::move(provider); }

  // --- children (BGSAVE, BGREWRITEAOF) ------------------------------------------------------
  // Forks a child running `body` (its return value is the exit code; the child then _exits,
  // running no destructor and no atexit handler). `done` runs in the parent when the child
  // is reaped: ok = exit code 0 and no signal; by_signal = the signal that ended it, or 0.
  // A failed fork is returned as strerror's text, unlogged: each caller logs it in Redis's
  // words for its kind of child.
  Status StartChild(ChildKind kind, std::function<int()> body,
                    std::function<void(bool ok, int by_signal)> done);
  bool HasActiveChild() const { return child_pid_ > 0; }
  ChildKind child_kind() const { return child_kind_; }
  pid_t child_pid() const { return child_pid_; }
  int64_t child_start_ms() const { return child_start_ms_; }
  // Stops the running child with SIGUSR1 (as Redis: not a failure) and reaps it at once. With
  // `report` its `done` runs (ok = false, by_signal = SIGUSR1: "Background saving terminated
  // by signal 10" after FLUSHALL); without, the child goes unreported, its temporary files
  // removed (a rewrite stopped by CONFIG SET appendonly, a child killed at shutdown).
  void KillChild(bool report);
  // The child's end of the info pipe (persistence/child_info.h): a child body reports its
  // progress and, when it succeeds, its final copy-on-write size through it.
  ChildInfoPipe& child_info() { return child_info_; }
  // What the parent has read from the running (or last reaped) child: its `done` may read the
  // final CoW size here; INFO's current_* fields while it runs.
  const ChildProgress& child_progress() const { return child_progress_; }
  // Keys in every database when the child was forked (current_save_keys_total).
  uint64_t child_keys_total() const { return child_keys_total_; }
  int64_t latest_fork_usec() const { return latest_fork_usec_; }
  uint64_t total_forks() const { return total_forks_; }

  // --- the dirty counter, LASTSAVE ----------------------------------------------------------
  uint64_t changes_since_save() const;
  // The last `n` key changes were no changes to save (the keys DEBUG POPULATE made, a DEBUG
  // LOADAOF, which Redis follows with dirty = 0): rdb_changes_since_last_save and the save
  // points do not count them.
  void DiscountChanges(uint64_t n) { dirty_at_save_ += std::min(n, changes_since_save()); }
  int64_t last_save_time() const { return server_.last_save_time(); }
  bool last_bgsave_ok() const { return last_bgsave_ok_; }
  int64_t last_bgsave_seconds() const { return last_bgsave_seconds_; }
  uint64_t rdb_saves() const { return rdb_saves_; }
  uint64_t rdb_last_cow_size() const { return rdb_last_cow_size_; }
  const RdbLoadInfo& last_load() const { return last_load_; }

  // --- the subsystem's hooks ---------------------------------------------------------------
  // Startup: loads the AOF or the RDB file (see above) and logs as Redis does. An error
  // (logged here) stops the server; a missing file is no error.
  Status Start() override;
  void Cron() override;
  void BeforeSleep() override;
  bool PrepareShutdown(int flags) override;
  // MISCONF while stop-writes-on-bgsave-error is on, save points are configured and the last
  // BGSAVE failed (a failed SAVE does not count, as in Redis).
  std::string_view WriteRefusal() const override;
  // The AOF's write buffer: not counted by eviction (server/eviction.h).
  size_t NotCountedMemory() const override;

 private:
  // The options of an RDB file: the configuration's, and the replication aux fields.
  ReplInfoProvider repl_info_;

  // The in-process save (SAVE, SHUTDOWN, FLUSHALL, DEBUG RELOAD): writes the file and, on
  // success, resets the changes count, LASTSAVE and the BGSAVE status. Counts nothing.
  Status SaveInProcess();
  // Reaps a finished child (non-blocking unless `wait`) and runs its `done`.
  void ReapChild(bool wait);
  // The fencing floor (see above), once loading ends; an error stops the server.
  Status RaiseFenceFloor();

  Server& server_;
  pid_t child_pid_ = -1;
  ChildKind child_kind_ = ChildKind::kNone;
  int64_t child_start_ms_ = 0;
  std::function<void(bool, int)> child_done_;

  uint64_t dirty_at_save_ = 0;
  bool skip_checksum_validation_ = false;
  bool bgsave_scheduled_ = false;
  bool last_bgsave_ok_ = true;
  int64_t last_bgsave_try_ms_ = 0;
  int64_t last_bgsave_seconds_ = -1;
  uint64_t rdb_saves_ = 0;
  uint64_t rdb_last_cow_size_ = 0;
  RdbLoadInfo last_load_;

  // The child info pipe and what was read from it; the reaped child's pid (its temp file).
  ChildInfoPipe child_info_;
  ChildProgress child_progress_;
  uint64_t child_keys_total_ = 0;
  pid_t reaped_pid_ = -1;
  int64_t latest_fork_usec_ = 0;
  uint64_t total_forks_ = 0;

  // --- AOF (f/aof adds its members here) ---
 public:
  // The append-only file (persistence/aof.h), created with the module.
  Aof& aof() { return *aof_; }

 private:
  std::unique_ptr<Aof> aof_;

  // --- (end of AOF) ---
};

}  // namespace redistp
