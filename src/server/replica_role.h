// ReplicaRole: what the server layer must know about this server following a master.
//
// The replica side of replication lives in src/replication, above the server layer, but the
// admission gate, the networking path and the cron must act on the role: writes from ordinary
// clients are refused on a read-only replica (READONLY), everything without the stale flag is
// refused while the link is down and replica-serve-stale-data is off (MASTERDOWN), the cron does
// no active expiry, and the master link's commands must be counted and proxied byte for byte.
// So the replication layer keeps this small plain state up to date (it is the only writer) and
// the server only reads it; the bytes of each command the master link applies go back up
// through MasterLinkObserver, which the replica side implements.
#pragma once

#include <string_view>
#include <vector>

namespace redistp {

class Client;

// Told about every command the master link (ClientKind::kMasterLink) applied, after it ran:
// `raw` is the exact bytes of the request as the master sent them, `args` its arguments.
class MasterLinkObserver {
 public:
  virtual ~MasterLinkObserver() = default;
  virtual void OnMasterCommandApplied(Client& link, std::string_view raw,
                                      const std::vector<std::string_view>& args) = 0;
};

struct ReplicaRole {
  // REPLICAOF host port is in effect (from the command or redis.conf): the role is "slave".
  bool following = false;
  // The link is synchronised and applying the stream (Redis's REPL_STATE_CONNECTED).
  bool link_up = false;
  MasterLinkObserver* observer = nullptr;
};

}  // namespace redistp
