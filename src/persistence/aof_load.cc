// Loading the AOF: the manifest's base, then its incr files in order, as Redis 7.0 does.
//
// Each file is mapped and read as: an optional RDB image (a file starting with "REDIS": the
// base's preamble, loaded by LoadRdb, which reports how many bytes it consumed), then RESP
// arrays of bulk strings, one command each, and '#' annotation lines (timestamps), which are
// skipped. Every command is run through Server::Execute by a client with no socket (of kind
// kAofLoading), so it behaves exactly as it did when it was recorded; its replies are
// thrown away.
//
// Faults, with Redis's rules and log lines:
//   - an unknown command or a line that is not what the format wants: "Bad file format", exit;
//   - the file ends inside a command (or inside MULTI without EXEC, which is reverted): with
//     aof-load-truncated yes the file is truncated after the last complete command and loading
//     goes on — only for the last file; else exit with the redis-check-aof advice;
//   - a file the manifest lists but the disk does not have: exit.
// While loading, keys are not expired (the caller turns expiry off), the AOF takes no records
// (no sink is attached, or it is detached for DEBUG LOADAOF), and temporary keys made by
// replayed SETTPs belong to the loading client; when loading ends they are deleted (their
// owners are gone), before anything can watch them and without a record in the AOF.
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <optional>

#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "persistence/rdb_load.h"
#include "server/client.h"
#include "util/file_io.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// The loading client's id: no connection ever gets it (ids count up from 1).
constexpr uint64_t kAofClientId = std::numeric_limits<uint64_t>::max() - 1;

enum class LoadResult { kOk, kNotExist, kEmpty, kOpenError, kFailed, kTruncated };

// A read-only mapping of a whole file.
class MappedFile {
 public:
  ~MappedFile() { Unmap(); }
  // 0 on success, else errno (ENOENT for a missing file).
  int Open(const std::string& path) {
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return errno;
    struct stat st;
    if (fstat(fd, &st) != 0) {
      int e = errno;
      close(fd);
      return e;
    }
    size_ = static_cast<size_t>(st.st_size);
    if (size_ > 0) {
      void* p = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
      if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        size_ = 0;
        return e;
      }
      data_ = static_cast<const char*>(p);
      madvise(p, size_, MADV_SEQUENTIAL);
    }
    close(fd);
    return 0;
  }
  void Unmap() {
    if (data_ != nullptr) munmap(const_cast<char*>(data_), size_);
    data_ = nullptr;
  }
  std::string_view view() const { return {data_, size_}; }

 private:
  const char* data_ = nullptr;
  size_t size_ = 0;
};

// One fgets-like line starting at `pos`: up to and including '\n', or to the end.
std::string_view NextLine(std::string_view s, size_t* pos) {
  size_t nl = s.find('\n', *pos);
  size_t end = nl == std::string_view::npos ? s.size() : nl + 1;
  std::string_view line = s.substr(*pos, end - *pos);
  *pos = end;
  return line;
}

class FileLoader {
 public:
  FileLoader(Server& server, Client& client, bool load_truncated)
      : server_(server), client_(client), load_truncated_(load_truncated) {}

  LoadResult Load(const std::string& dir, const std::string& name);

 private:
  // What the command loop found.
  enum class Stop { kEnd, kUnexpectedEnd, kFormat, kUnknown };
  Stop Replay(std::string_view data, size_t pos, size_t* valid_up_to);

  Server& server_;
  Client& client_;
  bool load_truncated_;
  std::string current_;  // the file being loaded (log lines)
  std::vector<std::string_view> args_;
  uint64_t commands_ = 0;  // replayed so far (progress is reported every 1024)
  size_t reported_ = 0;    // bytes of the current file already reported
};

FileLoader::Stop FileLoader::Replay(std::string_view data, size_t pos, size_t* valid_up_to) {
  size_t before_multi = *valid_up_to;
  while (pos < data.size()) {
    std::string_view line = NextLine(data, &pos);
    if (line[0] == '#') continue;  // an annotation (#TS:...)
    if (line[0] != '*') return Stop::kFormat;
    if (line.size() == 1) return Stop::kUnexpectedEnd;
    const long argc = std::atol(std::string(line.substr(1)).c_str());
    if (argc < 1) return Stop::kFormat;
    args_.clear();
    for (long i = 0; i < argc; ++i) {
      if (pos >= data.size()) return Stop::kUnexpectedEnd;
      std::string_view head = NextLine(data, &pos);
      if (head[0] != '$') return Stop::kFormat;
      const long len = std::strtol(std::string(head.substr(1)).c_str(), nullptr, 10);
      if (len < 0) return Stop::kFormat;
      // The value and its CRLF (whose bytes Redis does not check either).
      if (head.back() != '\n' || data.size() - pos < static_cast<size_t>(len) + 2) {
        return Stop::kUnexpectedEnd;
      }
      args_.push_back(data.substr(pos, static_cast<size_t>(len)));
      pos += static_cast<size_t>(len) + 2;
    }
    if (server_.commands().Find(args_[0]) == nullptr) {
      server_.log().Log(LogLevel::kWarning,
                        "Unknown command '%.*s' reading the append only file %s",
                        static_cast<int>(args_[0].size()), args_[0].data(), current_.c_str());
      return Stop::kUnknown;
    }
    if (EqualsIgnoreCase(args_[0], "multi")) before_multi = *valid_up_to;
    server_.Execute(&client_, args_);
    client_.out.Clear();
    client_.pending_pushes.Clear();
    *valid_up_to = pos;
    // Every 1024 commands the progress is reported (the clients are served every
    // loading-process-events-interval-bytes, server/loading.cc), as Redis does.
    if (++commands_ % 1024 == 0) {
      server_.LoadingProgress(pos - reported_);
      reported_ = pos;
    }
    // SHUTDOWN NOSAVE served during a busy script of this file ends the process now.
    if (server_.shutdown_requested()) server_.ExitWhileLoading();
  }
  server_.LoadingProgress(pos - reported_);
  reported_ = pos;
  if (client_.multi.active) {
    server_.log().Log(LogLevel::kNotice, "Revert incomplete MULTI/EXEC transaction in AOF file %s",
                      current_.c_str());
    client_.DiscardTransaction(server_.exec_watches());
    *valid_up_to = before_multi;
    return Stop::kUnexpectedEnd;
  }
  return Stop::kEnd;
}

LoadResult FileLoader::Load(const std::string& dir, const std::string& name) {
  Logger& log = server_.log();
  current_ = name;
  const std::string path = AofPath(dir, name);
  MappedFile file;
  int e = file.Open(path);
  if (e == ENOENT) {
    log.Log(LogLevel::kWarning, "The append log file %s doesn't exist: %s", name.c_str(),
            std::strerror(e));
    return LoadResult::kNotExist;
  }
  if (e != 0) {
    log.Log(LogLevel::kWarning, "Fatal error: can't open the append log file %s for reading: %s",
            name.c_str(), std::strerror(e));
    return LoadResult::kOpenError;
  }
  std::string_view data = file.view();
  if (data.empty()) return LoadResult::kEmpty;

  size_t pos = 0;
  reported_ = 0;
  if (data.size() >= 5 && data.substr(0, 5) == "REDIS") {
    log.Log(LogLevel::kNotice, "Reading RDB base file on AOF loading...");
    RdbLoadOptions o;
    o.aof_preamble = true;
    RdbLoadInfo info;
    Status s = LoadRdb(server_, data, o, &info);
    if (!s.ok()) {
      log.Log(LogLevel::kWarning, "%s", s.message().c_str());
      log.Log(LogLevel::kWarning, "Error reading the RDB base file %s, AOF loading aborted",
              name.c_str());
      return LoadResult::kFailed;
    }
    if (info.aof_base) log.Log(LogLevel::kNotice, "RDB is base AOF");
    LogRdbLoaded(log, info);
    pos = info.consumed;
    reported_ = pos;  // the preamble's loader reported its own bytes
    if (pos < data.size()) log.Log(LogLevel::kNotice, "Reading the remaining AOF tail...");
  }

  size_t valid_up_to = pos;
  Stop stop = Replay(data, pos, &valid_up_to);
  if (stop == Stop::kEnd) return LoadResult::kOk;
  if (stop == Stop::kUnknown) return LoadResult::kFailed;
  if (stop == Stop::kFormat) {
    log.Log(LogLevel::kWarning,
            "Bad file format reading the append only file %s: make a backup of your AOF file, "
            "then use ./redis-check-aof --fix <filename.manifest>",
            name.c_str());
    return LoadResult::kFailed;
  }
  // The file ended inside a command (or a transaction).
  file.Unmap();
  if (load_truncated_) {
    log.Log(LogLevel::kWarning, "!!! Warning: short read while loading the AOF file %s!!!",
            name.c_str());
    log.Log(LogLevel::kWarning, "!!! Truncating the AOF %s at offset %llu !!!", name.c_str(),
            static_cast<unsigned long long>(valid_up_to));
    if (truncate(path.c_str(), static_cast<off_t>(valid_up_to)) != 0) {
      log.Log(LogLevel::kWarning, "Error truncating the AOF file %s: %s", name.c_str(),
              std::strerror(errno));
    } else {
      log.Log(LogLevel::kWarning, "AOF %s loaded anyway because aof-load-truncated is enabled",
              name.c_str());
      return LoadResult::kTruncated;
    }
  }
  log.Log(LogLevel::kWarning,
          "Unexpected end of file reading the append only file %s. You can: 1) Make a backup "
          "of your AOF file, then use ./redis-check-aof --fix <filename.manifest>. 2) "
          "Alternatively you can set the 'aof-load-truncated' configuration option to yes and "
          "restart the server.",
          name.c_str());
  return LoadResult::kFailed;
}

}  // namespace

// Redis 7.0 moves a 6.x single-file AOF (<dir>/<appendfilename>) into the directory as the
// base, unchanged, and lists it in a new manifest.
static Status UpgradeOldAof(Server& server, const std::string& dirname, const std::string& prefix,
                            AofManifest* m) {
  Logger& log = server.log();
  if (mkdir(dirname.c_str(), 0755) != 0 && errno != EEXIST) {
    log.Log(LogLevel::kWarning, "Can't open or create append-only dir %s: %s", dirname.c_str(),
            std::strerror(errno));
    return Status::Error("");
  }
  AofManifest next;
  next.base = AofFileInfo{prefix, 1, AofFileType::kBase};
  next.base_seq = 1;
  Status s = WriteAofManifest(dirname, prefix, next);
  if (!s.ok()) {
    log.Log(LogLevel::kWarning, "%s", s.message().c_str());
    return s;
  }
  const std::string to = AofPath(dirname, prefix);
  if (rename(prefix.c_str(), to.c_str()) != 0) {
    log.Log(LogLevel::kWarning, "Error trying to rename the old AOF file %s into dir %s: %s",
            prefix.c_str(), dirname.c_str(), std::strerror(errno));
    return Status::Error("");
  }
  (void)FsyncDirectory(dirname);
  (void)FsyncDirectory(".");
  log.Log(LogLevel::kNotice, "Successfully migrated an old-style AOF into the AOF directory %s.",
          dirname.c_str());
  *m = std::move(next);
  return Status::Ok();
}

Status Aof::Load(bool* found) {
  ReadConfig();
  *found = false;
  Logger& log = server_.log();
  bool missing = false;
  Result<AofManifest> r = ReadAofManifest(dirname_, prefix_, &missing);
  if (!r.ok()) {
    log.Log(LogLevel::kWarning, "%s", r.status().message().c_str());
    return Status::Error("");
  }
  manifest_ = std::move(r.value());
  struct stat st;
  const bool old_file = stat(prefix_.c_str(), &st) == 0 && S_ISREG(st.st_mode);
  if (old_file && (missing || manifest_.empty() ||
                   (manifest_.base && manifest_.incrs.empty() && manifest_.base->name == prefix_ &&
                    stat(AofPath(dirname_, prefix_).c_str(), &st) != 0))) {
    Status s = UpgradeOldAof(server_, dirname_, prefix_, &manifest_);
    if (!s.ok()) return s;
  }
  if (manifest_.empty()) return Status::Ok();

  // Every listed file must exist before anything is loaded.
  std::vector<std::pair<std::string, bool>> files;  // name, is base
  if (manifest_.base) files.emplace_back(manifest_.base->name, true);
  for (const AofFileInfo& f : manifest_.incrs) files.emplace_back(f.name, false);
  uint64_t total_bytes = 0;
  for (const auto& [name, is_base] : files) {
    if (stat(AofPath(dirname_, name).c_str(), &st) != 0) {
      log.Log(LogLevel::kWarning, "Unable to obtain the AOF file %s length. stat: %s", name.c_str(),
              std::strerror(errno));
      return Status::Error("");
    }
    total_bytes += static_cast<uint64_t>(st.st_size);
  }

  *found = true;
  Client client(kAofClientId, -1, ClientKind::kAofLoading);
  client.server = &server_;
  client.authenticated = true;
  client.addr = "?:0";
  client.db = &server_.db(0);
  FileLoader loader(server_, client, load_truncated_);
  Status result = Status::Ok();
  // The other clients are served as the files load, and so they are by a script of the AOF
  // that runs past busy-reply-threshold: they are told LOADING (server/loading.cc).
  std::optional<Server::LoadingPeriod> period;
  period.emplace(server_, total_bytes);
  for (size_t i = 0; i < files.size(); ++i) {
    const auto& [name, is_base] = files[i];
    const bool last = i + 1 == files.size();
    const int64_t start_us = server_.NowUs();
    LoadResult lr = loader.Load(dirname_, name);
    if (lr == LoadResult::kOk || lr == LoadResult::kEmpty ||
        (lr == LoadResult::kTruncated && last)) {
      log.Log(LogLevel::kNotice, "DB loaded from %s file %s: %.3f seconds",
              is_base ? "base" : "incr", name.c_str(),
              static_cast<double>(server_.NowUs() - start_us) / 1e6);
    }
    if (lr == LoadResult::kTruncated && !last) {
      log.Log(LogLevel::kWarning, "Fatal error: the truncated file is not the last file");
      lr = LoadResult::kFailed;
    }
    if (lr == LoadResult::kFailed || lr == LoadResult::kOpenError || lr == LoadResult::kNotExist) {
      result = Status::Error("");
      break;
    }
  }
  period.reset();
  // The loading client is gone: its temporary keys go with it (no sink is attached, nobody
  // watches yet).
  server_.owners().ReleaseAll(kAofClientId);
  // So do the keys of the sessions the replay brought back: no session survives a restart.
  server_.EndReplayedSessions();
  return result;
}

Status Aof::ReadManifestOnly() {
  ReadConfig();
  bool missing = false;
  Result<AofManifest> r = ReadAofManifest(dirname_, prefix_, &missing);
  if (!r.ok()) {
    server_.log().Log(LogLevel::kWarning, "%s", r.status().message().c_str());
    return Status::Error("");
  }
  manifest_ = std::move(r.value());
  return Status::Ok();
}

bool Aof::DebugLoad() {
  if (state_ == AofState::kOn) {
    Flush(true);
    if (fd_ >= 0) fdatasync(fd_);
  }
  const bool attached = state_ != AofState::kOff;
  if (attached) server_.propagator().RemoveSink(this);
  persistence_.EmptyData(true);
  bool found = false;
  Status s;
  {
    ExpiryGate::Scope loading = server_.keyspace().expiry.Suspend();  // keys load as written
    s = Load(&found);
  }
  if (attached) server_.propagator().AddSink(this);
  if (s.ok()) server_.log().Log(LogLevel::kNotice, "Append Only File loaded by DEBUG LOADAOF");
  // The next record must say its database again (the replay moved the propagator nowhere, but
  // a SELECT costs nothing and keeps the file self-describing).
  need_select_ = true;
  return s.ok();
}

}  // namespace redistp
