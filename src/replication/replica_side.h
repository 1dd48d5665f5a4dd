// The replica side of replication: REPLICAOF, the link to the master, applying its stream.
// (Filled in by the replica-side work; see replication.h for the model.)
#pragma once

#include <cstdint>
#include <string>

#include "protocol/reply_builder.h"
#include "server/client.h"
#include "util/status.h"

namespace redistp {

class Replication;

class ReplicaSide {
 public:
  explicit ReplicaSide(Replication& repl);
  ~ReplicaSide();
  ReplicaSide(const ReplicaSide&) = delete;
  ReplicaSide& operator=(const ReplicaSide&) = delete;

  // Whether a master is configured (REPLICAOF host port, or replicaof in redis.conf).
  bool active() const { return !master_host_.empty(); }
  // Startup: follows the master redis.conf names, if any.
  Status Start();
  // INFO replication: master_host ... replica_announced (only while active()).
  void WriteInfo(std::string* out);
  // ROLE's reply on a replica.
  void WriteRole(ReplyBuilder& rb);

  void Cron();
  void OnClientClose(Client& c);

 private:
  Replication& repl_;
  std::string master_host_;
  int master_port_ = 0;
};

}  // namespace redistp
