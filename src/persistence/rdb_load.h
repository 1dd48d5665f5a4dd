// RDB loading: an RDB image (Redis 1 to 7.0's format versions 1..10, or ours) into the
// server's databases and function libraries.
//
// The reader walks the image opcode by opcode (see rdb_save.h for the layout), decoding each
// value with the types' RDB readers (types/type_ops.h: every encoding Redis 7.0 loads, old
// ziplist/zipmap forms included), which check every length against the bytes left, so a
// truncated or corrupt file is an error, never a crash. The whole image is read before the
// CRC-64 trailer is checked (Redis checks it at the end too; keys loaded before a bad trailer
// stay, and the caller decides: startup exits, DEBUG RELOAD reports the error).
//
// Keys are added with Database::AddLoaded: loading emits no key event, counts no change and
// notifies nobody. A key whose expire time has passed is skipped (counted as expired), except
// in an AOF's preamble, whose tail may still refer to it, and on a replica (Redis's rules). An
// aggregate with no element is skipped, as Redis skips it. Function libraries are loaded when the
// image has been read, all or none. Our aux field redistp-fence raises the fencing counter.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/server.h"
#include "util/status.h"

namespace redistp {

struct RdbLoadOptions {
  // DEBUG RELOAD NOFLUSH MERGE: a key or function library that already exists is replaced
  // (else it is an error, as in Redis).
  bool allow_duplicates = false;
  // The image is an AOF base's preamble: expired keys are kept, bytes may follow the trailer.
  bool aof_preamble = false;
  // Expired keys are kept: a replica loads what its master sent (or what it saved as a
  // replica) and lets the master's DELs remove them, as Redis's replicas do.
  bool keep_expired = false;
};

struct RdbLoadInfo {
  int version = 0;
  uint64_t keys_loaded = 0;
  uint64_t keys_expired = 0;  // skipped because their expire time had passed
  uint64_t keys_empty = 0;    // skipped because they held no element
  bool aof_base = false;      // the aof-base aux field was 1
  uint64_t fence = 0;         // our redistp-fence aux field (0 when absent)
  // The replication aux fields a master with a backlog (or a replica) writes: the id and
  // offset of its stream and the database the stream last selected, so a restarted replica
  // can continue with PSYNC. Empty / -1 when absent.
  std::string repl_id;
  int64_t repl_offset = -1;
  int repl_stream_db = -1;
  size_t consumed = 0;  // bytes of the image, trailer included (an AOF's tail follows)
};

// Loads an image held in memory. Errors carry the text Redis logs for the same fault
// ("Wrong signature trying to load DB from file", "Can't handle RDB format version N",
// "Wrong RDB checksum expected: (x) got (y). Aborting now.", "Short read or OOM loading DB.
// Unrecoverable error, aborting now.", ...); the caller logs them.
Status LoadRdb(Server& server, std::string_view image, const RdbLoadOptions& options,
               RdbLoadInfo* info);

// Logs the summary line of a load as Redis does ("Done loading RDB, keys loaded: N, keys
// expired: N." and ", empty keys skipped: N" when some were).
void LogRdbLoaded(Logger& log, const RdbLoadInfo& info);

// Loads the file at `path` (mapped, not copied). A missing file is reported with
// `*missing = true` and an Ok status: the server starts empty, as Redis does.
Status LoadRdbFile(Server& server, const std::string& path, const RdbLoadOptions& options,
                   RdbLoadInfo* info, bool* missing);

}  // namespace redistp
