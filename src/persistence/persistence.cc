#include "persistence/persistence.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>

#include "protocol/errors.h"
#include "scripting/function_engine.h"
#include "server/proc_title.h"
#include "util/signal_log.h"

namespace redistp {
namespace {

// What the child's SIGUSR1 handler needs, set in the child right after fork (a handler can only
// reach globals; the child is single-threaded, so nothing races on it).
char g_child_log_path[1024];

// The parent stops a child with SIGUSR1 (a new FLUSHALL, SHUTDOWN, CONFIG SET appendonly no):
// the child says so in Redis's signal-handler log format and exits with 255, which ReapChild
// reads as "ended by SIGUSR1" (the parent's own doing, no failure). Only async-signal-safe calls.
void ChildSigusr1(int) {
  SignalSafeLog(g_child_log_path, "Received SIGUSR1 in child, exiting now.");
  _exit(kChildStoppedExit);
}

// The size of the file to load (INFO's loading_total_bytes); 0 when it cannot be read.
uint64_t FileSize(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
}

}  // namespace

Persistence::Persistence(Server& server) : server_(server) {
  dirty_at_save_ = server_.keyspace().dirty();
  aof_ = std::make_unique<Aof>(server_, *this);  // AOF (f/aof)
}

Persistence::~Persistence() {
  // A child still running is left to finish on its own (the server is going away); its
  // callback, which refers to this object, is dropped.
  child_done_ = nullptr;
}

Persistence& Persistence::Of(Server& server) {
  Persistence* p = server.subsystem<Persistence>();
  if (p == nullptr) p = &server.AttachSubsystem(std::make_unique<Persistence>(server));
  return *p;
}

std::string Persistence::RdbPath() const { return server_.config().dbfilename; }

uint64_t Persistence::changes_since_save() const {
  return server_.keyspace().dirty() - dirty_at_save_;
}

Status Persistence::RaiseFenceFloor() {
  Status s = server_.StartFencing();
  if (!s.ok()) {
    server_.log().Log(LogLevel::kWarning, "%s", s.message().c_str());
    server_.log().Log(LogLevel::kWarning,
                      "Fatal error: fencing tokens could repeat. Fix the file, or remove it "
                      "(then the next tokens are only sure to exceed the loaded counter and "
                      "the wall clock in microseconds). Exiting.");
    return Status::Error("");
  }
  return Status::Ok();
}

void Persistence::EmptyData(bool functions, bool async) {
  for (int i = 0; i < server_.db_count(); ++i) {
    // The load that follows is the data, so the flush counts no change.
    server_.db(i).Flush(Database::FlushCount::kUncounted, async);
  }
  if (functions) {
    if (FunctionEngine* f = server_.subsystem<FunctionEngine>()) f->Flush();
  }
}

// ---- loading --------------------------------------------------------------------------------

Status Persistence::Start() {
  Logger& log = server_.log();
  const int64_t start_us = server_.NowUs();
  // AOF (f/aof): with appendonly yes the AOF is loaded instead of the RDB file.
  if (server_.config().appendonly) {
    bool found = false;
    Status as;
    {
      ExpiryGate::Scope loading = server_.keyspace().expiry.Suspend();  // keys load as written
      as = aof_->Load(&found);
    }
    if (!as.ok()) return as;
    if (found) {
      log.Log(LogLevel::kNotice, "DB loaded from append only file: %.3f seconds",
              static_cast<double>(server_.NowUs() - start_us) / 1e6);
    }
    as = aof_->OpenOnStartup();
    if (!as.ok()) return as;
    dirty_at_save_ = server_.keyspace().dirty();
    return RaiseFenceFloor();
  }
  bool missing = false;
  Status s;
  {
    ExpiryGate::Scope loading = server_.keyspace().expiry.Suspend();  // keys load as written
    if (Status ms = aof_->ReadManifestOnly(); !ms.ok()) return ms;
    last_load_ = RdbLoadInfo{};
    // A replica (replicaof in redis.conf) keeps the expired keys: its master's DELs remove them.
    RdbLoadOptions options;
    options.keep_expired = !server_.config().replicaof_host.empty();
    Server::LoadingPeriod period(server_, FileSize(RdbPath()));  // clients hear LOADING
    s = LoadRdbFile(server_, RdbPath(), options, &last_load_, &missing);
  }
  if (!s.ok()) {
    log.Log(LogLevel::kWarning, "%s", s.message().c_str());
    // Redis's last words: a file that is not an RDB file of a version it reads is refused as
    // EINVAL; a damaged one (short, corrupt, bad checksum) ends the server after the check.
    const std::string& m = s.message();
    if (m.rfind("Wrong signature", 0) == 0 || m.rfind("Can't handle RDB format version", 0) == 0) {
      log.Log(LogLevel::kWarning, "Fatal error loading the DB: Invalid argument. Exiting.");
    } else {
      // Redis follows a damaged file's log line with a check report on standard output
      // (whatever the logfile), which repeats the failure: operators and Redis's own suite
      // look for the reason there too. Ours names the same failure once more, in a report of
      // the same shape, then ends the server as Redis does.
      std::fprintf(stdout, "--- RDB ERROR DETECTED ---\n%s\n[info] file %s\n", m.c_str(),
                   RdbPath().c_str());
      std::fflush(stdout);
      log.Log(LogLevel::kWarning, "Terminating server after rdb file reading failure.");
    }
    return Status::Error("");
  }
  if (!missing) {
    LogRdbLoaded(log, last_load_);
    log.Log(LogLevel::kNotice, "DB loaded from disk: %.3f seconds",
            static_cast<double>(server_.NowUs() - start_us) / 1e6);
  }
  dirty_at_save_ = server_.keyspace().dirty();
  return RaiseFenceFloor();
}

// ---- saving ---------------------------------------------------------------------------------

RdbSaveOptions Persistence::FileSaveOptions() const {
  RdbSaveOptions o = RdbSaveOptions::FromConfig(server_.config());
  if (repl_info_ && !repl_info_(&o.repl_id, &o.repl_offset, &o.repl_stream_db)) o.repl_id.clear();
  // A file that may feed a replica's full sync (this server has replication history: a backlog,
  // or a master of its own) carries the temporary keys and sessions as redis-tp's aux fields
  // (rdb_save.h); loading skips them unless the loader follows a master, so a restart from the
  // same file still brings no temporary key back.
  o.replication = !o.repl_id.empty();
  return o;
}

Status Persistence::SaveInProcess() {
  const uint64_t dirty_before = server_.keyspace().dirty();
  Result<uint64_t> r = SaveRdbFile(server_, RdbPath(), FileSaveOptions());
  if (!r.ok()) return Status::Error("ERR");
  server_.log().Log(LogLevel::kNotice, "DB saved on disk");
  dirty_at_save_ = dirty_before;
  server_.set_last_save_time(server_.NowMs() / 1000);
  last_bgsave_ok_ = true;
  return Status::Ok();
}

Status Persistence::SaveNow() {
  if (child_kind_ == ChildKind::kRdb) {
    return Status::Error("ERR Background save already in progress");
  }
  // Redis counts the attempt: rdb_saves grows even when the save fails.
  ++rdb_saves_;
  return SaveInProcess();
}

void Persistence::SaveAfterFlushAll() {
  // Its end is reported ("Background saving terminated by signal 10"), as Redis's cron does.
  if (child_kind_ == ChildKind::kRdb) KillChild(true);
  if (server_.config().save_params.empty()) return;
  // A failure is logged by the writer; FLUSHALL still succeeds, as in Redis.
  (void)SaveInProcess();
}

Status Persistence::StartBackgroundSave(std::function<void(bool ok)> then) {
  if (child_kind_ == ChildKind::kRdb) {
    return Status::Error("ERR Background save already in progress");
  }
  const uint64_t dirty_before = server_.keyspace().dirty();
  const std::string path = RdbPath();
  RdbSaveOptions options = FileSaveOptions();
  last_bgsave_try_ms_ = server_.NowMs();
  ++rdb_saves_;
  Status s = StartChild(
      ChildKind::kRdb,
      [this, path, options]() mutable {
        options.progress = [this](uint64_t keys) {
          child_info_.SendCurrent(keys, server_.NowMs());
        };
        Result<uint64_t> r = SaveRdbFile(server_, path, options);
        if (!r.ok()) return 1;
        Logger& log = server_.log();
        log.Log(LogLevel::kNotice, "DB saved on disk");
        child_info_.SendFinal(r.value(), server_.NowMs());
        child_info_.LogCow(log, "RDB");
        return 0;
      },
      [this, dirty_before, then = std::move(then)](bool ok, int by_signal) {
        Logger& log = server_.log();
        if (child_progress_.final_received) rdb_last_cow_size_ = child_progress_.final_cow_bytes;
        if (ok) {
          log.Log(LogLevel::kNotice, "Background saving terminated with success");
          dirty_at_save_ = dirty_before;
          server_.set_last_save_time(server_.NowMs() / 1000);
          last_bgsave_ok_ = true;
        } else if (by_signal != 0) {
          log.Log(LogLevel::kWarning, "Background saving terminated by signal %d", by_signal);
          // A killed child leaves its half-written temporary file behind.
          const std::string tmp = "temp-" + std::to_string(reaped_pid_) + ".rdb";
          unlink(tmp.c_str());
          // SIGUSR1 is how we kill our own child: not a failure to report.
          if (by_signal != SIGUSR1) last_bgsave_ok_ = false;
        } else {
          log.Log(LogLevel::kWarning, "Background saving error");
          last_bgsave_ok_ = false;
        }
        last_bgsave_seconds_ = (server_.NowMs() - child_start_ms_) / 1000;
        if (then) then(ok);
      });
  if (!s.ok()) {
    server_.log().Log(LogLevel::kWarning, "Can't save in background: fork: %s",
                      s.message().c_str());
    last_bgsave_ok_ = false;
    return Status::Error("ERR");
  }
  server_.log().Log(LogLevel::kNotice, "Background saving started by pid %ld",
                    static_cast<long>(child_pid_));
  return Status::Ok();
}

Status Persistence::Reload(bool save, bool flush, bool merge) {
  if (save) {
    Status saved = SaveInProcess();
    if (!saved.ok()) return saved;
  }
  if (flush) EmptyData(true);
  RdbLoadOptions o;
  o.allow_duplicates = merge;
  bool missing = false;
  last_load_ = RdbLoadInfo{};
  Status s;
  {
    ExpiryGate::Scope loading = server_.keyspace().expiry.Suspend();  // keys load as written
    Server::LoadingPeriod period(server_, FileSize(RdbPath()));       // clients hear LOADING
    s = LoadRdbFile(server_, RdbPath(), o, &last_load_, &missing);
  }
  if (!s.ok() || missing) {
    if (!s.ok()) server_.log().Log(LogLevel::kWarning, "%s", s.message().c_str());
    return Status::Error("ERR Error trying to load the RDB dump");
  }
  server_.log().Log(LogLevel::kNotice, "DB reloaded by DEBUG RELOAD");
  return Status::Ok();
}

// ---- children -------------------------------------------------------------------------------

Status Persistence::StartChild(ChildKind kind, std::function<int()> body,
                               std::function<void(bool ok, int by_signal)> done) {
  if (HasActiveChild()) return Status::Error("ERR child process already active");
  // The info pipe is a nicety: without it the child still works, INFO just shows no progress.
  if (!child_info_.Open().ok()) child_info_.Close();
  child_progress_ = ChildProgress{};
  child_keys_total_ = 0;
  for (int i = 0; i < server_.db_count(); ++i) child_keys_total_ += server_.db(i).size();
  const int64_t fork_start_us = server_.NowUs();
  pid_t pid = fork();
  if (pid < 0) {
    const int e = errno;
    child_info_.Close();
    // The caller logs it in its own words ("Can't save in background: fork: ...").
    return Status::Error(std::strerror(e));
  }
  if (pid == 0) {
    // The child: default signal handling (a SIGTERM meant for the server's group must end
    // it) but for SIGUSR1, the parent's way to stop it (ChildSigusr1), then the work, then out
    // without cleanup.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    std::snprintf(g_child_log_path, sizeof(g_child_log_path), "%s", server_.log().file().c_str());
    signal(SIGUSR1, ChildSigusr1);
    server_.log().set_role('C');
    server_.CloseListenersInChild();
    // The OOM killer should pick a background child before the server (oom-score-adj).
    (void)server_.ApplyOomScoreAdj(2);
    ApplyServerProcTitle(server_,
                         kind == ChildKind::kAof ? "redis-aof-rewrite" : "redis-rdb-bgsave");
    child_info_.KeepWriteEnd();
    int code = body();
    _exit(code);
  }
  latest_fork_usec_ = server_.NowUs() - fork_start_us;
  ++total_forks_;
  child_info_.KeepReadEnd();
  child_pid_ = pid;
  server_.OnChildChanged(true);
  child_kind_ = kind;
  child_start_ms_ = server_.NowMs();
  child_done_ = std::move(done);
  return Status::Ok();
}

void Persistence::ReapChild(bool wait) {
  if (child_pid_ <= 0) return;
  int status = 0;
  pid_t r = waitpid(child_pid_, &status, wait ? 0 : WNOHANG);
  if (r == 0 || (r < 0 && errno == EINTR)) return;
  // Whatever the child said before it ended is still in the pipe: read it all first.
  child_info_.Drain(&child_progress_);
  child_info_.Close();
  bool ok = false;
  int by_signal = 0;
  if (r == child_pid_) {
    if (WIFSIGNALED(status)) by_signal = WTERMSIG(status);
    ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    // A child stopped by our SIGUSR1 exits through its handler; Redis reads that as the signal.
    if (WIFEXITED(status) && WEXITSTATUS(status) == kChildStoppedExit) by_signal = SIGUSR1;
  }
  reaped_pid_ = child_pid_;
  child_pid_ = -1;
  server_.OnChildChanged(false);
  child_kind_ = ChildKind::kNone;
  std::function<void(bool, int)> done = std::move(child_done_);
  child_done_ = nullptr;
  if (done) done(ok, by_signal);
}

void Persistence::KillChild(bool report) {
  if (child_pid_ <= 0) return;
  const pid_t pid = child_pid_;
  const ChildKind kind = child_kind_;
  kill(pid, SIGUSR1);
  if (report) {
    ReapChild(true);  // its `done` reports the end and removes the temporary file
    return;
  }
  // Reaped quietly: no `done`, no status change (Redis stops a rewrite child this way, and a
  // BGSAVE child at shutdown exits with the server, unreported).
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  child_info_.Close();
  reaped_pid_ = pid;
  child_pid_ = -1;
  server_.OnChildChanged(false);
  child_kind_ = ChildKind::kNone;
  child_done_ = nullptr;
  // The child's temporary files are left behind when it is stopped mid-write.
  if (kind == ChildKind::kRdb) {
    unlink(("temp-" + std::to_string(pid) + ".rdb").c_str());
  } else {
    unlink(("temp-rewriteaof-" + std::to_string(pid) + ".aof").c_str());
    unlink(("temp-rewriteaof-bg-" + std::to_string(pid) + ".aof").c_str());
  }
}

// ---- hooks ----------------------------------------------------------------------------------

void Persistence::BeforeSleep() {
  // AOF (f/aof): write the buffered records (and fsync for appendfsync always).
  aof_->BeforeSleep();
}

void Persistence::Cron() {
  // AOF (f/aof): everysec fsync, auto rewrite, a scheduled rewrite.
  ReapChild(false);
  aof_->Cron();

  ReapChild(false);
  if (HasActiveChild()) {
    child_info_.Drain(&child_progress_);
    return;
  }
  if (bgsave_scheduled_) {
    bgsave_scheduled_ = false;
    if (StartBackgroundSave().ok()) return;
  }
  // Save points: the first one reached (at least `changes` changes and more than `seconds`
  // seconds since the last successful save) starts a BGSAVE. After a failed BGSAVE, retry only
  // when more than 5 seconds (whole seconds, as Redis counts them) passed since that try.
  const int64_t now_ms = server_.NowMs();
  const int64_t since_save = now_ms / 1000 - server_.last_save_time();
  const int64_t since_try = now_ms / 1000 - last_bgsave_try_ms_ / 1000;
  const uint64_t changes = changes_since_save();
  for (const SaveParam& sp : server_.config().save_params) {
    if (changes >= static_cast<uint64_t>(sp.changes) && since_save > sp.seconds &&
        (last_bgsave_ok_ || since_try > 5)) {
      server_.log().Log(LogLevel::kNotice, "%d changes in %lld seconds. Saving...", sp.changes,
                        static_cast<long long>(sp.seconds));
      (void)StartBackgroundSave();
      break;
    }
  }
}

std::string_view Persistence::WriteRefusal() const {
  const Config& c = server_.config();
  if (c.stop_writes_on_bgsave_error && !c.save_params.empty() && !last_bgsave_ok_) {
    return err::kMisconfRdb;
  }
  // AOF (f/aof): the refusal after an AOF write error.
  return aof_->WriteRefusal();
}

size_t Persistence::NotCountedMemory() const { return aof_->enabled() ? aof_->buffer_bytes() : 0; }

bool Persistence::PrepareShutdown(int flags) {
  Logger& log = server_.log();
  const bool force = (flags & kShutdownForce) != 0;
  // AOF (f/aof): while the first rewrite after CONFIG SET appendonly yes runs, no AOF holds
  // the data yet (and the save points may be off): Redis refuses to exit unless forced.
  if (child_kind_ == ChildKind::kAof && aof_->state() == AofState::kWaitRewrite) {
    if (!force) {
      log.Log(LogLevel::kWarning, "Writing initial AOF, can't exit.");
      return false;
    }
    log.Log(LogLevel::kWarning, "Writing initial AOF. Exit anyway.");
  }
  if (HasActiveChild()) {
    log.Log(LogLevel::kWarning, child_kind_ == ChildKind::kRdb
                                    ? "There is a child saving an .rdb. Killing it!"
                                    : "There is a child rewriting the AOF. Killing it!");
    KillChild(false);
  }
  // AOF (f/aof): flush and fsync the AOF.
  aof_->Shutdown();

  const bool nosave = (flags & kShutdownNoSave) != 0;
  const bool save = (flags & kShutdownSave) != 0;
  if ((!server_.config().save_params.empty() && !nosave) || save) {
    log.Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
    server_.NotifySupervisor("STATUS=Saving the final RDB snapshot\n");
    Status s = SaveInProcess();
    if (!s.ok()) {
      if (!force) {
        log.Log(LogLevel::kWarning, "Error trying to save the DB, can't exit.");
        return false;
      }
      log.Log(LogLevel::kWarning, "Error trying to save the DB. Exit anyway.");
    }
  }
  return true;
}

}  // namespace redistp
