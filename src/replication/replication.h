// Replication: Redis 7.0's master/replica protocol, both ways with Redis (a Redis 7.0 replica
// follows a redis-tp master, a redis-tp replica follows a Redis 7.0 master) and with Sentinel.
//
// Model. One Replication subsystem per server (server/subsystem.h, slot kReplication: after
// persistence, whose loading it follows). It has three parts, each in files of its own:
//   - the core (this file, replication.cc): the replication identity -- the current
//     replication id, the previous one and the offset up to which it is valid (PSYNC2), the
//     master offset -- and the one stream every replica and the backlog receive;
//   - the master side (master_side.h, master.cc, backlog.*): SYNC/PSYNC, REPLCONF, full syncs
//     (RDB on disk or diskless), the backlog, the replicas' links, WAIT, min-replicas-*;
//   - the replica side (replica_side.h, replica.cc): REPLICAOF, the link to the master (the
//     handshake, the transfer and load of its RDB, the master-link client that applies its
//     stream, acknowledgements), read-only and stale-data rules.
// FAILOVER and what temporary keys, sessions and fences do on promotion hang off the moments the
// core names below (BecameMaster, BecameReplica).
//
// The stream. On a master the stream is the propagation records (server/propagation.h) encoded
// in RESP, exactly what the AOF appends, plus the PINGs of repl-ping-replica-period. A replica
// does not re-encode what it applies: it proxies the bytes its master sent, so its own replicas
// and its backlog hold the master's stream byte for byte and offsets agree along a chain, as in
// Redis. Either way every byte goes through FeedStream, which moves master_repl_offset.
//
// Offsets are Redis's: master_repl_offset counts the bytes of the stream since the replication
// id began; a replica's offset is the master's offset of the last command it applied whole.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/reply_builder.h"
#include "server/propagation.h"
#include "server/server.h"
#include "util/status.h"

namespace redistp {

class Failover;
class MasterSide;
class Promotion;
class ReplicaSide;

class Replication : public Subsystem, public PropagationSink {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kReplication;

  explicit Replication(Server& server);
  ~Replication() override;
  Replication(const Replication&) = delete;
  Replication& operator=(const Replication&) = delete;

  // The server's replication, created and attached on first use (main.cc attaches it at
  // startup, after persistence).
  static Replication& Of(Server& server);

  Server& server() { return server_; }
  MasterSide& master() { return *master_; }
  ReplicaSide& replica() { return *replica_; }
  // FAILOVER's state machine and the target's side of it (failover.h).
  Failover& failover() { return *failover_; }
  // Temporary keys, sessions and fences across role changes (promotion.h).
  Promotion& promotion() { return *promotion_; }

  // --- identity ---------------------------------------------------------------------------
  // The current replication id (40 hex characters) and the offset of the stream under it.
  const std::string& replid() const { return replid_; }
  int64_t master_repl_offset() const { return master_repl_offset_; }
  // The previous id and the first offset that is NOT valid under it (-1: none), so a replica of
  // the old history can continue with PSYNC after a promotion (PSYNC2).
  const std::string& replid2() const { return replid2_; }
  int64_t second_replid_offset() const { return second_replid_offset_; }
  // A new random id, and no previous one (a master's first replica, a full sync from a master).
  void ChangeReplicationId();
  // Keeps the current id as the previous one, valid up to the present offset, and draws a new
  // one (a replica promoted to master, as Redis's shiftReplicationId).
  void ShiftReplicationId();
  // Adopts a master's id and offset (the replica side, after a full sync or a +CONTINUE with a
  // new id).
  void SetIdentity(std::string replid, int64_t offset);
  void SetPreviousIdentity(std::string replid2, int64_t second_offset);
  void ClearPreviousIdentity();

  // Whether this server follows a master now (REPLICAOF host port).
  bool is_replica() const;

  // --- the stream ----------------------------------------------------------------------------
  // Bytes of the replication stream: appended to the backlog and sent to every replica that is
  // online (or held for those waiting for their full sync to end), moving master_repl_offset.
  void FeedStream(std::string_view bytes);

  // PropagationSink: on a master, each record is encoded and fed to the stream (with the
  // SELECT the stream needs first). On a replica the records of the commands its master link
  // applies are not re-fed: the master's bytes are proxied instead (see above).
  void OnPropagate(const std::vector<std::string>& argv) override;
  uint8_t targets() const override { return kPropagateReplicas; }

  // --- role changes ----------------------------------------------------------------------------
  // Called by the replica side at the moment the role changes, before anything else is served:
  // BecameMaster after REPLICAOF NO ONE or a failover's promotion; BecameReplica when this server
  // starts following a master (its own replicas keep following it, as in Redis).
  void BecameMaster();
  void BecameReplica();

  // --- INFO replication and ROLE ----------------------------------------------------------------
  // The replication section's lines, in Redis 7.0's order.
  void WriteInfo(std::string* out);
  // ROLE's reply.
  void WriteRole(ReplyBuilder& rb);

  // --- subsystem hooks -------------------------------------------------------------------------
  Status Start() override;
  void Stop() override;
  void Cron() override;
  void BeforeSleep() override;
  void OnClientClose(Client& c) override;
  bool PrepareShutdown(int flags) override;
  // The replicas' output buffers: not counted by eviction (server/eviction.h).
  size_t NotCountedMemory() const override;

 private:
  Server& server_;
  std::string replid_;
  std::string replid2_;
  int64_t master_repl_offset_ = 0;
  int64_t second_replid_offset_ = -1;
  std::unique_ptr<MasterSide> master_;
  std::unique_ptr<ReplicaSide> replica_;
  std::unique_ptr<Failover> failover_;
  std::unique_ptr<Promotion> promotion_;
};

}  // namespace redistp
