// FenceFile: the durable home of the fencing counter's reservation mark (watch/fence.h).
//
// The file is `tp-fence-file` (default "redistp-fence") in the working directory `dir`, like
// the RDB file, and holds one line: "redistp-fence-mark:<decimal>\n". Every token the server
// ever handed out is at most that number. Writing it is crash-safe: the line goes to
// "<file>.tmp", which is fsync'd and renamed over the file, and then the directory is fsync'd,
// so after a crash the file holds the old mark or the new one, never a torn line. The write
// happens on the event loop, once per start that hands out a token and once per 2^24 tokens.
//
// A write that fails (full disk, read-only directory, EIO) is logged once, with its reason,
// until a write succeeds again; the token that needed it is refused, never handed out.
#pragma once

#include <cstdint>
#include <string>

#include "server/log.h"
#include "util/status.h"
#include "watch/fence.h"

namespace redistp {

class Config;

class FenceFile : public FenceStore {
 public:
  FenceFile(const Config* config, Logger* log) : config_(config), log_(log) {}

  // The mark stored in `path`: 0 when there is no such file. An error when the file exists but
  // cannot be read or is not a mark (the server must not start: its tokens could repeat).
  static Result<uint64_t> Read(const std::string& path);

  // FenceStore: writes `mark` to the file named by tp-fence-file, durably.
  Status Persist(uint64_t mark) override;

 private:
  const Config* config_;
  Logger* log_;
  bool failing_ = false;  // the last write failed (logged once until one succeeds)
};

}  // namespace redistp
