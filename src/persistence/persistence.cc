#include "persistence/persistence.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "scripting/function_engine.h"

namespace redistp {

Persistence::Persistence(Server& server) : server_(server) {
  dirty_at_save_ = server_.keyspace().dirty;
}

Persistence::~Persistence() {
  // A child still running is left to finish on its own (the server is going away); its
  // callback, which refers to this object, is dropped.
  child_done_ = nullptr;
}

Persistence& Persistence::Of(Server& server) {
  std::unique_ptr<ServerModule>& slot = server.persistence_module();
  if (slot == nullptr) {
    auto p = std::make_unique<Persistence>(server);
    server.set_persistence_hooks(p.get());
    slot = std::move(p);
  }
  return static_cast<Persistence&>(*slot);
}

std::string Persistence::RdbPath() const { return server_.config().dbfilename; }

uint64_t Persistence::changes_since_save() const {
  return server_.keyspace().dirty - dirty_at_save_;
}

void Persistence::RaiseFenceFloor() {
  server_.owners().RaiseFence(static_cast<uint64_t>(server_.NowUs()));
}

void Persistence::EmptyData(bool functions) {
  for (int i = 0; i < server_.db_count(); ++i) server_.db(i).Flush();
  if (functions && server_.functions_module() != nullptr) FunctionEngine::Of(server_).Flush();
}

// ---- loading --------------------------------------------------------------------------------

Status Persistence::LoadAtStartup() {
  Logger& log = server_.log();
  const int64_t start_us = server_.NowUs();
  const bool expiry = server_.keyspace().expiry_enabled;
  server_.keyspace().expiry_enabled = false;
  // AOF (f/aof): with appendonly yes the AOF is loaded instead of the RDB file.

  bool missing = false;
  last_load_ = RdbLoadInfo{};
  Status s = LoadRdbFile(server_, RdbPath(), RdbLoadOptions{}, &last_load_, &missing);
  server_.keyspace().expiry_enabled = expiry;
  if (!s.ok()) {
    log.Log(LogLevel::kWarning, "%s", s.message().c_str());
    return Status::Error("");
  }
  if (!missing) {
    log.Log(LogLevel::kNotice, "Done loading RDB, keys loaded: %llu, keys expired: %llu.",
            static_cast<unsigned long long>(last_load_.keys_loaded),
            static_cast<unsigned long long>(last_load_.keys_expired));
    log.Log(LogLevel::kNotice, "DB loaded from disk: %.3f seconds",
            static_cast<double>(server_.NowUs() - start_us) / 1e6);
  }
  dirty_at_save_ = server_.keyspace().dirty;
  RaiseFenceFloor();
  return Status::Ok();
}

// ---- saving ---------------------------------------------------------------------------------

Status Persistence::SaveNow() {
  if (child_kind_ == ChildKind::kRdb) {
    return Status::Error("ERR Background save already in progress");
  }
  const uint64_t dirty_before = server_.keyspace().dirty;
  Result<uint64_t> r =
      SaveRdbFile(server_, RdbPath(), RdbSaveOptions::FromConfig(server_.config()));
  if (!r.ok()) {
    last_bgsave_ok_ = false;
    return Status::Error("ERR");
  }
  server_.log().Log(LogLevel::kNotice, "DB saved on disk");
  dirty_at_save_ = dirty_before;
  server_.set_last_save_time(server_.NowMs() / 1000);
  last_bgsave_ok_ = true;
  ++rdb_saves_;
  return Status::Ok();
}

Status Persistence::StartBackgroundSave() {
  if (child_kind_ == ChildKind::kRdb) {
    return Status::Error("ERR Background save already in progress");
  }
  const uint64_t dirty_before = server_.keyspace().dirty;
  const std::string path = RdbPath();
  RdbSaveOptions options = RdbSaveOptions::FromConfig(server_.config());
  last_bgsave_try_ms_ = server_.NowMs();
  Status s = StartChild(
      ChildKind::kRdb,
      [this, path, options]() {
        Result<uint64_t> r = SaveRdbFile(server_, path, options);
        if (!r.ok()) return 1;
        server_.log().Log(LogLevel::kNotice, "DB saved on disk");
        return 0;
      },
      [this, dirty_before](bool ok, int by_signal) {
        Logger& log = server_.log();
        if (ok) {
          log.Log(LogLevel::kNotice, "Background saving terminated with success");
          dirty_at_save_ = dirty_before;
          server_.set_last_save_time(server_.NowMs() / 1000);
          last_bgsave_ok_ = true;
          ++rdb_saves_;
        } else if (by_signal != 0) {
          log.Log(LogLevel::kWarning, "Background saving terminated by signal %d", by_signal);
          // SIGUSR1 is how we kill our own child: not a failure to report.
          if (by_signal != SIGUSR1) last_bgsave_ok_ = false;
        } else {
          log.Log(LogLevel::kWarning, "Background saving error");
          last_bgsave_ok_ = false;
        }
        last_bgsave_seconds_ = (server_.NowMs() - child_start_ms_) / 1000;
      });
  if (!s.ok()) {
    last_bgsave_ok_ = false;
    return s;
  }
  server_.log().Log(LogLevel::kNotice, "Background saving started by pid %ld",
                    static_cast<long>(child_pid_));
  return Status::Ok();
}

Status Persistence::Reload(bool save, bool flush, bool merge) {
  if (save) {
    Result<uint64_t> r =
        SaveRdbFile(server_, RdbPath(), RdbSaveOptions::FromConfig(server_.config()));
    if (!r.ok()) return Status::Error("ERR");
  }
  if (flush) EmptyData(true);
  RdbLoadOptions o;
  o.allow_duplicates = merge;
  bool missing = false;
  last_load_ = RdbLoadInfo{};
  const bool expiry = server_.keyspace().expiry_enabled;
  server_.keyspace().expiry_enabled = false;
  Status s = LoadRdbFile(server_, RdbPath(), o, &last_load_, &missing);
  server_.keyspace().expiry_enabled = expiry;
  if (!s.ok() || missing) {
    if (!s.ok()) server_.log().Log(LogLevel::kWarning, "%s", s.message().c_str());
    return Status::Error("ERR Error trying to load the RDB dump, check server logs.");
  }
  server_.log().Log(LogLevel::kNotice, "DB reloaded by DEBUG RELOAD");
  return Status::Ok();
}

// ---- children -------------------------------------------------------------------------------

Status Persistence::StartChild(ChildKind kind, std::function<int()> body,
                               std::function<void(bool ok, int by_signal)> done) {
  if (HasActiveChild()) return Status::Error("ERR child process already active");
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    server_.log().Log(LogLevel::kWarning, "Can't save in background: fork: %s", std::strerror(e));
    return Status::Error("ERR");
  }
  if (pid == 0) {
    // The child: default signal handling (a SIGTERM meant for the server's group must end
    // it, and SIGUSR1 is how the parent kills it), then the work, then out without cleanup.
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    server_.log().set_role('C');
    server_.CloseListenersInChild();
    int code = body();
    _exit(code);
  }
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
  bool ok = false;
  int by_signal = 0;
  if (r == child_pid_) {
    if (WIFSIGNALED(status)) by_signal = WTERMSIG(status);
    ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  child_pid_ = -1;
  server_.OnChildChanged(false);
  child_kind_ = ChildKind::kNone;
  std::function<void(bool, int)> done = std::move(child_done_);
  child_done_ = nullptr;
  if (done) done(ok, by_signal);
}

void Persistence::KillChild() {
  if (child_pid_ <= 0) return;
  pid_t pid = child_pid_;
  ChildKind kind = child_kind_;
  kill(pid, SIGUSR1);
  ReapChild(true);
  if (kind == ChildKind::kRdb) {
    // The child's temporary file is left behind when it is killed mid-write.
    std::string tmp = "temp-" + std::to_string(pid) + ".rdb";
    unlink(tmp.c_str());
  }
}

// ---- hooks ----------------------------------------------------------------------------------

void Persistence::BeforeSleep() {
  // AOF (f/aof): write the buffered records (and fsync for appendfsync always).
}

void Persistence::Cron() {
  // AOF (f/aof): everysec fsync, auto rewrite, a scheduled rewrite.

  ReapChild(false);
  if (HasActiveChild()) return;
  if (bgsave_scheduled_) {
    bgsave_scheduled_ = false;
    if (StartBackgroundSave().ok()) return;
  }
  // Save points: the first one reached starts a BGSAVE. After a failed BGSAVE, retry only
  // every 5 seconds (CONFIG_BGSAVE_RETRY_DELAY).
  const int64_t now_ms = server_.NowMs();
  const int64_t since_save = now_ms / 1000 - server_.last_save_time();
  const uint64_t changes = changes_since_save();
  for (const SaveParam& sp : server_.config().save_params) {
    if (changes >= static_cast<uint64_t>(sp.changes) && since_save > sp.seconds &&
        (last_bgsave_ok_ || now_ms - last_bgsave_try_ms_ > 5000)) {
      server_.log().Log(LogLevel::kNotice, "%d changes in %lld seconds. Saving...", sp.changes,
                        static_cast<long long>(sp.seconds));
      (void)StartBackgroundSave();
      break;
    }
  }
}

bool Persistence::PrepareShutdown(int flags) {
  Logger& log = server_.log();
  if (HasActiveChild()) {
    log.Log(LogLevel::kWarning, "There is a child saving an .rdb. Killing it!");
    KillChild();
  }
  // AOF (f/aof): flush and fsync the AOF.

  const bool nosave = (flags & kShutdownNoSave) != 0;
  const bool save = (flags & kShutdownSave) != 0;
  const bool force = (flags & kShutdownForce) != 0;
  if ((!server_.config().save_params.empty() && !nosave) || save) {
    log.Log(LogLevel::kNotice, "Saving the final RDB snapshot before exiting.");
    Status s = SaveNow();
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
