// The AOF manifest: which files make up the append-only file, as Redis 7.0 lays them out.
//
// Model. With appendonly yes the data lives in the directory `appenddirname` (inside `dir`):
//   <appendfilename>.<seq>.base.rdb|.base.aof   one base: a snapshot (RDB preamble or commands)
//   <appendfilename>.<seq>.incr.aof             incr files: the commands written after it
//   <appendfilename>.manifest                   the list, one line per file
// A manifest line is "file <name> seq <n> type <b|h|i>" (words split like redis.conf lines, so a
// name with spaces is quoted); '#' lines are comments. Loading reads the base, then every incr
// file in sequence order. `h` marks history: files a rewrite replaced, kept in the manifest
// only until they are deleted (aof-disable-auto-gc no deletes them at once).
//
// Invariants: incr sequence numbers rise strictly down the file; at most one base; the
// manifest is replaced only as a whole (temporary file, fsync, rename, fsync of the
// directory), so after a crash it is either the old list or the new one.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/status.h"

namespace redistp {

enum class AofFileType : char { kBase = 'b', kHistory = 'h', kIncr = 'i' };

struct AofFileInfo {
  std::string name;
  int64_t seq = 0;
  AofFileType type = AofFileType::kIncr;
};

struct AofManifest {
  std::optional<AofFileInfo> base;
  std::vector<AofFileInfo> incrs;    // in sequence order
  std::vector<AofFileInfo> history;  // to delete
  int64_t base_seq = 0;              // sequence of the current (or last) base
  int64_t incr_seq = 0;              // sequence of the last incr file

  bool empty() const { return !base.has_value() && incrs.empty(); }
  // The manifest text: base first, then history, then incr files, as Redis writes it.
  std::string Encode() const;
  // Parses a manifest under Redis 7.0's rules. Errors are the lines Redis logs before it
  // exits: "Found an empty AOF manifest", "Invalid AOF manifest file format", "The AOF
  // manifest file contains too long line", "File can't be a path, just a filename", "Found
  // duplicate base file information", "Found a non-monotonic sequence number", "Unknown AOF
  // file type".
  static Result<AofManifest> Parse(std::string_view text);
};

// File names, all relative to the AOF directory.
std::string AofManifestName(std::string_view prefix);
std::string AofBaseName(std::string_view prefix, int64_t seq, bool rdb_preamble);
std::string AofIncrName(std::string_view prefix, int64_t seq);
// "<dir>/<name>".
std::string AofPath(std::string_view dir, std::string_view name);

// Reads "<dir>/<manifest name>". `*missing` is set (and Ok returned) when the directory or the
// file does not exist; other errors are Parse's or the read's.
Result<AofManifest> ReadAofManifest(const std::string& dir, std::string_view prefix, bool* missing);
// Replaces the manifest atomically (temp-<name>, fsync, rename, fsync of the directory). A
// failure is returned as the log line Redis writes for it.
Status WriteAofManifest(const std::string& dir, std::string_view prefix, const AofManifest& m);

}  // namespace redistp
