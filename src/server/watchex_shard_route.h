// WatchexShardRoute: where the sharded copy of an existence event goes in a cluster
// (docs/cluster.md, "Existence events as sharded Pub/Sub").
//
// Every existence event the server publishes on `__watchex@<db>__:<key>` (watchex_pubsub.h) is
// also delivered to the shard subscribers (SSUBSCRIBE) of that channel name. A standalone
// server delivers it to its own shard subscribers. A cluster node asks this route first: the
// cluster subsystem installs one (WatchexPublisher::SetRoute), because the server layer cannot
// name the cluster layer. The route says whether the channel's slot is served here (the caller
// delivers locally), and otherwise sends the message over the bus to the shard that serves it
// (when forwarding is on) or drops it.
#pragma once

#include <string_view>

namespace redistp {

class WatchexShardRoute {
 public:
  virtual ~WatchexShardRoute() = default;
  // False when this node serves the slot of `channel`: deliver to the local shard subscribers.
  // True when another shard (or nobody) serves it: the route has sent the message there over
  // the bus, or dropped it (forwarding off, slot without owner).
  virtual bool ForwardElsewhere(std::string_view channel, std::string_view message) = 0;
};

}  // namespace redistp
