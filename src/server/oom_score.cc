// oom-score-adj: telling the Linux OOM killer which redis-tp process to sacrifice first.
//
// Model. The kernel reads /proc/<pid>/oom_score_adj (-1000..1000; higher dies first). With
// oom-score-adj relative (or yes) the server adds oom-score-adj-values' entry for its class
// (master, replica, background child) to the value it started with; with absolute the entry is
// the value. Switching back to no restores the starting value, and only if it was changed, so
// a server that never used the option never touches the file. Lowering the value below what
// the process started with needs CAP_SYS_RESOURCE: the kernel's refusal is logged and
// CONFIG SET fails, as Redis's does. Background children (RDB saves, AOF rewrites) apply the
// child class right after fork (persistence.cc).
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "server/server.h"

namespace redistp {
namespace {

constexpr const char* kOomFile = "/proc/self/oom_score_adj";

bool ReadOomScore(int* value) {
  FILE* f = std::fopen(kOomFile, "r");
  if (f == nullptr) return false;
  const bool ok = std::fscanf(f, "%d", value) == 1;
  std::fclose(f);
  return ok;
}

}  // namespace

Status Server::ApplyOomScoreAdj(int process_class) {
  if (!oom_score_base_read_) {
    oom_score_base_read_ = true;
    if (!ReadOomScore(&oom_score_base_)) oom_score_base_ = 0;
  }
  if (process_class < 0) process_class = replica_role_.following ? 1 : 0;
  int value;
  if (config_.oom_score_adj == OomScoreAdj::kNo) {
    if (!oom_score_changed_) return Status::Ok();
    value = oom_score_base_;
  } else {
    value = config_.oom_score_adj_values[process_class];
    if (config_.oom_score_adj == OomScoreAdj::kRelative) value += oom_score_base_;
    value = std::max(-1000, std::min(1000, value));
  }
  FILE* f = std::fopen(kOomFile, "w");
  bool ok = f != nullptr && std::fprintf(f, "%d", value) > 0;
  if (f != nullptr && std::fclose(f) != 0) ok = false;
  if (!ok) {
    log_.Log(LogLevel::kWarning, "Unable to write oom_score_adj: %s", std::strerror(errno));
    return Status::Error("Failed to set current oom_score_adj. Check server logs.");
  }
  oom_score_changed_ = config_.oom_score_adj != OomScoreAdj::kNo;
  return Status::Ok();
}

}  // namespace redistp
