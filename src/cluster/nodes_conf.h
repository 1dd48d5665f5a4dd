// The text forms of the cluster state: CLUSTER NODES and nodes.conf (cluster-config-file), as
// Redis 7.0 writes and reads them, and the file itself (locked, saved atomically).
//
// A node line is
//   <id> <ip>:<port>@<cport>[,<hostname>] <flags> <master-id|-> <ping-sent> <pong-recv>
//   <config-epoch> <connected|disconnected> [<slot>|<from>-<to>]...
//   [[<slot>->-<id>]|[<slot>-<-<id>]]...
// with flags as comma-separated names ("noflags" when none), slot runs in ascending order, and,
// on myself's line only, the slots being migrated ("->-", to the named node) or imported ("-<-",
// from it). nodes.conf is every node but those still in handshake, one such line each, then
// "vars currentEpoch <n> lastVoteEpoch <n>".
//
// Reading follows Redis 7.0's loader: blank lines are skipped; a "vars" line sets the epochs
// (an unknown variable is skipped with a warning); a node line needs at least eight fields; a
// node named as a master or a migration peer before (or without) its own line is created bare
// (no flags, no address, as Redis does); the address's port is the text between the last ':'
// and the '@', the bus port defaults to port + 10000 when "@cport" is missing (old files);
// flags are case-insensitive and an unknown one is an error; the file must name myself. Numbers
// read like C's atoi/strtoull (leading digits), as Redis reads them. Times are kept as written:
// Redis reads a non-zero ping-sent / pong-recv as "now" and ignores the link state, which the
// server applies after loading (ResetAfterLoad), so that a file read and written again here
// comes out byte-identical.
// Finally current_epoch is raised to the largest config epoch if the file says less.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cluster/cluster_state.h"
#include "util/status.h"

namespace redistp {

// Appends `node`'s CLUSTER NODES line, "\n" included.
void AppendNodeLine(const ClusterState& state, const ClusterNode& node, std::string* out);
// CLUSTER NODES' reply text: every node, those in handshake included.
std::string FormatClusterNodes(const ClusterState& state);
// nodes.conf's content: every node but those in handshake, then the vars line.
std::string FormatNodesConf(const ClusterState& state);

// Fills the empty `state` from nodes.conf `content`. On a malformed line, returns an error
// whose message is that line (the caller logs Redis's "Unrecoverable error: corrupted cluster
// config file" with it and exits); `warnings` (optional) collects the log lines of skipped
// variables.
Status ParseNodesConf(std::string_view content, ClusterState* state,
                      std::vector<std::string>* warnings = nullptr);

// After loading, what the file's runtime fields mean to a new process (Redis's reading): a
// node that had a PING outstanding or a PONG received gets `now_ms` for it, and no bus link is
// up yet.
void ResetAfterLoad(ClusterState* state, int64_t now_ms);

// The cluster config file, held for the life of the server. Lock() opens (creating it if need
// be) and takes an exclusive flock on it, as Redis 7.0 does, so two nodes (ours or Redis's)
// cannot share one file. Save() replaces it atomically: write a temporary file beside it,
// fsync, lock the temporary, rename it over the file, fsync the directory; the lock moves with
// the new file before its name appears, so there is no moment when the name is unlocked.
// Without `fsync` (a save Redis does not fsync either: a slot's migration state) the file is
// rewritten in place, as Redis 7.0 writes it: the new text padded with newlines to the old
// size in one write, then truncated. A process killed between the two leaves blank lines,
// which loading skips. The rename path costs an inode per save (its close alone measured
// 5-10 ms here under a reshard's six saves per slot); in place costs a write.
class NodesConfFile {
 public:
  NodesConfFile() = default;
  ~NodesConfFile();
  NodesConfFile(const NodesConfFile&) = delete;
  NodesConfFile& operator=(const NodesConfFile&) = delete;

  // Errors: Redis's log text, "Sorry, the cluster configuration file <path> is already used by
  // a different Redis Cluster node. Please make sure that different nodes use different cluster
  // configuration files." when another process holds it, "Impossible to lock <path>: <strerror>"
  // otherwise.
  Status Lock(const std::string& path);
  // The file's content; an empty string for an empty file (a new node: Redis treats an empty
  // file as none). Error: "Loading the cluster node config from <path>: <strerror>".
  Status Read(std::string* content) const;
  // Replaces the file with `content` as described above. Error: the failing step and strerror.
  Status Save(std::string_view content, bool fsync);

  const std::string& path() const { return path_; }
  bool locked() const { return fd_ >= 0; }

 private:
  // The save without fsync (see above).
  Status Overwrite(std::string_view content);

  std::string path_;
  int fd_ = -1;  // open on the current file, holding the flock
  uint64_t saves_ = 0;
};

}  // namespace redistp
