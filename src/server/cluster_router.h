// ClusterRouter: the admission gate's question to a cluster node, "may this node serve this
// command's keys?" (Redis's getNodeByQuery). The server layer cannot name the cluster layer,
// so the cluster subsystem installs one (Server::set_cluster_router) when cluster-enabled is
// yes; without one (a standalone server) the check is a single null test.
#pragma once

#include <string>
#include <string_view>

namespace redistp {

struct AdmissionCall;

class ClusterRouter {
 public:
  virtual ~ClusterRouter() = default;
  // Empty when this node serves the call here; otherwise the refusal text (MOVED, ASK,
  // TRYAGAIN, CROSSSLOT, CLUSTERDOWN ...; for a script's command, its own texts). For EXEC
  // the queued commands are judged together. Not asked for the AOF's replay, the master's
  // stream, nor for keyless rows other than EXEC.
  virtual std::string Route(const AdmissionCall& call) = 0;
  // The ASK redirection ("ASK <slot> <ip>:<port>") for `key` when this node is migrating its
  // slot, else empty: what a BSETTP waiter of a temporary key MIGRATE moves away gets.
  virtual std::string AskFor(std::string_view key) const = 0;
};

}  // namespace redistp
