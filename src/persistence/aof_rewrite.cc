// The AOF rewrite (BGREWRITEAOF, auto-aof-rewrite-*, CONFIG SET appendonly yes), Redis 7.0's
// design without a rewrite buffer:
//
//   parent, at fork time   writes its buffer out, opens a new incr file and lists it in the
//                          manifest: from now on records go there;
//   child                  writes the new base from its copy-on-write view of the data to
//                          temp-rewriteaof-<pid>.aof in the working directory, fsyncs it and
//                          renames it temp-rewriteaof-bg-<pid>.aof (file names as Redis's), then
//                          reports its copy-on-write size (aof_last_cow_size);
//   parent, child done     renames it into the AOF directory as the next base, marks the old
//                          base and the incr files before the fork as history, writes the
//                          manifest (atomically), then deletes the history files.
// So at every moment the manifest lists a complete set: the old base and every incr file (until
// the switch), or the new base and the incr files since the fork. A failed or killed child
// leaves the manifest as it was (plus the incr file opened at the fork).
//
// The base is an RDB image with the aof-base aux field (WriteRdb with aof_base), or with
// aof-use-rdb-preamble no the commands that rebuild the data (aof_base.cc). Temporary keys are
// in neither, so a rewrite drops them as a restart does.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <functional>

#include "persistence/aof.h"
#include "persistence/aof_bio.h"
#include "persistence/persistence.h"
#include "persistence/rdb_save.h"
#include "util/file_io.h"

namespace redistp {
namespace {

// The child writes its base to temp-rewriteaof-<pid>.aof, then (complete and synced) renames
// it to the name the parent looks for, temp-rewriteaof-bg-<pid>.aof, as Redis's child does.
std::string ChildTempName(pid_t pid) {
  return "temp-rewriteaof-" + std::to_string(static_cast<long>(pid)) + ".aof";
}
std::string TempBaseName(pid_t pid) {
  return "temp-rewriteaof-bg-" + std::to_string(static_cast<long>(pid)) + ".aof";
}

// Writes the base to `tmp` (an RDB image with the aof-base field, or commands), fsyncs it and
// renames it to `dest`. Returns false after logging the error (and removing `tmp`).
// `progress` gets the number of keys written now and then (RDB bases only).
bool WriteBaseFile(Server& server, const std::string& tmp, const std::string& dest, bool rdb,
                   bool timestamp, std::function<void(uint64_t)> progress) {
  Logger& log = server.log();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    log.Log(LogLevel::kWarning,
            "Opening the temp file for AOF rewrite in rewriteAppendOnlyFile(): %s",
            std::strerror(errno));
    return false;
  }
  RdbSaveOptions options = RdbSaveOptions::FromConfig(server.config());
  bool ok;
  std::string why;
  if (rdb) {
    options.aof_base = true;
    options.progress = std::move(progress);
    Result<uint64_t> r = WriteRdb(server, fd, options);
    ok = r.ok();
    if (!ok) why = r.status().message();
  } else {
    ok = WriteAofBase(server, fd, timestamp, options.key_delay_us);
    if (!ok) why = std::strerror(errno);
  }
  if (ok && fsync(fd) != 0) {
    ok = false;
    why = std::strerror(errno);
  }
  if (close(fd) != 0 && ok) {
    ok = false;
    why = std::strerror(errno);
  }
  if (!ok) {
    log.Log(LogLevel::kWarning, "Write error writing append only file on disk: %s", why.c_str());
    unlink(tmp.c_str());
    return false;
  }
  if (rename(tmp.c_str(), dest.c_str()) != 0) {
    log.Log(LogLevel::kWarning, "Error moving temp append only file on the final destination: %s",
            std::strerror(errno));
    unlink(tmp.c_str());
    return false;
  }
  return true;
}

// The files a successful rewrite replaced become history, newest first, as Redis 7.0 lists
// them: the incr files it covers (in sequence order), then the old base, then the history that
// was there already (kept while aof-disable-auto-gc is yes).
void MoveToHistory(AofManifest* m, std::vector<AofFileInfo> replaced_incrs) {
  std::vector<AofFileInfo> history = std::move(replaced_incrs);
  if (m->base) history.push_back(*m->base);
  for (AofFileInfo& f : history) f.type = AofFileType::kHistory;
  history.insert(history.end(), m->history.begin(), m->history.end());
  m->history = std::move(history);
}

}  // namespace

bool Aof::rewrite_in_progress() const { return persistence_.child_kind() == ChildKind::kAof; }

Status Aof::StartRewrite() {
  if (persistence_.HasActiveChild()) return Status::Error("ERR child process already active");
  ReadConfig();
  Logger& log = server_.log();
  if (mkdir(dirname_.c_str(), 0755) != 0 && errno != EEXIST) {
    log.Log(LogLevel::kWarning, "Can't open or create append-only dir %s: %s", dirname_.c_str(),
            std::strerror(errno));
    last_rewrite_ok_ = false;
    return Status::Error("");
  }
  Flush(true);
  if (RewriteMustWait()) {
    // Records the failing disk still holds back predate the fork: the new base would contain
    // them and the new incr file would replay them again. Start once they are written.
    rewrite_scheduled_ = true;
    log.Log(LogLevel::kNotice,
            "Background AOF rewrite postponed: the AOF buffer cannot be written to disk yet");
    return Status::Error("");
  }
  Status s = OpenNewIncr("background rewrite");
  if (!s.ok()) {
    last_rewrite_ok_ = false;
    return s;
  }
  ++rewrites_;
  const int64_t incr_seq = manifest_.incr_seq;
  const bool rdb = rdb_preamble_;
  const bool ts = timestamps_;
  s = persistence_.StartChild(
      ChildKind::kAof,
      [this, rdb, ts]() {
        ChildInfoPipe& info = persistence_.child_info();
        const std::string tmp = TempBaseName(getpid());
        if (!WriteBaseFile(
                server_, ChildTempName(getpid()), tmp, rdb, ts,
                [this, &info](uint64_t keys) { info.SendCurrent(keys, server_.NowMs()); })) {
          return 1;
        }
        Logger& log = server_.log();
        log.Log(LogLevel::kNotice, "Successfully created the temporary AOF base file %s",
                tmp.c_str());
        info.SendFinal(0, server_.NowMs());
        info.LogCow(log, "AOF rewrite");
        return 0;
      },
      [this, incr_seq, rdb](bool ok, int by_signal) {
        RewriteDone(ok, by_signal, rewrite_pid_, incr_seq, rdb);
      });
  if (!s.ok()) {
    last_rewrite_ok_ = false;
    log.Log(LogLevel::kWarning, "Can't rewrite append only file in background: fork: %s",
            s.message().c_str());
    return s;
  }
  rewrite_scheduled_ = false;
  rewrite_pid_ = persistence_.child_pid();
  rewrite_start_ms_ = server_.NowMs();
  log.Log(LogLevel::kNotice, "Background append only file rewriting started by pid %ld",
          static_cast<long>(persistence_.child_pid()));
  return Status::Ok();
}

void Aof::RewriteDone(bool ok, int by_signal, pid_t pid, int64_t incr_seq_at_fork, bool rdb) {
  Logger& log = server_.log();
  const std::string tmp = TempBaseName(pid);
  const bool waiting = state_ == AofState::kWaitRewrite;
  if (ok) {
    log.Log(LogLevel::kNotice, "Background AOF rewrite terminated with success");
    const ChildProgress& progress = persistence_.child_progress();
    if (progress.final_received) last_cow_size_ = progress.final_cow_bytes;
    AofManifest next = manifest_;
    const int64_t base_seq = next.base_seq + 1;
    AofFileInfo base{AofBaseName(prefix_, base_seq, rdb), base_seq, AofFileType::kBase};
    const std::string base_path = AofPath(dirname_, base.name);
    bool failed = false;
    if (rename(tmp.c_str(), base_path.c_str()) != 0) {
      log.Log(LogLevel::kWarning,
              "Error trying to rename the temporary AOF base file %s into %s: %s", tmp.c_str(),
              base_path.c_str(), std::strerror(errno));
      failed = true;
    } else {
      log.Log(LogLevel::kNotice, "Successfully renamed the temporary AOF base file %s into %s",
              tmp.c_str(), base.name.c_str());
    }
    std::string incr_path;
    if (!failed && waiting) {
      const int64_t seq = next.incr_seq + 1;
      AofFileInfo incr{AofIncrName(prefix_, seq), seq, AofFileType::kIncr};
      incr_path = AofPath(dirname_, incr.name);
      if (rename(TempIncrPath().c_str(), incr_path.c_str()) != 0) {
        log.Log(LogLevel::kWarning,
                "Error trying to rename the temporary AOF incr file %s into %s: %s",
                TempIncrPath().c_str(), incr_path.c_str(), std::strerror(errno));
        unlink(base_path.c_str());
        failed = true;
      } else {
        log.Log(LogLevel::kNotice, "Successfully renamed the temporary AOF incr file %s into %s",
                ("temp-" + prefix_ + ".incr").c_str(), incr.name.c_str());
        // Every incr file listed so far (from an earlier AOF) predates the new base.
        MoveToHistory(&next, std::move(next.incrs));
        next.incrs.clear();
        next.incrs.push_back(incr);
        next.incr_seq = seq;
      }
    } else if (!failed) {
      // The incr files written before the fork are in the new base now. With the AOF off
      // (BGREWRITEAOF under appendonly no) every incr file is.
      std::vector<AofFileInfo> keep, replaced;
      for (AofFileInfo& f : next.incrs) {
        (state_ == AofState::kOn && f.seq >= incr_seq_at_fork ? keep : replaced).push_back(f);
      }
      MoveToHistory(&next, std::move(replaced));
      next.incrs = std::move(keep);
    }
    next.base = base;
    next.base_seq = base_seq;
    if (!failed) {
      Status s = WriteAofManifest(dirname_, prefix_, next);
      if (!s.ok()) {
        log.Log(LogLevel::kWarning, "%s", s.message().c_str());
        unlink(base_path.c_str());
        if (!incr_path.empty()) rename(incr_path.c_str(), TempIncrPath().c_str());
        failed = true;
      }
    }
    if (failed) {
      last_rewrite_ok_ = false;
      ++rewrite_failures_;
    } else {
      manifest_ = std::move(next);
      if (state_ != AofState::kOff) {
        MeasureFiles();
        rewrite_base_size_ = current_size_;
        need_select_ = true;
      }
      DeleteHistory();
      last_rewrite_ok_ = true;
      rewrite_failures_ = 0;
      log.Log(LogLevel::kNotice, "Background AOF rewrite finished successfully");
      if (waiting) state_ = AofState::kOn;
    }
  } else if (by_signal == 0) {
    last_rewrite_ok_ = false;
    ++rewrite_failures_;
    log.Log(LogLevel::kWarning, "Background AOF rewrite terminated with error");
  } else {
    // SIGUSR1 is how we stop our own child: not a failure, and (as Redis, which reaps it
    // without its done handler) no line beyond "Killing running AOF rewrite child".
    if (by_signal != SIGUSR1) {
      last_rewrite_ok_ = false;
      ++rewrite_failures_;
      log.Log(LogLevel::kWarning, "Background AOF rewrite terminated by signal %d", by_signal);
    }
  }
  // A child that died mid-write leaves its own temporary file too.
  unlink(tmp.c_str());
  unlink(ChildTempName(pid).c_str());
  if (state_ == AofState::kWaitRewrite) {
    // Still no base: start over (the records written meanwhile are in the data, so the next
    // base holds them).
    if (fd_ >= 0) {
      close(fd_);
      fd_ = -1;
    }
    buf_.clear();
    // Redis's words, but removed at once: the retry may open the same name within this turn,
    // and a background unlink would then remove the new file.
    server_.log().Log(LogLevel::kNotice, "Removing the temp incr aof file %s in the background",
                      ("temp-" + prefix_ + ".incr").c_str());
    unlink(TempIncrPath().c_str());
    rewrite_scheduled_ = true;
  }
  last_rewrite_seconds_ = (server_.NowMs() - rewrite_start_ms_) / 1000;
}

void Aof::StopRewrite() {
  if (persistence_.child_kind() != ChildKind::kAof) return;
  server_.log().Log(LogLevel::kNotice, "Killing running AOF rewrite child: %ld",
                    static_cast<long>(persistence_.child_pid()));
  persistence_.KillChild(false);
}

Status Aof::CreateBaseNow(const char* why) {
  const int64_t seq = manifest_.base_seq + 1;
  AofFileInfo base{AofBaseName(prefix_, seq, rdb_preamble_), seq, AofFileType::kBase};
  server_.log().Log(LogLevel::kNotice, "Creating AOF base file %s on %s", base.name.c_str(), why);
  const std::string path = AofPath(dirname_, base.name);
  if (!WriteBaseFile(server_, ChildTempName(getpid()), path, rdb_preamble_, timestamps_, {})) {
    return Status::Error("");
  }
  (void)FsyncDirectory(dirname_);
  manifest_.base = base;
  manifest_.base_seq = seq;
  return Status::Ok();
}

}  // namespace redistp
