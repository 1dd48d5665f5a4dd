// CLUSTER NODES / nodes.conf text and the locked config file (see nodes_conf.h for the format
// and the reading rules). Parsing is two passes: the lines are split first, then nodes are
// created in line order before any master or migration reference is resolved, so the output
// order of a loaded state is the file's order even when a replica's line precedes its master's.
#include "cluster/nodes_conf.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <string>

#include "util/file_io.h"
#include "util/numbers.h"

namespace redistp {
namespace {

struct FlagName {
  uint16_t flag;
  const char* name;
};

// CLUSTER NODES prints the flags in this order.
constexpr FlagName kFlagNames[] = {
    {kNodeMyself, "myself"}, {kNodeMaster, "master"},
    {kNodeSlave, "slave"},   {kNodePfail, "fail?"},
    {kNodeFail, "fail"},     {kNodeHandshake, "handshake"},
    {kNodeNoAddr, "noaddr"}, {kNodeNoFailover, "nofailover"},
};

void AppendSlotRun(int from, int to, std::string* out) {
  out->push_back(' ');
  out->append(std::to_string(from));
  if (to != from) {
    out->push_back('-');
    out->append(std::to_string(to));
  }
}

// C's strtoll on the leading part of `s` (optional sign, then digits; 0 when none), saturating
// instead of overflowing.
int64_t LeadingInt(std::string_view s) {
  size_t i = 0;
  while (i < s.size() && std::isspace(static_cast<unsigned char>(s[i]))) ++i;
  bool negative = false;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) negative = s[i++] == '-';
  uint64_t v = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    v = v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;
  }
  if (v > static_cast<uint64_t>(INT64_MAX)) return negative ? INT64_MIN : INT64_MAX;
  return negative ? -static_cast<int64_t>(v) : static_cast<int64_t>(v);
}

// strtoull on the leading digits (a sign-less epoch).
uint64_t LeadingUnsigned(std::string_view s) {
  uint64_t v = 0;
  for (size_t i = 0; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i) {
    uint64_t digit = static_cast<uint64_t>(s[i] - '0');
    v = v > (UINT64_MAX - digit) / 10 ? UINT64_MAX : v * 10 + digit;
  }
  return v;
}

std::vector<std::string_view> SplitFields(std::string_view line) {
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) fields.push_back(line.substr(start, i - start));
  }
  return fields;
}

// The node named `id`, created bare (no flags) if unknown, as Redis does for a reference.
ClusterNode* LookupOrCreate(ClusterState* state, std::string_view id) {
  ClusterNode* node = state->Lookup(id);
  return node != nullptr ? node : state->CreateNode(id, 0);
}

bool ValidSlot(int64_t slot) { return slot >= 0 && slot < kClusterSlots; }

std::string Errno(const std::string& what, int err) { return what + ": " + std::strerror(err); }

}  // namespace

void AppendNodeLine(const ClusterState& state, const ClusterNode& node, std::string* out) {
  out->append(node.id);
  out->push_back(' ');
  out->append(node.ip);
  out->push_back(':');
  out->append(std::to_string(node.port));
  out->push_back('@');
  out->append(std::to_string(node.cport));
  if (!node.hostname.empty()) {
    out->push_back(',');
    out->append(node.hostname);
  }
  out->push_back(' ');
  bool any = false;
  for (const FlagName& f : kFlagNames) {
    if (!node.Has(f.flag)) continue;
    if (any) out->push_back(',');
    out->append(f.name);
    any = true;
  }
  if (!any) out->append("noflags");
  out->push_back(' ');
  out->append(node.master != nullptr ? node.master->id : "-");
  out->push_back(' ');
  out->append(std::to_string(node.ping_sent));
  out->push_back(' ');
  out->append(std::to_string(node.pong_recv));
  out->push_back(' ');
  out->append(std::to_string(node.ShownEpoch()));
  out->append(node.link_connected || node.IsMyself() ? " connected" : " disconnected");
  int run_start = -1;
  for (int slot = 0; slot <= kClusterSlots && node.num_slots > 0; ++slot) {
    bool set = slot < kClusterSlots && node.slots.test(static_cast<size_t>(slot));
    if (set && run_start < 0) run_start = slot;
    if (!set && run_start >= 0) {
      AppendSlotRun(run_start, slot - 1, out);
      run_start = -1;
    }
  }
  if (node.IsMyself()) {
    // One entry per slot, in slot order; a slot both migrating and importing shows migrating.
    auto mig = state.migrating().begin();
    auto imp = state.importing().begin();
    while (mig != state.migrating().end() || imp != state.importing().end()) {
      bool take_mig = imp == state.importing().end() ||
                      (mig != state.migrating().end() && mig->first <= imp->first);
      if (take_mig) {
        if (imp != state.importing().end() && imp->first == mig->first) ++imp;
        out->append(" [" + std::to_string(mig->first) + "->-" + mig->second->id + "]");
        ++mig;
      } else {
        out->append(" [" + std::to_string(imp->first) + "-<-" + imp->second->id + "]");
        ++imp;
      }
    }
  }
  out->push_back('\n');
}

std::string FormatClusterNodes(const ClusterState& state) {
  std::string out;
  for (const ClusterNode* node : state.nodes()) AppendNodeLine(state, *node, &out);
  return out;
}

std::string FormatNodesConf(const ClusterState& state) {
  std::string out;
  for (const ClusterNode* node : state.nodes()) {
    if (!node->Has(kNodeHandshake)) AppendNodeLine(state, *node, &out);
  }
  out.append("vars currentEpoch " + std::to_string(state.current_epoch) + " lastVoteEpoch " +
             std::to_string(state.last_vote_epoch) + "\n");
  return out;
}

Status ParseNodesConf(std::string_view content, ClusterState* state,
                      std::vector<std::string>* warnings) {
  // Pass 1: split into lines of fields; handle vars; create the defined nodes in line order.
  struct NodeLine {
    std::string_view text;
    std::vector<std::string_view> fields;
  };
  std::vector<NodeLine> lines;
  size_t pos = 0;
  while (pos < content.size()) {
    size_t end = content.find('\n', pos);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    std::vector<std::string_view> fields = SplitFields(line);
    auto corrupt = [&] { return Status::Error(std::string(line)); };
    if (fields.empty()) return corrupt();
    if (EqualsIgnoreCase(fields[0], "vars")) {
      if (fields.size() % 2 == 0) return corrupt();  // a variable without a value
      for (size_t j = 1; j + 1 < fields.size(); j += 2) {
        if (EqualsIgnoreCase(fields[j], "currentEpoch")) {
          state->current_epoch = LeadingUnsigned(fields[j + 1]);
        } else if (EqualsIgnoreCase(fields[j], "lastVoteEpoch")) {
          state->last_vote_epoch = LeadingUnsigned(fields[j + 1]);
        } else if (warnings != nullptr) {
          warnings->push_back("Skipping unknown cluster config variable '" +
                              std::string(fields[j]) + "'");
        }
      }
      continue;
    }
    if (fields.size() < 8 || fields[0].size() != kClusterNodeIdLen) return corrupt();
    if (state->Lookup(fields[0]) == nullptr) state->CreateNode(fields[0], 0);
    lines.push_back({line, std::move(fields)});
  }

  // Pass 2: fill each node from its line (a repeated id: the later line wins field by field).
  for (const NodeLine& l : lines) {
    const auto& f = l.fields;
    auto corrupt = [&] { return Status::Error(std::string(l.text)); };
    ClusterNode* node = state->Lookup(f[0]);

    std::string_view addr = f[1];
    size_t comma = addr.find(',');
    std::string_view hostname;
    if (comma != std::string_view::npos) {
      hostname = addr.substr(comma + 1);
      addr = addr.substr(0, comma);
    }
    size_t colon = addr.rfind(':');
    if (colon == std::string_view::npos) return corrupt();
    node->ip = std::string(addr.substr(0, colon));
    std::string_view ports = addr.substr(colon + 1);
    size_t at = ports.find('@');
    node->port = static_cast<int>(LeadingInt(ports.substr(0, at)));
    node->cport = at == std::string_view::npos ? node->port + 10000
                                               : static_cast<int>(LeadingInt(ports.substr(at + 1)));
    node->hostname = std::string(hostname);

    std::string_view flags = f[2];
    while (!flags.empty()) {
      size_t cut = flags.find(',');
      std::string_view name = flags.substr(0, cut);
      flags = cut == std::string_view::npos ? std::string_view() : flags.substr(cut + 1);
      if (EqualsIgnoreCase(name, "noflags")) continue;
      uint16_t bit = 0;
      for (const FlagName& fn : kFlagNames) {
        if (EqualsIgnoreCase(name, fn.name)) bit = fn.flag;
      }
      if (bit == 0) return corrupt();  // Redis stops on an unknown flag
      if (bit == kNodeMyself) {
        if (state->myself() != nullptr && state->myself() != node) return corrupt();
        state->MarkMyself(node);
      }
      node->flags |= bit;
    }
    if (f[3] != "-") {
      if (f[3].size() != kClusterNodeIdLen) return corrupt();
      state->SetMaster(node, LookupOrCreate(state, f[3]));
    }
    node->ping_sent = LeadingInt(f[4]);
    node->pong_recv = LeadingInt(f[5]);
    node->config_epoch = LeadingUnsigned(f[6]);
    // The link state describes a connection of the process that wrote the file; it is kept
    // for a faithful rewrite until ResetAfterLoad drops it.
    node->link_connected = f[7] == "connected";

    for (size_t j = 8; j < f.size(); ++j) {
      std::string_view s = f[j];
      if (s.front() == '[') {
        // [<slot>->-<id>] or [<slot>-<-<id>]
        size_t dash = s.find('-');
        if (dash == std::string_view::npos || dash + 3 >= s.size()) return corrupt();
        char direction = s[dash + 1];
        int64_t slot = LeadingInt(s.substr(1, dash - 1));
        std::string_view peer_id = s.substr(dash + 3);
        if (peer_id.back() == ']') peer_id.remove_suffix(1);
        if (!ValidSlot(slot) || peer_id.size() != kClusterNodeIdLen) return corrupt();
        if (direction != '>' && direction != '<') return corrupt();
        ClusterNode* peer = LookupOrCreate(state, peer_id);
        if (direction == '>') {
          state->SetMigrating(static_cast<int>(slot), peer);
        } else {
          state->SetImporting(static_cast<int>(slot), peer);
        }
        continue;
      }
      size_t dash = s.find('-');
      int64_t from = LeadingInt(s.substr(0, dash));
      int64_t to = dash == std::string_view::npos ? from : LeadingInt(s.substr(dash + 1));
      if (!ValidSlot(from) || !ValidSlot(to)) return corrupt();
      for (int64_t slot = from; slot <= to; ++slot) {
        state->AssignSlot(static_cast<int>(slot), node);  // first claimer keeps it, as Redis
      }
    }
  }
  if (state->myself() == nullptr) return Status::Error("myself node not found");
  // Protection against hand-edited files: no node may be ahead of the current epoch.
  if (state->MaxConfigEpoch() > state->current_epoch) {
    state->current_epoch = state->MaxConfigEpoch();
  }
  return Status::Ok();
}

void ResetAfterLoad(ClusterState* state, int64_t now_ms) {
  for (ClusterNode* node : state->nodes()) {
    node->link_connected = false;
    if (node->ping_sent != 0) node->ping_sent = now_ms;
    if (node->pong_recv != 0) node->pong_recv = now_ms;
  }
}

NodesConfFile::~NodesConfFile() {
  if (fd_ >= 0) close(fd_);
}

Status NodesConfFile::Lock(const std::string& path) {
  int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error(Errno("Impossible to lock " + path, errno));
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Error("Sorry, the cluster configuration file " + path +
                           " is already used by a different Redis Cluster node. Please make "
                           "sure that different nodes use different cluster configuration "
                           "files.");
    }
    return Status::Error(Errno("Impossible to lock " + path, err));
  }
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  path_ = path;
  return Status::Ok();
}

Status NodesConfFile::Read(std::string* content) const {
  content->clear();
  int fd = open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Status::Error(Errno("Loading the cluster node config from " + path_, errno));
  char buf[65536];
  // Bounded by the file's size: read() returns 0 at its end.
  for (;;) {
    ssize_t n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      close(fd);
      return Status::Error(Errno("Loading the cluster node config from " + path_, err));
    }
    if (n == 0) break;
    content->append(buf, static_cast<size_t>(n));
  }
  close(fd);
  return Status::Ok();
}

Status NodesConfFile::Overwrite(std::string_view content) {
  struct stat st {};
  if (fstat(fd_, &st) != 0) return Status::Error(Errno("Could not stat " + path_, errno));
  std::string padded(content);
  if (static_cast<size_t>(st.st_size) > padded.size()) {
    padded.append(static_cast<size_t>(st.st_size) - padded.size(), '\n');
  }
  size_t off = 0;
  while (off < padded.size()) {
    ssize_t n = pwrite(fd_, padded.data() + off, padded.size() - off, static_cast<off_t>(off));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::Error(Errno("Could not write " + path_, errno));
    off += static_cast<size_t>(n);
  }
  if (ftruncate(fd_, static_cast<off_t>(content.size())) != 0) {
    return Status::Error(Errno("Could not truncate " + path_, errno));
  }
  return Status::Ok();
}

Status NodesConfFile::Save(std::string_view content, bool fsync) {
  if (!fsync && fd_ >= 0) return Overwrite(content);
  // Unique beside the file: this process's id and its count of saves.
  std::string tmp = path_ + ".tmp-" + std::to_string(getpid()) + "-" + std::to_string(++saves_);
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::Error(Errno("Could not open " + tmp, errno));
  auto fail = [&](const std::string& what) {
    int err = errno;
    close(fd);
    unlink(tmp.c_str());
    return Status::Error(Errno(what, err));
  };
  if (!WriteAll(fd, content)) return fail("Could not write " + tmp);
  if (fsync && ::fsync(fd) != 0) return fail("Could not fsync " + tmp);
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) return fail("Impossible to lock " + tmp);
  if (rename(tmp.c_str(), path_.c_str()) != 0) return fail("Could not rename " + tmp);
  if (fd_ >= 0) close(fd_);
  fd_ = fd;
  if (!fsync) return Status::Ok();
  size_t slash = path_.rfind('/');
  std::string dir = slash == std::string::npos ? "." : path_.substr(0, slash == 0 ? 1 : slash);
  int err = FsyncDirectory(dir);
  if (err != 0) return Status::Error(Errno("Could not fsync directory " + dir, err));
  return Status::Ok();
}

}  // namespace redistp
