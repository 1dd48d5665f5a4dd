#include "persistence/rdb_save.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <string>
#include <utility>
#include <vector>

#include "scripting/function_engine.h"
#include "server/version.h"
#include "types/hash_rdb.h"
#include "types/serialize.h"
#include "types/type_ops.h"
#include "util/crc64.h"
#include "util/file_io.h"
#include "util/numbers.h"

namespace redistp {
namespace {

constexpr size_t kFlushBytes = 64 * 1024;
constexpr uint64_t kProgressEvery = 1024;

// Buffers the image, writing it to a descriptor (or keeping it, for RdbImage) and folding every
// byte into the CRC-64.
class ImageSink {
 public:
  ImageSink(int fd, bool compress, int rdb_version) : fd_(fd), w_(&buf_, compress, rdb_version) {}
  RdbWriter& w() { return w_; }
  // Writes the buffer out when it is large (always when `force`).
  Status Drain(bool force) {
    if (buf_.empty() || (!force && buf_.size() < kFlushBytes)) return Status::Ok();
    crc_ = Crc64(crc_, buf_);
    if (fd_ >= 0) {
      size_t off = 0;
      while (off < buf_.size()) {
        ssize_t n = write(fd_, buf_.data() + off, buf_.size() - off);
        if (n < 0) {
          if (errno == EINTR) continue;
          return Status::Error(std::strerror(errno));
        }
        off += static_cast<size_t>(n);
      }
      buf_.clear();
    } else {
      kept_ += buf_;
      buf_.clear();
    }
    return Status::Ok();
  }
  uint64_t crc() const { return crc_; }
  std::string& kept() { return kept_; }

 private:
  int fd_;
  std::string buf_;
  RdbWriter w_;
  uint64_t crc_ = 0;
  std::string kept_;
};

void AuxString(RdbWriter& w, std::string_view name, std::string_view value) {
  w.Byte(kRdbOpAux);
  w.String(name);
  w.String(value);
}

void AuxInt(RdbWriter& w, std::string_view name, int64_t value) {
  AuxString(w, name, Int64ToString(value));
}

void Little64(RdbWriter& w, uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) w.Byte(static_cast<uint8_t>(v >> shift));
}

// A full sync's temporary keys and sessions (rdb_save.h): sessions first, so the keys that
// name them find them. Written after the databases, when the keys' entries are known.
void WriteOwnership(Server& server, RdbWriter& w,
                    const std::vector<std::pair<int, const Entry*>>& temporary) {
  for (const auto& [id, s] : server.sessions().all()) {
    AuxString(w, "redistp-session",
              std::to_string(id) + ":" + std::to_string(s.grace_ms) + ":" +
                  SessionRegistry::DigestHex(s.digest));
  }
  const OwnerIndex& owners = server.owners();
  for (const auto& [db, e] : temporary) {
    std::string v = std::to_string(db) + ":" + std::to_string(owners.OwnerOf(e)) + ":" +
                    std::to_string(owners.FenceOf(e)) + ":" + std::to_string(owners.HoldsOf(e)) +
                    ":" + std::to_string(server.db(db).ExpireOf(e)) + ":" +
                    std::to_string(e->key().size()) + ":";
    v.append(e->key());
    v.append(e->value.ToString());
    AuxString(w, "redistp-tpkey", v);
  }
}

// The one line a save below RDB 12 logs when hashes lost their field expire times.
void LogFieldTtlsLeftOut(Logger& log, const RdbSaveOptions& o, uint64_t hashes,
                         const std::string& first) {
  log.Log(LogLevel::kWarning,
          "WARNING: the RDB format of compat-version %s has no field expire times: %llu "
          "hash(es) saved without them (first: '%s'); set compat-version 7.4.0 to keep them",
          o.redis_ver.c_str(), static_cast<unsigned long long>(hashes), first.c_str());
}

Result<uint64_t> WriteImage(Server& server, ImageSink& sink, const RdbSaveOptions& o) {
  RdbWriter& w = sink.w();
  std::string* out = w.out();
  char magic[16];
  std::snprintf(magic, sizeof(magic), "REDIS%04d", o.rdb_version);
  out->append(magic);
  AuxString(w, "redis-ver", o.redis_ver);
  AuxInt(w, "redis-bits", 64);
  AuxInt(w, "ctime", static_cast<int64_t>(server.NowMs() / 1000));
  AuxInt(w, "used-mem", static_cast<int64_t>(server.UsedMemory()));
  if (!o.repl_id.empty()) {
    AuxInt(w, "repl-stream-db", o.repl_stream_db);
    AuxString(w, "repl-id", o.repl_id);
    AuxInt(w, "repl-offset", o.repl_offset);
  }
  AuxInt(w, "aof-base", o.aof_base ? 1 : 0);
  AuxString(w, "redistp-fence", Int64ToString(static_cast<int64_t>(server.owners().last_fence())));
  // Function libraries (only if the engine exists: creating it would build a Lua state).
  const FunctionEngine* functions =
      o.exclude_functions ? nullptr : server.subsystem<FunctionEngine>();
  if (functions != nullptr) {
    for (const auto& [name, lib] : functions->libraries().libraries()) {
      w.Byte(kRdbOpFunction2);
      w.String(lib->code);
    }
  }
  const MaxmemoryPolicy policy = server.config().maxmemory_policy_kind;
  const bool save_lru =
      policy == MaxmemoryPolicy::kAllkeysLru || policy == MaxmemoryPolicy::kVolatileLru;
  const bool save_lfu =
      policy == MaxmemoryPolicy::kAllkeysLfu || policy == MaxmemoryPolicy::kVolatileLfu;
  uint64_t keys = 0;
  // Hashes whose field expire times this format cannot hold (docs/compat-version.md).
  uint64_t ttls_left_out = 0;
  std::string first_left_out;
  Status failed = Status::Ok();
  std::vector<std::pair<int, const Entry*>> temporary;  // a full sync's (o.replication)
  const int dbs = o.exclude_data ? 0 : server.db_count();
  for (int i = 0; i < dbs && failed.ok(); ++i) {
    Database& db = server.db(i);
    if (db.size() == 0) continue;
    w.Byte(kRdbOpSelectDb);
    w.Length(static_cast<uint64_t>(i));
    w.Byte(kRdbOpResizeDb);
    w.Length(db.size());
    w.Length(db.volatile_size());
    db.dict().ForEach([&](Entry* e) {
      if (!failed.ok()) return;
      if (e->has_flag(Entry::kFlagTemporary)) {
        if (o.replication && e->value.is_string()) temporary.emplace_back(i, e);
        return;
      }
      if (e->has_expire()) {
        w.Byte(kRdbOpExpireTimeMs);
        Little64(w, static_cast<uint64_t>(db.ExpireOf(e)));
      }
      if (save_lru) {
        w.Byte(kRdbOpIdle);
        w.Length(db.IdleSeconds(e));
      } else if (save_lfu) {
        w.Byte(kRdbOpFreq);
        w.Byte(static_cast<uint8_t>(db.LfuCounter(e)));
      }
      w.Byte(RdbTypeOf(e->value, w.version()));
      w.String(e->key());
      SerializePayload(e->value, w);
      if (w.version() < kRdbVersion74 && CarriesFieldExpires(e->value)) {
        if (ttls_left_out++ == 0) first_left_out = e->key();
      }
      ++keys;
      if (o.key_delay_us > 0) usleep(static_cast<useconds_t>(o.key_delay_us));
      if (keys % kProgressEvery == 0 && o.progress) o.progress(keys);
      failed = sink.Drain(false);
    });
  }
  if (!failed.ok()) return failed;
  if (ttls_left_out > 0) LogFieldTtlsLeftOut(server.log(), o, ttls_left_out, first_left_out);
  if (o.replication && !o.exclude_data) WriteOwnership(server, w, temporary);
  w.Byte(kRdbOpEof);
  Status s = sink.Drain(true);
  if (!s.ok()) return s;
  Little64(w, o.checksum ? sink.crc() : 0);
  // The trailer is not part of what the CRC covers (Drain folds it in after the fact, which
  // no longer matters).
  s = sink.Drain(true);
  if (!s.ok()) return s;
  if (o.progress) o.progress(keys);
  return keys;
}

}  // namespace

RdbSaveOptions RdbSaveOptions::FromConfig(const Config& config) {
  RdbSaveOptions o;
  o.compress = config.rdbcompression;
  o.checksum = config.rdbchecksum;
  o.rdb_version = config.rdb_version;
  o.redis_ver = config.compat_version;
  std::string delay;
  if (config.GetValue("rdb-key-save-delay", &delay)) {
    int64_t v = 0;
    if (ParseInt64(delay, &v) && v > 0) o.key_delay_us = v;
  }
  return o;
}

Result<uint64_t> WriteRdb(Server& server, int fd, const RdbSaveOptions& options) {
  ImageSink sink(fd, options.compress, options.rdb_version);
  return WriteImage(server, sink, options);
}

std::string RdbImage(Server& server, const RdbSaveOptions& options) {
  ImageSink sink(-1, options.compress, options.rdb_version);
  (void)WriteImage(server, sink, options);
  return std::move(sink.kept());
}

Result<uint64_t> SaveRdbFile(Server& server, const std::string& path,
                             const RdbSaveOptions& options) {
  Logger& log = server.log();
  std::string dir = ".";
  std::string::size_type slash = path.rfind('/');
  if (slash != std::string::npos) dir = path.substr(0, slash == 0 ? 1 : slash);
  std::string tmp = (slash == std::string::npos ? std::string() : path.substr(0, slash + 1)) +
                    "temp-" + std::to_string(getpid()) + ".rdb";
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    int e = errno;
    char cwd[4096];
    const char* where = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "unknown";
    log.Log(LogLevel::kWarning,
            "Failed opening the temp RDB file %s (in server root dir %s) for saving: %s",
            tmp.c_str(), where, std::strerror(e));
    return Status::Error(std::strerror(e));
  }
  // Each failure is logged with the step that failed, in the names of Redis's steps (its image
  // writer, then fsync and fclose of the file, then fsync of the directory), which operators'
  // alerting matches.
  Result<uint64_t> keys = WriteRdb(server, fd, options);
  const char* op = nullptr;
  std::string why;
  if (!keys.ok()) {
    op = "rdbSaveRio";
    why = keys.status().message();
  } else if (fsync(fd) != 0) {
    op = "fsync";
    why = std::strerror(errno);
  }
  if (close(fd) != 0 && op == nullptr) {
    op = "fclose";
    why = std::strerror(errno);
  }
  if (op != nullptr) {
    log.Log(LogLevel::kWarning, "Write error saving DB on disk(%s): %s", op, why.c_str());
    unlink(tmp.c_str());
    return Status::Error(why);
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    int e = errno;
    char cwd[4096];
    const char* where = getcwd(cwd, sizeof(cwd)) != nullptr ? cwd : "unknown";
    log.Log(LogLevel::kWarning,
            "Error moving temp DB file %s on the final destination %s (in server root dir %s): "
            "%s",
            tmp.c_str(), path.c_str(), where, std::strerror(e));
    unlink(tmp.c_str());
    return Status::Error(std::strerror(e));
  }
  // The rename is durable only once the directory is: a failure here fails the save (the new
  // file is in place, but a crash could still bring the old one back), as in Redis.
  bool no_dir = false;
  if (const int e = FsyncDirectory(dir, &no_dir); e != 0 && !no_dir) {
    log.Log(LogLevel::kWarning, "Write error saving DB on disk(fsyncFileDir): %s",
            std::strerror(e));
    return Status::Error(std::strerror(e));
  }
  return keys;
}

}  // namespace redistp
