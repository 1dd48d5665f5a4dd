// RDB writing: the server's whole dataset as one RDB image, in the format version
// compat-version asks for: Redis 7.0's 10 by default, 7.2's 11 or 7.4's 12 (server/version.h).
// A version picks the encodings written (types/type_ops.h: from 11 on small sets are
// RDB_TYPE_SET_LISTPACK and streams RDB_TYPE_STREAM_LISTPACKS_3); a file of version 10 is one
// Debian's Redis 7.0 loads, one of 11 or 12 is not.
//
// Layout, in Redis 7.0's order (Debian's redis-check-rdb and Redis itself read it back):
//   "REDIS0010" (or 0011, 0012)
//   aux fields: redis-ver (the compat-version), redis-bits, ctime, used-mem, [repl-stream-db,
//   repl-id, repl-offset],
//     aof-base, and ours, redistp-fence (the
//     fencing counter; Redis ignores aux fields it does not know)
//   function libraries: one FUNCTION2 opcode + code string per library
//   per non-empty database: SELECTDB n, RESIZEDB size expires, then per key:
//     [EXPIRETIME_MS t] [IDLE s | FREQ f] type-byte key value
//   EOF, then the CRC-64 of every byte before it, 8 bytes little-endian (0 with rdbchecksum no)
// IDLE is written under an LRU maxmemory-policy and FREQ under an LFU one, as Redis does.
// Temporary keys are never written in the databases: a restart must not bring them back
// (their owners are gone). A full sync's image (RdbSaveOptions::replication) carries them after
// the databases, with their owners and the sessions, as aux fields only a redis-tp replica reads:
//   redistp-session  "<id>:<grace-ms>:<digest hex>"
//   redistp-tpkey    "<db>:<owner>:<fence>:<holds>:<expire ms or 0>:<key length>:" key value
//   Logically expired keys not yet reclaimed are written with their expire time; loading
// drops them.
//
// The writer streams: keys are encoded into a small buffer that is written out (and folded
// into the CRC) whenever it passes 64 KB, so saving needs no memory proportional to the data.
// It runs in the server process (SAVE, SHUTDOWN, DEBUG RELOAD) or in a forked child (BGSAVE,
// the AOF rewrite's preamble); it only reads the keyspace.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "server/server.h"
#include "server/version.h"
#include "types/serialize.h"
#include "util/status.h"

namespace redistp {

struct RdbSaveOptions {
  bool compress = true;   // rdbcompression: LZF for long strings
  bool checksum = true;   // rdbchecksum: the CRC-64 trailer (else 8 zero bytes)
  bool aof_base = false;  // the aof-base aux field: 1 when this is an AOF's RDB preamble
  // The RDB format version written and the redis-ver aux field (compat-version's; an image only
  // this process reads back may ask for kRdbMaxVersion, which loses nothing).
  int rdb_version = kRdbFormatVersion;
  std::string redis_ver = kRedisVersion;
  // A file that may feed a replica's full sync (Persistence::FileSaveOptions sets it when this
  // server has replication history): the temporary keys and the sessions go too, as our aux fields
  // redistp-session and redistp-tpkey after the databases (rdb_load.h), which a Redis replica
  // ignores, so the image it loads has no temporary key at all (as its stream has none).
  bool replication = false;
  // A replica's snapshot filter (REPLCONF rdb-filter-only): leave out the databases (keys,
  // temporary keys and sessions) and/or the function libraries. The aux fields stay.
  bool exclude_data = false;
  bool exclude_functions = false;
  // rdb-key-save-delay: microseconds slept after each key (tests slow a child with it).
  int64_t key_delay_us = 0;
  // Called every 1024 keys and at the end with the number of keys written so far (a child
  // reports its progress with it).
  std::function<void(uint64_t keys)> progress;
  // The replication aux fields (repl-stream-db, repl-id, repl-offset), written when `repl_id`
  // is set: the history this dataset is at, so a replica restarted from the file continues it
  // with PSYNC (Persistence fills them from its ReplInfoProvider).
  std::string repl_id;
  int64_t repl_offset = 0;
  int repl_stream_db = 0;

  // The options the configuration asks for (rdbcompression, rdbchecksum, rdb-key-save-delay,
  // compat-version).
  static RdbSaveOptions FromConfig(const Config& config);
};

// Writes the RDB image to `fd` (which stays open). Returns the number of keys written, or the
// write error (strerror's text; logging it is the caller's business).
Result<uint64_t> WriteRdb(Server& server, int fd, const RdbSaveOptions& options);

// The image as a string (DEBUG RELOAD's checks and tests).
std::string RdbImage(Server& server, const RdbSaveOptions& options);

// SAVE's file discipline: writes to "temp-<pid>.rdb" next to `path`, fsyncs it, renames it over
// `path` and fsyncs the directory, so `path` is always either the old complete file or the new
// one. Logs as Redis does on failure. Returns the number of keys written.
Result<uint64_t> SaveRdbFile(Server& server, const std::string& path,
                             const RdbSaveOptions& options);

}  // namespace redistp
