// The append-only file (AOF), Redis 7.0's multi-part design.
//
// Model. While appendonly is on, the Aof is a PropagationSink of the server's Propagator taking
// the records meant for the AOF (targets kPropagateAof): each is appended, RESP-encoded
// ("*N\r\n$len\r\narg\r\n..."), to one in-memory buffer; the buffer is written to the current
// incr file once per loop turn, in BeforeSleep, before any reply of that turn goes out, so a
// client never sees the reply of a write the file does not hold. Then, by appendfsync:
//   always    fsync in BeforeSleep too: an acknowledged write survives a crash of the machine;
//   everysec  fsync in the background thread (aof_bio.h) at most once a second; while one is
//             still running the write is postponed, but not more than 2 seconds (then it is
//             written anyway, counted in aof_delayed_fsync), as Redis does;
//   no        the kernel decides.
// aof-timestamp-enabled adds a "#TS:<unix seconds>\r\n" annotation before the first record
// of every new second (loaders skip '#' lines).
//
// Files (aof_manifest.h): a base and incr files listed by the manifest. A rewrite
// (aof_rewrite.cc) opens a new incr file at fork time, so the parent keeps appending while the
// child writes the new base from its copy-on-write view; on success the parent makes the new
// base and the incr files since the fork the manifest's content and deletes the rest. No
// rewrite buffer is needed.
//
// States: kOff (appendonly no), kOn, kWaitRewrite (CONFIG SET appendonly yes: records go to a
// temporary incr file until the first rewrite creates the base; only then is the manifest
// written and the state kOn). Loading (aof_load.cc) replays the files through a client with no
// socket; the sink is attached only after it.
//
// Write errors: the data not written stays in the buffer and is retried every loop turn and
// cron tick (logged at most every 30 seconds); meanwhile writes are refused with MISCONF
// (WriteRefusal) and INFO says aof_last_write_status:err, until a write succeeds ("AOF write
// error looks solved"). A short write is cut back to the last whole record when ftruncate
// allows. A failed background fsync (everysec) refuses writes the same way ("Fail to fsync the
// AOF file"), until a later background fsync succeeds; switching the AOF off ends the refusal
// (INFO still says err) and on again forgets the failure. With
// appendfsync always a write or fsync error makes the server exit, as Redis does (it cannot
// keep its promise any more).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "persistence/aof_manifest.h"
#include "server/propagation.h"
#include "server/server.h"
#include "util/status.h"

namespace redistp {

class Persistence;
class AofBio;

// The AOF base in command form (aof-use-rdb-preamble no; aof_base.cc): writes every
// non-temporary key of every database, and the function libraries, as commands to `fd`.
// `timestamp` starts it with a #TS annotation; `key_delay_us` is rdb-key-save-delay. False on
// a write error (errno tells).
bool WriteAofBase(Server& server, int fd, bool timestamp, int64_t key_delay_us);

enum class AofState { kOff, kOn, kWaitRewrite };
enum class AofFsync { kEverysec = 0, kAlways = 1, kNo = 2 };

class Aof : public PropagationSink {
 public:
  Aof(Server& server, Persistence& persistence);
  ~Aof() override;
  Aof(const Aof&) = delete;
  Aof& operator=(const Aof&) = delete;

  AofState state() const { return state_; }
  bool enabled() const { return state_ != AofState::kOff; }

  // --- startup (persistence.cc's Start) ---------------------------------------------
  // Loads the AOF directory (upgrading an old single appendonly.aof first). *found is false
  // when there is no AOF at all. An error has been logged and must stop the server.
  Status Load(bool* found);
  // With appendonly no: reads the manifest only (a later BGREWRITEAOF or CONFIG SET
  // appendonly yes continues its sequence numbers), as Redis 7.0 does at every start. A bad
  // manifest is an error (logged) that stops the server, as in Redis.
  Status ReadManifestOnly();
  // After loading: creates the base and the first incr file when there are none ("Creating
  // AOF ... on server start") or reopens the last incr file, and starts taking records.
  Status OpenOnStartup();

  // --- runtime switches ---------------------------------------------------------------------
  // CONFIG SET appendonly yes: starts a rewrite (or schedules it behind a running child);
  // records go to a temporary incr file until it ends.
  Status Start();
  // CONFIG SET appendonly no: flushes, closes the file, stops a rewrite in progress.
  void Stop();

  // --- rewrite (aof_rewrite.cc) -------------------------------------------------------------
  // BGREWRITEAOF: errors are the reply texts ("ERR Background append only file rewriting
  // already in progress", fork failures).
  Status StartRewrite();
  // BGREWRITEAOF behind another child: also lifts the failure limit (RewriteLimited).
  void ScheduleRewrite() {
    rewrite_scheduled_ = true;
    rewrite_failures_ = 0;
  }
  bool rewrite_scheduled() const { return rewrite_scheduled_; }
  // While records from before a failed write wait in the buffer, a rewrite must not start:
  // its base would hold them and the new incr file would replay them a second time (Redis 7.0
  // starts it anyway and loads such a record twice). BGREWRITEAOF schedules it instead.
  bool RewriteMustWait() const { return state_ == AofState::kOn && !last_write_ok_; }
  bool rewrite_in_progress() const;

  // --- hooks --------------------------------------------------------------------------------
  // Writes the buffer (force: even while a background fsync runs) and fsyncs for always.
  void Flush(bool force);
  void BeforeSleep() {
    if (state_ != AofState::kOff && !buf_.empty()) Flush(false);
  }
  // Every cron tick: postponed writes, write-error retries, everysec fsync of what was
  // written without one, scheduled and automatic rewrites.
  void Cron();
  // Shutdown: writes everything and fsyncs ("Calling fsync() on the AOF file.").
  void Shutdown();
  // Non-empty while writes must be refused: the MISCONF text of the last write error, or else
  // of the last background fsync's failure.
  std::string_view WriteRefusal() const;
  // WAITAOF's local count (replication/master_wait.cc). Offsets count the bytes of records
  // this process took since it started, across files and rewrites: taken_bytes() includes
  // what the buffer still holds, so a write command's records are inside it as soon as the
  // command returns; synced_bytes() is how much of that an fsync (appendfsync always, a
  // finished background fsync of everysec, a stop or shutdown) has made durable. With
  // appendfsync no nothing is synced, so WAITAOF's local count stays 0 (as Redis 7.2).
  uint64_t taken_bytes() const { return written_total_ + buf_.size(); }
  uint64_t synced_bytes() const;
  // Whether the last write and the last background fsync succeeded (aof_last_write_status).
  bool write_status_ok() const;

  // DEBUG AOF-FLUSH-SLEEP: microseconds of sleep before each write of a non-empty buffer, so a
  // test can see the order of the AOF write and the replies (0: none).
  void set_flush_sleep_us(int64_t us) { flush_sleep_us_ = us; }

  // --- DEBUG LOADAOF ------------------------------------------------------------------------
  // Flushes and fsyncs the AOF, empties the data and loads it back. False on a load error.
  bool DebugLoad();

  // --- INFO persistence (from aof_enabled to the end of the section) -------------------------
  void WriteInfo(std::string* out) const;

  // --- PropagationSink ----------------------------------------------------------------------
  void OnPropagate(const std::vector<std::string>& argv) override;
  uint8_t targets() const override { return kPropagateAof; }

  // The directory of the AOF files ("<dir>/<appenddirname>", relative to the working dir).
  // Bytes the write buffer holds allocated (INFO mem_aof_buffer, MEMORY STATS aof.buffer).
  size_t buffer_bytes() const { return buf_.capacity() > 15 ? buf_.capacity() + 1 : 0; }

  const std::string& dirname() const { return dirname_; }
  const std::string& prefix() const { return prefix_; }

 private:
  friend class AofRewrite;
  // Reads the configuration values this module caches (on start and when CONFIG SET).
  void ReadConfig();
  // Creates (or opens for append) `name` in the AOF directory and makes it the write target;
  // the previous file is fsynced and closed in the background.
  Status SwitchTo(const std::string& path);
  // Opens a new incr file for a rewrite (manifest updated while kOn; a temporary file while
  // kWaitRewrite), logging "Creating AOF incr file ... on <why>".
  Status OpenNewIncr(const char* why);
  // Writes the manifest; the name of the temporary incr file of kWaitRewrite.
  Status PersistManifest();
  std::string TempIncrPath() const;
  // Deletes history files (unless aof-disable-auto-gc) and rewrites the manifest without them.
  void DeleteHistory();
  // CONFIG SET appendonly yes: a background fsync failure of the AOF before is forgotten
  // (logged, as Redis does); the new files get fsyncs of their own.
  void ForgetFsyncErrorOnReopen();
  // A write or fsync failure with the policy "always": Redis exits.
  [[noreturn]] void FatalWriteError();
  // The size of the base and incr files on disk (aof_current_size and aof_base_size).
  void MeasureFiles();
  // Rewrite completion (aof_rewrite.cc).
  void RewriteDone(bool ok, int by_signal, pid_t pid, int64_t incr_seq_at_fork, bool rdb);
  // Creates the first base and incr file synchronously (startup without an AOF).
  Status CreateBaseNow(const char* why);
  void StopRewrite();
  // Whether repeated rewrite failures hold automatic and scheduled rewrites back for now.
  bool RewriteLimited();

  Server& server_;
  Persistence& persistence_;
  std::unique_ptr<AofBio> bio_;
  AofState state_ = AofState::kOff;
  AofFsync fsync_ = AofFsync::kEverysec;
  bool timestamps_ = false;
  bool rdb_preamble_ = true;
  bool load_truncated_ = true;
  bool no_fsync_on_rewrite_ = false;
  bool auto_gc_ = true;
  int64_t auto_rewrite_perc_ = 100;
  int64_t auto_rewrite_min_ = 64 << 20;
  std::string dirname_;
  std::string prefix_;

  AofManifest manifest_;
  int fd_ = -1;
  int64_t flush_sleep_us_ = 0;  // DEBUG AOF-FLUSH-SLEEP
  std::string buf_;
  int last_db_ = -1;           // database of the last SELECT written
  bool need_select_ = false;   // a new file began: repeat the SELECT before the next record
  int64_t last_ts_ = 0;        // last #TS annotation's second
  uint64_t file_size_ = 0;     // the current incr file's size
  uint64_t current_size_ = 0;  // base + incr files
  uint64_t base_size_ = 0;
  uint64_t rewrite_base_size_ = 0;  // aof_current_size after the last rewrite (auto rewrite)
  uint64_t fsynced_size_ = 0;       // current_size_ when the last fsync was asked for
  uint64_t written_total_ = 0;      // record bytes written since start (taken_bytes)
  uint64_t synced_total_ = 0;       // of those, synced in this thread (always, stop)
  int64_t last_fsync_sec_ = 0;
  int64_t postponed_since_ms_ = 0;
  uint64_t delayed_fsync_ = 0;
  bool last_write_ok_ = true;
  int last_write_errno_ = 0;
  int64_t last_write_error_log_sec_ = 0;  // write errors are logged at most every 30 s
  bool fsync_error_logged_ = false;       // the current background fsync failure was logged
  mutable std::string refusal_;           // WriteRefusal's text
  uint64_t last_cow_size_ = 0;            // aof_last_cow_size: the last successful rewrite's

  bool rewrite_scheduled_ = false;
  bool last_rewrite_ok_ = true;
  uint64_t rewrites_ = 0;
  uint64_t rewrite_failures_ = 0;  // consecutive
  int64_t last_rewrite_seconds_ = -1;
  int64_t rewrite_start_ms_ = 0;
  pid_t rewrite_pid_ = -1;
  int64_t limit_delay_min_ = 0;
  int64_t limit_until_sec_ = 0;
};

}  // namespace redistp
