// The AOF writer: records in, bytes to the incr file, fsync by policy (see aof.h).
#include "persistence/aof.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "persistence/aof_bio.h"
#include "persistence/persistence.h"
#include "server/client.h"
#include "util/numbers.h"

namespace redistp {
namespace {

bool ConfigBool(const Config& c, std::string_view name) {
  std::string v;
  return c.GetValue(name, &v) && v == "yes";
}

int64_t ConfigInt(const Config& c, std::string_view name, int64_t dflt) {
  std::string v;
  if (!c.GetValue(name, &v)) return dflt;
  return std::strtoll(v.c_str(), nullptr, 10);
}

// Appends "<prefix><n>\r\n".
void AppendHeader(std::string* buf, char prefix, size_t n) {
  char tmp[24];
  tmp[0] = prefix;
  int len = 1 + std::snprintf(tmp + 1, sizeof(tmp) - 1, "%zu", n);
  buf->append(tmp, static_cast<size_t>(len));
  buf->append("\r\n", 2);
}

// The write buffer's capacity kept between loop turns (Redis reuses its aof_buf below 4000).
constexpr size_t kKeptBufferBytes = 4000;

// Redis's AOF_WRITE_LOG_ERROR_RATE: seconds between two logs of a failing AOF write.
constexpr int64_t kWriteErrorLogSeconds = 30;

bool IsSelect(const std::vector<std::string>& argv) {
  return argv.size() == 2 && EqualsIgnoreCase(argv[0], "select");
}

}  // namespace

Aof::Aof(Server& server, Persistence& persistence)
    : server_(server), persistence_(persistence), bio_(std::make_unique<AofBio>()) {
  ReadConfig();
  Config& config = server_.config();
  config.OnChange(
      {"appendfsync", "aof-timestamp-enabled", "aof-use-rdb-preamble", "aof-load-truncated",
       "no-appendfsync-on-rewrite", "auto-aof-rewrite-percentage", "auto-aof-rewrite-min-size"},
      [this]() {
        ReadConfig();
        return Status::Ok();
      });
  // Switched back on, the automatic deletion catches up at once with the history kept so far.
  config.OnChange("aof-disable-auto-gc", [this]() {
    ReadConfig();
    DeleteHistory();
    return Status::Ok();
  });
  config.OnChange("appendonly", [this]() {
    if (server_.config().appendonly) {
      if (state_ == AofState::kOff && !Start().ok()) {
        return Status::Error("Unable to turn on AOF. Check server logs.");
      }
    } else if (state_ != AofState::kOff) {
      Stop();
    }
    return Status::Ok();
  });
}

Aof::~Aof() {
  if (state_ != AofState::kOff) server_.propagator().RemoveSink(this);
  if (fd_ >= 0) close(fd_);
}

void Aof::ReadConfig() {
  const Config& c = server_.config();
  std::string v;
  c.GetValue("appendfsync", &v);
  fsync_ = v == "always" ? AofFsync::kAlways : v == "no" ? AofFsync::kNo : AofFsync::kEverysec;
  timestamps_ = ConfigBool(c, "aof-timestamp-enabled");
  rdb_preamble_ = ConfigBool(c, "aof-use-rdb-preamble");
  load_truncated_ = ConfigBool(c, "aof-load-truncated");
  no_fsync_on_rewrite_ = ConfigBool(c, "no-appendfsync-on-rewrite");
  auto_gc_ = !ConfigBool(c, "aof-disable-auto-gc");
  auto_rewrite_perc_ = ConfigInt(c, "auto-aof-rewrite-percentage", 100);
  auto_rewrite_min_ = ConfigInt(c, "auto-aof-rewrite-min-size", 64 << 20);
  dirname_ = c.appenddirname;
  prefix_ = c.appendfilename;
}

// ---- records --------------------------------------------------------------------------------

void Aof::OnPropagate(const std::vector<std::string>& argv) {
  if (fd_ < 0) return;  // kWaitRewrite before its rewrite began: the base will hold it
  // "*0" is no command: the loader (ours, Redis's, redis-check-aof) refuses a file holding one.
  if (argv.empty()) return;
  if (timestamps_) {
    const int64_t now = server_.NowMs() / 1000;
    if (now > last_ts_) {
      last_ts_ = now;
      buf_.append("#TS:");
      buf_.append(std::to_string(now));
      buf_.append("\r\n");
    }
  }
  if (IsSelect(argv)) {
    last_db_ = std::atoi(argv[1].c_str());
    need_select_ = false;
  } else if (need_select_) {
    // The file just began: it must say which database the records are for.
    need_select_ = false;
    if (last_db_ >= 0) OnPropagate({"SELECT", std::to_string(last_db_)});
  }
  AppendHeader(&buf_, '*', argv.size());
  for (const std::string& a : argv) {
    AppendHeader(&buf_, '$', a.size());
    buf_.append(a);
    buf_.append("\r\n", 2);
  }
}

// ---- writing --------------------------------------------------------------------------------

void Aof::Flush(bool force) {
  if (fd_ < 0) return;
  const int64_t now_ms = server_.NowMs();
  const int64_t now_sec = now_ms / 1000;
  const bool child = persistence_.HasActiveChild();
  if (buf_.empty()) {
    // Nothing new, but what an earlier turn wrote may still want its everysec fsync.
    if (fsync_ == AofFsync::kEverysec && fsynced_size_ != current_size_ &&
        now_sec > last_fsync_sec_ && bio_->pending_fsyncs() == 0 &&
        !(no_fsync_on_rewrite_ && child)) {
      bio_->Fsync(fd_, written_total_);
      last_fsync_sec_ = now_sec;
      fsynced_size_ = current_size_;
    }
    return;
  }
  if (fsync_ == AofFsync::kEverysec && !force && bio_->pending_fsyncs() > 0) {
    // A background fsync is still running: writing now would block on it. Postpone, but by no
    // more than two seconds.
    if (postponed_since_ms_ == 0) {
      postponed_since_ms_ = now_ms;
      return;
    }
    if (now_ms - postponed_since_ms_ < 2000) return;
    ++delayed_fsync_;
    server_.log().Log(LogLevel::kNotice,
                      "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF "
                      "buffer without waiting for fsync to complete, this may slow down Redis.");
  }
  postponed_since_ms_ = 0;
  if (flush_sleep_us_ > 0) usleep(static_cast<useconds_t>(flush_sleep_us_));

  size_t done = 0;
  int err = 0;
  while (done < buf_.size()) {
    ssize_t n = write(fd_, buf_.data() + done, buf_.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      err = errno;
      break;
    }
    if (n == 0) {
      err = ENOSPC;
      break;
    }
    done += static_cast<size_t>(n);
  }
  current_size_ += done;
  if (err != 0) {
    Logger& log = server_.log();
    // The failed write is retried every loop turn: log it at most every 30 seconds, as Redis.
    const bool can_log = now_sec - last_write_error_log_sec_ > kWriteErrorLogSeconds;
    if (can_log) last_write_error_log_sec_ = now_sec;
    if (done == 0) {
      if (can_log) {
        log.Log(LogLevel::kWarning, "Error writing to the AOF file: %s", std::strerror(err));
      }
    } else {
      if (can_log) {
        log.Log(LogLevel::kWarning,
                "Short write while writing to the AOF file: (nwritten=%lld, expected=%lld)",
                static_cast<long long>(done), static_cast<long long>(buf_.size()));
      }
      // Take the partial record back so the file ends at a record boundary; if that fails the
      // written bytes stay and only the rest is retried.
      if (ftruncate(fd_, static_cast<off_t>(file_size_)) == 0) {
        current_size_ -= done;
        done = 0;
      } else if (can_log) {
        log.Log(LogLevel::kWarning,
                "Could not remove short write from the append-only file.  Redis may refuse to "
                "load the AOF the next time it starts.  ftruncate: %s",
                std::strerror(errno));
      }
    }
    if (fsync_ == AofFsync::kAlways) FatalWriteError();
    buf_.erase(0, done);
    file_size_ += done;
    written_total_ += done;
    last_write_ok_ = false;
    last_write_errno_ = err;
    return;
  }
  file_size_ += done;
  written_total_ += done;
  buf_.clear();
  // A burst must not pin its buffer: past a few KB it is given back, as Redis frees its
  // aof_buf (a pipelined burst kept up to 4 MB here after the data was deleted: the soak test's
  // used_memory did not come back).
  if (buf_.capacity() > kKeptBufferBytes) std::string().swap(buf_);
  if (!last_write_ok_) {
    server_.log().Log(LogLevel::kWarning, "AOF write error looks solved, Redis can write again.");
    last_write_ok_ = true;
  }

  if (no_fsync_on_rewrite_ && child) return;
  if (fsync_ == AofFsync::kAlways) {
    if (fdatasync(fd_) != 0) {
      server_.log().Log(LogLevel::kWarning,
                        "Can't persist AOF for fsync error when the AOF fsync policy is "
                        "'always': %s. Exiting...",
                        std::strerror(errno));
      std::exit(1);
    }
    last_fsync_sec_ = now_sec;
    fsynced_size_ = current_size_;
    synced_total_ = written_total_;
  } else if (fsync_ == AofFsync::kEverysec && now_sec > last_fsync_sec_) {
    // Only an fsync actually queued counts as asked for: one skipped because the previous is
    // still running is asked again by a later turn (the empty-buffer path above), as Redis
    // does, or bytes written now would wait for the next write to be synced at all.
    if (bio_->pending_fsyncs() == 0) {
      bio_->Fsync(fd_, written_total_);
      fsynced_size_ = current_size_;
    }
    last_fsync_sec_ = now_sec;
  }
}

void Aof::FatalWriteError() {
  server_.log().Log(LogLevel::kWarning,
                    "Can't recover from AOF write error when the AOF fsync policy is 'always'. "
                    "Exiting...");
  std::exit(1);
}

void Aof::Cron() {
  if (state_ != AofState::kOff) {
    if (postponed_since_ms_ != 0) Flush(false);
    // A failed write is retried every tick; its refusal ends with the first success.
    if (!last_write_ok_) Flush(false);
    Flush(false);  // an empty buffer: only the everysec fsync of earlier writes
    // A failed background fsync is logged once (Redis logs it as it happens, in its thread);
    // WriteRefusal and INFO read the status directly.
    const int e = bio_->fsync_status();
    if (e != 0 && !fsync_error_logged_) {
      server_.log().Log(LogLevel::kWarning, "Fail to fsync the AOF file: %s", std::strerror(e));
    }
    fsync_error_logged_ = e != 0;
  }
  if (persistence_.HasActiveChild()) return;
  if (rewrite_scheduled_) {
    if (!RewriteMustWait() && !RewriteLimited()) (void)StartRewrite();
    return;
  }
  if (state_ == AofState::kOn && auto_rewrite_perc_ > 0 &&
      current_size_ > static_cast<uint64_t>(auto_rewrite_min_)) {
    const uint64_t base = rewrite_base_size_ != 0 ? rewrite_base_size_ : 1;
    const int64_t growth = static_cast<int64_t>(current_size_ * 100 / base) - 100;
    if (growth >= auto_rewrite_perc_ && !RewriteMustWait() && !RewriteLimited()) {
      server_.log().Log(LogLevel::kNotice, "Starting automatic rewriting of AOF on %lld%% growth",
                        static_cast<long long>(growth));
      (void)StartRewrite();
    }
  }
}

// After 3 failed rewrites in a row, automatic and scheduled ones wait 1 minute, then 2, 4...
// up to an hour between tries (Redis's aofRewriteLimited): each try opens an incr file.
bool Aof::RewriteLimited() {
  if (rewrite_failures_ < 3) {
    limit_delay_min_ = 0;
    limit_until_sec_ = 0;
    return false;
  }
  const int64_t now = server_.NowMs() / 1000;
  if (limit_until_sec_ != 0) {
    if (now < limit_until_sec_) return true;
    limit_until_sec_ = 0;
    return false;
  }
  limit_delay_min_ = limit_delay_min_ == 0 ? 1 : std::min<int64_t>(limit_delay_min_ * 2, 60);
  limit_until_sec_ = now + limit_delay_min_ * 60;
  server_.log().Log(LogLevel::kWarning,
                    "Background AOF rewrite has repeatedly failed and triggered the limit, will "
                    "retry in %d minutes",
                    static_cast<int>(limit_delay_min_));
  return true;
}

void Aof::Shutdown() {
  if (state_ == AofState::kOff || fd_ < 0) return;
  Flush(true);
  server_.log().Log(LogLevel::kNotice, "Calling fsync() on the AOF file.");
  if (fdatasync(fd_) == 0) synced_total_ = written_total_;
}

// ---- files ----------------------------------------------------------------------------------

std::string Aof::TempIncrPath() const { return AofPath(dirname_, "temp-" + prefix_ + ".incr"); }

Status Aof::PersistManifest() {
  Status s = WriteAofManifest(dirname_, prefix_, manifest_);
  if (!s.ok()) server_.log().Log(LogLevel::kWarning, "%s", s.message().c_str());
  return s;
}

Status Aof::SwitchTo(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    server_.log().Log(LogLevel::kWarning, "Can't open the append-only file %s: %s", path.c_str(),
                      std::strerror(e));
    return Status::Error(std::strerror(e));
  }
  struct stat st;
  file_size_ = fstat(fd, &st) == 0 ? static_cast<uint64_t>(st.st_size) : 0;
  if (fd_ >= 0) bio_->FsyncAndClose(fd_);
  fd_ = fd;
  need_select_ = true;
  return Status::Ok();
}

Status Aof::OpenNewIncr(const char* why) {
  if (state_ == AofState::kOff) return Status::Ok();  // BGREWRITEAOF with appendonly no
  if (state_ == AofState::kWaitRewrite) {
    // Until the first base exists, records go to a temporary file the manifest does not list.
    const std::string tmp = TempIncrPath();
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
    unlink(tmp.c_str());
    Status s = SwitchTo(tmp);
    if (s.ok()) {
      server_.log().Log(LogLevel::kNotice, "Creating AOF incr file %s on %s",
                        ("temp-" + prefix_ + ".incr").c_str(), why);
    }
    return s;
  }
  AofManifest next = manifest_;
  const int64_t seq = next.incr_seq + 1;
  AofFileInfo f{AofIncrName(prefix_, seq), seq, AofFileType::kIncr};
  const std::string path = AofPath(dirname_, f.name);
  int probe = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (probe < 0) {
    server_.log().Log(LogLevel::kWarning, "Can't open the append-only file %s: %s", f.name.c_str(),
                      std::strerror(errno));
    return Status::Error("open");
  }
  close(probe);
  next.incrs.push_back(f);
  next.incr_seq = seq;
  Status s = WriteAofManifest(dirname_, prefix_, next);
  if (!s.ok()) {
    server_.log().Log(LogLevel::kWarning, "%s", s.message().c_str());
    unlink(path.c_str());
    return s;
  }
  s = SwitchTo(path);
  if (!s.ok()) return s;
  manifest_ = std::move(next);
  server_.log().Log(LogLevel::kNotice, "Creating AOF incr file %s on %s", f.name.c_str(), why);
  fsynced_size_ = current_size_;
  last_fsync_sec_ = server_.NowMs() / 1000;
  return Status::Ok();
}

// The manifest stops listing the history first, so no crash leaves it naming a deleted file.
void Aof::DeleteHistory() {
  if (!auto_gc_ || manifest_.history.empty()) return;
  std::vector<AofFileInfo> history;
  history.swap(manifest_.history);
  if (!PersistManifest().ok()) {
    manifest_.history.swap(history);
    return;
  }
  for (const AofFileInfo& f : history) {
    server_.log().Log(LogLevel::kNotice, "Removing the history file %s in the background",
                      f.name.c_str());
    bio_->Unlink(AofPath(dirname_, f.name));
  }
}

void Aof::MeasureFiles() {
  struct stat st;
  base_size_ = 0;
  current_size_ = 0;
  if (manifest_.base && stat(AofPath(dirname_, manifest_.base->name).c_str(), &st) == 0) {
    base_size_ = static_cast<uint64_t>(st.st_size);
  }
  current_size_ = base_size_;
  for (const AofFileInfo& f : manifest_.incrs) {
    if (stat(AofPath(dirname_, f.name).c_str(), &st) == 0) {
      current_size_ += static_cast<uint64_t>(st.st_size);
    }
  }
  fsynced_size_ = current_size_;
}

Status Aof::OpenOnStartup() {
  if (mkdir(dirname_.c_str(), 0755) != 0 && errno != EEXIST) {
    server_.log().Log(LogLevel::kWarning, "Can't open or create append-only dir %s: %s",
                      dirname_.c_str(), std::strerror(errno));
    return Status::Error("");
  }
  state_ = AofState::kOn;
  if (!manifest_.base && manifest_.incrs.empty()) {
    Status s = CreateBaseNow("server start");
    if (!s.ok()) return s;
  }
  if (manifest_.incrs.empty()) {
    const int64_t seq = manifest_.incr_seq + 1;
    AofFileInfo f{AofIncrName(prefix_, seq), seq, AofFileType::kIncr};
    Status s = SwitchTo(AofPath(dirname_, f.name));
    if (!s.ok()) return s;
    manifest_.incrs.push_back(f);
    manifest_.incr_seq = seq;
    s = PersistManifest();
    if (!s.ok()) return s;
    server_.log().Log(LogLevel::kNotice, "Creating AOF incr file %s on server start",
                      f.name.c_str());
  } else {
    const AofFileInfo& last = manifest_.incrs.back();
    Status s = SwitchTo(AofPath(dirname_, last.name));
    if (!s.ok()) return s;
    server_.log().Log(LogLevel::kNotice, "Opening AOF incr file %s on server start",
                      last.name.c_str());
  }
  MeasureFiles();
  rewrite_base_size_ = current_size_;
  last_fsync_sec_ = server_.NowMs() / 1000;
  server_.propagator().AddSink(this);
  return Status::Ok();
}

Status Aof::Start() {
  ReadConfig();
  if (mkdir(dirname_.c_str(), 0755) != 0 && errno != EEXIST) {
    server_.log().Log(LogLevel::kWarning, "Can't open or create append-only dir %s: %s",
                      dirname_.c_str(), std::strerror(errno));
    return Status::Error("");
  }
  state_ = AofState::kWaitRewrite;
  server_.propagator().AddSink(this);
  if (persistence_.HasActiveChild() && persistence_.child_kind() != ChildKind::kAof) {
    rewrite_scheduled_ = true;
    server_.log().Log(LogLevel::kWarning,
                      "AOF was enabled but there is already another background operation. An "
                      "AOF background was scheduled to start when possible.");
    ForgetFsyncErrorOnReopen();
    return Status::Ok();
  }
  // Turned on by a CONFIG SET inside EXEC: the rewrite starts after the transaction, so its
  // base holds the writes queued after the CONFIG SET too (records are dropped until the
  // rewrite begins: the base will hold them). Only one command runs at a time, so a client
  // running its transaction means this is the one.
  for (const auto& [id, c] : server_.clients()) {
    if (!c->has_flag(kClientInExec)) continue;
    rewrite_scheduled_ = true;
    server_.log().Log(LogLevel::kWarning,
                      "AOF was enabled during a transaction. An AOF background was scheduled to "
                      "start when possible.");
    ForgetFsyncErrorOnReopen();
    return Status::Ok();
  }
  if (persistence_.child_kind() == ChildKind::kAof) {
    server_.log().Log(LogLevel::kWarning,
                      "AOF was enabled but there is already an AOF rewriting in background. "
                      "Stopping background AOF and starting a rewrite now.");
    StopRewrite();
  }
  Status s = StartRewrite();
  if (!s.ok()) {
    server_.propagator().RemoveSink(this);
    state_ = AofState::kOff;
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
    server_.log().Log(LogLevel::kWarning,
                      "Redis needs to enable the AOF but can't trigger a background AOF rewrite "
                      "operation. Check the above logs for more info about the error.");
    return s;
  }
  ForgetFsyncErrorOnReopen();
  return Status::Ok();
}

void Aof::ForgetFsyncErrorOnReopen() {
  if (bio_->fsync_status() == 0) return;
  server_.log().Log(LogLevel::kWarning, "AOF reopen, just ignore the AOF fsync error in bio job");
  bio_->ResetFsyncStatus();
  fsync_error_logged_ = false;
}

void Aof::Stop() {
  Flush(true);
  if (fd_ >= 0) {
    if (fdatasync(fd_) != 0) {
      server_.log().Log(LogLevel::kWarning, "Fail to fsync the AOF file: %s", std::strerror(errno));
    } else {
      synced_total_ = written_total_;
    }
    close(fd_);
    fd_ = -1;
  }
  server_.propagator().RemoveSink(this);
  const bool waiting = state_ == AofState::kWaitRewrite;
  state_ = AofState::kOff;
  rewrite_scheduled_ = false;
  buf_.clear();
  last_db_ = -1;
  last_write_ok_ = true;
  // A background fsync failure stays in INFO (the refusal ends with the AOF) until the AOF is
  // switched on again, as in Redis.
  StopRewrite();
  if (waiting) unlink(TempIncrPath().c_str());
}

// ---- write refusal, INFO --------------------------------------------------------------------

uint64_t Aof::synced_bytes() const { return std::max(synced_total_, bio_->synced_mark()); }

bool Aof::write_status_ok() const { return last_write_ok_ && bio_->fsync_status() == 0; }

std::string_view Aof::WriteRefusal() const {
  if (state_ == AofState::kOff || write_status_ok()) return {};
  const int e = !last_write_ok_ ? last_write_errno_ : bio_->fsync_status();
  refusal_ = std::string("MISCONF Errors writing to the AOF file: ") + std::strerror(e);
  return refusal_;
}

void Aof::WriteInfo(std::string* out) const {
  char line[256];
  auto add = [&](const char* fmt, long long v) {
    std::snprintf(line, sizeof(line), fmt, v);
    out->append(line);
    out->append("\r\n");
  };
  const bool in_progress = rewrite_in_progress();
  add("aof_enabled:%lld", state_ != AofState::kOff ? 1 : 0);
  add("aof_rewrite_in_progress:%lld", in_progress ? 1 : 0);
  add("aof_rewrite_scheduled:%lld", rewrite_scheduled_ ? 1 : 0);
  add("aof_last_rewrite_time_sec:%lld", last_rewrite_seconds_);
  add("aof_current_rewrite_time_sec:%lld",
      in_progress ? (server_.NowMs() - rewrite_start_ms_) / 1000 : -1);
  out->append(last_rewrite_ok_ ? "aof_last_bgrewrite_status:ok\r\n"
                               : "aof_last_bgrewrite_status:err\r\n");
  add("aof_rewrites:%lld", static_cast<long long>(rewrites_));
  add("aof_rewrites_consecutive_failures:%lld", static_cast<long long>(rewrite_failures_));
  out->append(write_status_ok() ? "aof_last_write_status:ok\r\n" : "aof_last_write_status:err\r\n");
  add("aof_last_cow_size:%lld", static_cast<long long>(last_cow_size_));
  add("module_fork_in_progress:%lld", 0);
  add("module_fork_last_cow_size:%lld", 0);
  if (state_ != AofState::kOff) {
    add("aof_current_size:%lld", static_cast<long long>(current_size_));
    add("aof_base_size:%lld", static_cast<long long>(base_size_));
    add("aof_pending_rewrite:%lld", rewrite_scheduled_ ? 1 : 0);
    add("aof_buffer_length:%lld", static_cast<long long>(buf_.size()));
    add("aof_pending_bio_fsync:%lld", static_cast<long long>(bio_->pending_fsyncs()));
    add("aof_delayed_fsync:%lld", static_cast<long long>(delayed_fsync_));
  }
}

}  // namespace redistp
