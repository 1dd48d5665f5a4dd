#include "persistence/rdb_load.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>

#include "persistence/persistence.h"
#include "scripting/function_engine.h"
#include "types/hash.h"
#include "types/hash_rdb.h"
#include "types/serialize.h"
#include "types/type_ops.h"
#include "util/crc64.h"
#include "util/numbers.h"

namespace redistp {
namespace {

const Status kShortRead =
    Status::Error("Short read or OOM loading DB. Unrecoverable error, aborting now.");

// Corruption (as opposed to a short read) in Redis's words: "Internal error in RDB reading
// offset N, function at rdb.c:LINE -> REASON". Redis's offset is a progress counter that is 0
// for small files; ours is the byte offset of the faulty record, and the function is ours.
Status Corrupt(size_t offset, const std::string& what) {
  return Status::Error("Internal error in RDB reading offset " + std::to_string(offset) +
                       ", function at rdb_load.cc -> " + what);
}

// The text RdbReader gives when a length runs past the end of the image (or past the bound on
// one allocation): Redis's read of those bytes fails the same way, a short read.
constexpr std::string_view kTruncatedPayload = "truncated RDB payload";

// A module's name from its 64-bit type id, as Redis prints it: the top 54 bits are nine
// 6-bit characters of this alphabet (the low 10 bits are the encoding version).
std::string ModuleName(uint64_t id) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string name(9, ' ');
  for (int j = 0; j < 9; ++j) name[j] = kAlphabet[(id >> (64 - 6 * (j + 1))) & 63];
  return name;
}

// The type bytes Redis 7.4 knows as values (8 was never used).
bool IsObjectType(uint8_t type) { return type <= 7 || (type >= 9 && type <= 25); }

// Redis logs the first ten empty keys it skips, no more.
constexpr uint64_t kEmptyKeysLogged = 10;

// atoi's reading of the four version digits after "REDIS" (Redis parses them with atoi, so
// "0011" is 11 and "00x1" is 0, both refused).
int ParseVersion(std::string_view digits) {
  size_t i = 0;
  while (i < digits.size() && (digits[i] == ' ' || (digits[i] >= '\t' && digits[i] <= '\r'))) ++i;
  bool negative = false;
  if (i < digits.size() && (digits[i] == '+' || digits[i] == '-')) negative = digits[i++] == '-';
  int v = 0;
  for (; i < digits.size() && digits[i] >= '0' && digits[i] <= '9'; ++i)
    v = v * 10 + (digits[i] - '0');
  return negative ? -v : v;
}

uint64_t ReadLittle(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

// The function libraries of the image, as a FUNCTION RESTORE payload (entries, RDB version,
// CRC-64), so they are loaded by the same all-or-nothing path.
void AppendTrailer(std::string* payload) {
  payload->push_back(static_cast<char>(kRdbFormatVersion & 0xff));
  payload->push_back(static_cast<char>(kRdbFormatVersion >> 8));
  uint64_t crc = Crc64(0, *payload);
  for (int shift = 0; shift < 64; shift += 8) payload->push_back(static_cast<char>(crc >> shift));
}

class Loader {
 public:
  Loader(Server& server, std::string_view image, const RdbLoadOptions& o, RdbLoadInfo* info)
      : server_(server), image_(image), r_(image), o_(o), info_(info) {}

  Status Run() {
    Status s = Header();
    if (!s.ok()) return s;
    for (;;) {
      const size_t at = r_.position();
      uint8_t type;
      if (!r_.Byte(&type)) return kShortRead;
      switch (type) {
        case kRdbOpEof:
          return Finish();
        case kRdbOpExpireTime: {
          std::string_view raw;
          if (!r_.Raw(4, &raw).ok()) return kShortRead;
          expire_ms_ = static_cast<int64_t>(static_cast<int32_t>(ReadLittle(raw))) * 1000;
          continue;
        }
        case kRdbOpExpireTimeMs: {
          std::string_view raw;
          if (!r_.Raw(8, &raw).ok()) return kShortRead;
          expire_ms_ = static_cast<int64_t>(ReadLittle(raw));
          continue;
        }
        case kRdbOpFreq: {
          uint8_t f;
          if (!r_.Byte(&f)) return kShortRead;
          freq_ = f;
          continue;
        }
        case kRdbOpIdle: {
          uint64_t idle;
          if (!r_.Length(&idle).ok()) return kShortRead;
          idle_ = static_cast<int64_t>(idle & 0x7fffffffffffull);
          continue;
        }
        case kRdbOpSelectDb: {
          uint64_t n;
          if (!r_.Length(&n).ok()) return kShortRead;
          if (n >= static_cast<uint64_t>(server_.db_count())) {
            return Status::Error(
                "FATAL: Data file was created with a Redis server configured to handle more "
                "than " +
                std::to_string(server_.db_count()) + " databases. Exiting\n");
          }
          db_ = static_cast<int>(n);
          continue;
        }
        case kRdbOpResizeDb: {
          uint64_t a, b;
          if (!r_.Length(&a).ok() || !r_.Length(&b).ok()) return kShortRead;
          // The key table gets its final size now. A key takes at least 3 bytes of the file,
          // so a hint beyond that is a lie (a hostile file) and is bounded by it.
          server_.db(db_).Reserve(std::min<uint64_t>(a, r_.remaining() / 3));
          continue;
        }
        case kRdbOpAux:
          s = Aux();
          if (!s.ok()) return s;
          continue;
        case kRdbOpModuleAux: {
          uint64_t id;
          if (!r_.Length(&id).ok()) return kShortRead;
          return Status::Error(
              "The RDB file contains AUX module data I can't load: no matching module '" +
              ModuleName(id) + "'");
        }
        case kRdbOpFunctionPreGa:
          return Corrupt(at, "Pre-release function format not supported.");
        case kRdbOpFunction2: {
          std::string code;
          if (!r_.String(&code).ok()) return kShortRead;
          RdbWriter w(&functions_, false);
          w.Byte(kRdbOpFunction2);
          w.String(code);
          continue;
        }
        default:
          s = Key(type, at);
          if (!s.ok()) return s;
          // The server serves its clients every loading-process-events-interval-bytes and
          // sleeps key-load-delay per key (server/loading.cc).
          server_.LoadingKeyLoaded();
          server_.LoadingProgress(r_.position() - reported_);
          reported_ = r_.position();
          continue;
      }
    }
  }

 private:
  Status Header() {
    std::string_view magic;
    if (!r_.Raw(9, &magic).ok()) return kShortRead;
    if (magic.substr(0, 5) != "REDIS") {
      return Status::Error("Wrong signature trying to load DB from file");
    }
    const int version = ParseVersion(magic.substr(5));
    // Every format up to 7.4's loads, whatever compat-version says (reading a newer file loses
    // nothing; writing one is what compat-version guards).
    if (version < 1 || version > kRdbMaxVersion) {
      return Status::Error("Can't handle RDB format version " + std::to_string(version));
    }
    info_->version = version;
    return Status::Ok();
  }

  Status Aux() {
    std::string name, value;
    if (!r_.String(&name).ok() || !r_.String(&value).ok()) return kShortRead;
    Logger& log = server_.log();
    if (name == "redis-ver") {
      log.Log(LogLevel::kNotice, "Loading RDB produced by version %s", value.c_str());
    } else if (name == "ctime") {
      int64_t t = 0;
      if (ParseInt64(value, &t)) {
        int64_t age = server_.NowMs() / 1000 - t;
        log.Log(LogLevel::kNotice, "RDB age %lld seconds",
                static_cast<long long>(age < 0 ? 0 : age));
      }
    } else if (name == "used-mem") {
      int64_t m = 0;
      if (ParseInt64(value, &m)) {
        log.Log(LogLevel::kNotice, "RDB memory usage when created %.2f Mb",
                static_cast<double>(m) / (1024 * 1024));
        server_.set_loading_rdb_used_mem(static_cast<uint64_t>(m));
      }
    } else if (name == "aof-base") {
      info_->aof_base = value == "1";
    } else if (name == "repl-id") {
      info_->repl_id = value;
    } else if (name == "repl-offset") {
      int64_t off = 0;
      if (ParseInt64(value, &off)) info_->repl_offset = off;
    } else if (name == "repl-stream-db") {
      int64_t db = 0;
      if (ParseInt64(value, &db)) info_->repl_stream_db = static_cast<int>(db);
    } else if (name == "redistp-fence") {
      int64_t f = 0;
      if (ParseInt64(value, &f) && f > 0) info_->fence = static_cast<uint64_t>(f);
    } else if (name == "redistp-session" || name == "redistp-tpkey") {
      // A full sync's ownership (rdb_save.h), for a replica only: a server that follows a
      // master, or starts as one (replicaof in its configuration: its master's stream, from
      // the file's offset on, brings the DELs of whatever was released meanwhile). Loaded
      // anywhere else the keys would have no owner left to release them.
      if (server_.follows_master() || !server_.config().replicaof_host.empty()) {
        return LoadOwnership(name, value);
      }
    }
    // Everything else (redis-bits, aof-preamble, lua, ...) is informational here.
    return Status::Ok();
  }

  // redistp-session "<id>:<grace-ms>:<digest hex>" or redistp-tpkey "<db>:<owner>:<fence>:
  // <holds>:<expire ms>:<key length>:" key value: the master's ids, kept as inherited owners
  // (watch/owners.h). A malformed field is a corrupt image.
  Status LoadOwnership(const std::string& name, const std::string& value) {
    std::string_view rest = value;
    auto next = [&rest](uint64_t* n) {
      size_t colon = rest.find(':');
      if (colon == std::string_view::npos || !ParseUint64(rest.substr(0, colon), n)) return false;
      rest.remove_prefix(colon + 1);
      return true;
    };
    const Status bad = Status::Error("Bad " + name + " field in the RDB image");
    if (name == "redistp-session") {
      uint64_t id, grace;
      if (!next(&id) || !next(&grace)) return bad;
      Status st = server_.ReplaySessionCreate(id, static_cast<int64_t>(grace), rest, true);
      return st.ok() ? st : bad;
    }
    uint64_t db, owner, fence, holds, expire, len;
    if (!next(&db) || !next(&owner) || !next(&fence) || !next(&holds) || !next(&expire) ||
        !next(&len) || db >= static_cast<uint64_t>(server_.db_count()) || len > rest.size() ||
        owner == 0 || holds == 0) {
      return bad;
    }
    const int64_t expire_ms = static_cast<int64_t>(expire);
    server_.owners().RaiseFence(fence);
    if (expire_ms != 0 && expire_ms < server_.NowMs()) {
      ++info_->keys_expired;
      return Status::Ok();
    }
    Database& d = server_.db(static_cast<int>(db));
    std::string_view key = rest.substr(0, len);
    if (Entry* old = d.FindRaw(key); old != nullptr) d.Remove(old, RemoveCause::kOverwritten);
    Entry* e = d.AddLoaded(key, Value::String(rest.substr(len)), expire_ms);
    OwnerIndex& owners = server_.owners();
    owners.Adopt(e, &d, OwnerIndex::Inherited(owner), fence);
    owners.SetExact(e, OwnerIndex::Inherited(owner), fence, holds);
    ++info_->keys_loaded;
    return Status::Ok();
  }

  // One key of type byte `type` (already read, at offset `at`) and its value.
  Status Key(uint8_t type, size_t at) {
    if (!IsObjectType(type))
      return Corrupt(at, "Unknown RDB encoding type " + std::to_string(type));
    std::string key;
    if (!r_.String(&key).ok()) return kShortRead;
    if (type == kRdbTypeModulePreGa || type == kRdbTypeModule2) {
      uint64_t id;
      if (!r_.Length(&id).ok()) return kShortRead;
      return Corrupt(at,
                     "The RDB file contains module data I can't load: no matching module type '" +
                         ModuleName(id) + "'");
    }
    server_.db(db_).PrefetchKey(key);  // the bucket arrives while the value is decoded
    Result<Value> v = DeserializeValue(type, r_, server_.keyspace().limits);
    // A hash's fields whose expire time has passed are dropped on a master, as keys are (and as
    // Redis 7.4 drops them); a hash left with none is an empty key. A replica and an AOF
    // preamble keep them for the stream that follows to delete.
    if (v.ok() && !o_.aof_preamble && !o_.keep_expired &&
        DropExpiredFields(v.value(), server_.NowMs()) > 0 && HashOf(v.value()).size() == 0) {
      v = Status::Error(std::string(kRdbEmptyKey));
    }
    const int64_t expire_ms = expire_ms_;
    const int64_t idle = idle_;
    const int freq = freq_;
    expire_ms_ = 0;
    idle_ = -1;
    freq_ = -1;
    if (!v.ok()) {
      if (v.status().message() == kRdbEmptyKey) {
        if (info_->keys_empty < kEmptyKeysLogged) {
          server_.log().Log(LogLevel::kWarning, "rdbLoadObject skipping empty key: %s",
                            key.c_str());
        }
        ++info_->keys_empty;
        return Status::Ok();
      }
      if (v.status().message() == kTruncatedPayload) return kShortRead;
      return Corrupt(at, "bad value of key '" + key + "' (type " + std::to_string(type) +
                             "): " + v.status().message());
    }
    if (expire_ms != 0 && !o_.aof_preamble && !o_.keep_expired && expire_ms < server_.NowMs()) {
      ++info_->keys_expired;
      return Status::Ok();
    }
    Database& db = server_.db(db_);
    if (Entry* old = db.FindRaw(key); old != nullptr) {
      if (!o_.allow_duplicates) {
        return Status::Error("RDB has duplicated key '" + key + "' in DB " + std::to_string(db_));
      }
      db.Remove(old, RemoveCause::kOverwritten);
    }
    Entry* e = db.AddLoaded(key, std::move(v.value()), expire_ms);
    db.SetSavedAccess(e, idle, freq);
    ++info_->keys_loaded;
    return Status::Ok();
  }

  Status Finish() {
    size_t body = r_.position();
    if (info_->version >= 5) {
      std::string_view trailer;
      if (!r_.Raw(8, &trailer).ok()) return kShortRead;
      uint64_t stored = ReadLittle(trailer);
      if (server_.config().rdbchecksum && !Persistence::Of(server_).skip_checksum_validation()) {
        uint64_t computed = Crc64(0, image_.substr(0, body));
        if (stored == 0) {
          server_.log().Log(LogLevel::kWarning,
                            "RDB file was saved with checksum disabled: no check performed.");
        } else if (computed != stored) {
          // Redis names the CRC it computed "expected" and the file's trailer "got".
          char buf[128];
          std::snprintf(buf, sizeof(buf),
                        "Wrong RDB checksum expected: (%" PRIx64 ") but got (%" PRIx64
                        "). Aborting now.",
                        computed, stored);
          // Redis logs the mismatch, then reports the file corrupt in its usual words.
          server_.log().Log(LogLevel::kWarning, "%s", buf);
          return Corrupt(0, "RDB CRC error");
        }
      }
    }
    info_->consumed = r_.position();
    if (!functions_.empty()) {
      AppendTrailer(&functions_);
      Status s = FunctionEngine::Of(server_).Restore(
          functions_,
          o_.allow_duplicates ? FunctionRestorePolicy::kReplace : FunctionRestorePolicy::kAppend);
      if (!s.ok()) return Status::Error("Failed loading library: " + s.message());
    }
    if (info_->fence > 0) server_.owners().RaiseFence(info_->fence);
    return Status::Ok();
  }

  Server& server_;
  std::string_view image_;
  RdbReader r_;
  const RdbLoadOptions& o_;
  RdbLoadInfo* info_;
  size_t reported_ = 0;  // bytes already reported to LoadingProgress
  int db_ = 0;
  int64_t expire_ms_ = 0;
  int64_t idle_ = -1;
  int freq_ = -1;
  std::string functions_;
};

}  // namespace

Status LoadRdb(Server& server, std::string_view image, const RdbLoadOptions& options,
               RdbLoadInfo* info) {
  if (server.follows_master()) {
    // A replica's full sync replaces its master's sessions with those of the image: the
    // inherited ones it held (detached: a replica's sessions always are) are forgotten first.
    std::vector<uint64_t> stale;
    for (const auto& [id, s] : server.sessions().all()) {
      if (OwnerIndex::IsInherited(id) && s.client == 0) stale.push_back(id);
    }
    for (uint64_t id : stale) server.sessions().Erase(id);
  }
  Loader loader(server, image, options, info);
  return loader.Run();
}

Status LoadRdbFile(Server& server, const std::string& path, const RdbLoadOptions& options,
                   RdbLoadInfo* info, bool* missing) {
  *missing = false;
  int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      *missing = true;
      return Status::Ok();
    }
    return Status::Error(std::string("Fatal error loading the DB: ") + std::strerror(errno) +
                         ". Exiting.");
  }
  struct stat st;
  if (fstat(fd, &st) != 0) {
    int e = errno;
    close(fd);
    return Status::Error(std::string("Fatal error loading the DB: ") + std::strerror(e) +
                         ". Exiting.");
  }
  size_t size = static_cast<size_t>(st.st_size);
  if (size == 0) {
    close(fd);
    return kShortRead;
  }
  void* map = mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd, 0);
  close(fd);
  if (map == MAP_FAILED) {
    return Status::Error(std::string("Fatal error loading the DB: ") + std::strerror(errno) +
                         ". Exiting.");
  }
  madvise(map, size, MADV_SEQUENTIAL);
  Status s = LoadRdb(server, std::string_view(static_cast<const char*>(map), size), options, info);
  munmap(map, size);
  return s;
}

void LogRdbLoaded(Logger& log, const RdbLoadInfo& info) {
  if (info.keys_empty > 0) {
    log.Log(LogLevel::kNotice,
            "Done loading RDB, keys loaded: %llu, keys expired: %llu, empty keys skipped: %llu.",
            static_cast<unsigned long long>(info.keys_loaded),
            static_cast<unsigned long long>(info.keys_expired),
            static_cast<unsigned long long>(info.keys_empty));
  } else {
    log.Log(LogLevel::kNotice, "Done loading RDB, keys loaded: %llu, keys expired: %llu.",
            static_cast<unsigned long long>(info.keys_loaded),
            static_cast<unsigned long long>(info.keys_expired));
  }
}

}  // namespace redistp
