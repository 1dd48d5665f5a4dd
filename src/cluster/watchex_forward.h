// WatchexForward: the cluster's WatchexShardRoute (server/watchex_shard_route.h), the bus path
// of existence events published as sharded Pub/Sub (docs/cluster.md, "Existence events as
// sharded Pub/Sub").
//
// A change of key K on this node is published on the shard channel C = `__watchex@0__:K`. The
// shard subscribers of C are connected to the master serving slot(C) (a cluster client routes
// SSUBSCRIBE by the channel's slot) or to its replicas. So:
//   - slot(C) served here: delivered to this node's shard subscribers (the caller does it);
//   - slot(C) served by another master: with `tp-watchex-shard-forward yes`, sent over the bus
//     as PUBLISHSHARD to that master and its replicas, whose own shard subscribers get it (a
//     Redis 7.0 node delivers a PUBLISHSHARD it receives the same way); with `no` (the
//     default), dropped;
//   - slot(C) without owner: dropped;
//   - on a replica: delivered locally when its master serves slot(C) (the replica sees the
//     change in its master's stream), else dropped (the master forwards it).
// With a hash tag (`{lock}`, channel `__watchex@0__:{lock}`) slot(C) is the key's slot, always
// served where the change happens: no bus message, whatever the setting.
//
// Why forwarding is off by default: this node cannot know whether the other shard has
// subscribers, so with forwarding on every existence change of every key whose channel hashes
// elsewhere (a new key, a deleted one, an expiry) costs one bus message, a header of about
// 2 KB, whoever listens. The setting is read at every loop turn (Cluster::BeforeSleep), so CONFIG
// SET takes effect in the turn of the command.
#pragma once

#include <string_view>

#include "server/watchex_shard_route.h"

namespace redistp {

class Cluster;

class WatchexForward final : public WatchexShardRoute {
 public:
  explicit WatchexForward(Cluster& cluster) : cluster_(cluster) {}
  bool ForwardElsewhere(std::string_view channel, std::string_view message) override;
  bool forwarding() const { return forwarding_; }
  void set_forwarding(bool on) { forwarding_ = on; }

 private:
  Cluster& cluster_;
  bool forwarding_ = false;
};

}  // namespace redistp
