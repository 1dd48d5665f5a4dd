// FAILOVER: a master hands its role to one of its replicas without losing acknowledged writes,
// as Redis 7.0 documents it; and the target's side of it (PSYNC ... FAILOVER).
//
// Model. A coordinated failover is a small state machine on the master (INFO replication's
// master_failover_state):
//   no-failover --FAILOVER--> waiting-for-sync --target synced--> failover-in-progress --> done
// FAILOVER pauses writes (the server's own pause, kPauseFailover: CLIENT UNPAUSE cannot end it),
// so the master's offset stops moving, and asks its replicas for acknowledgements. In
// waiting-for-sync it waits until the target (TO host port) or any replica has acknowledged the
// whole stream; then it becomes a replica of that server with `PSYNC <replid> <offset> FAILOVER`
// (failover-in-progress). The target, seeing FAILOVER in the PSYNC of a server it follows with
// the same history, promotes itself and answers +CONTINUE; the old master's PSYNC succeeding
// ends the failover (no-failover) and lifts the pause. TIMEOUT bounds the wait for sync: when it
// passes, the failover is aborted, or with FORCE goes ahead to the named target anyway. ABORT
// (or a rejected PSYNC) gives up: a server that already turned replica becomes master again.
// Writes are never refused: they wait, and after the failover the waiting clients find a
// replica (READONLY), as in Redis.
//
// The sides. What the failover needs from the master side (the replicas and their
// acknowledged offsets) and from the replica side (following a server with the FAILOVER PSYNC,
// promoting) reaches it through FailoverPeers, bound to MasterSide and ReplicaSide in
// failover_peers.cc; the shutdown sequence's ReplicaAcks (server/shutdown_wait.h) is answered
// from the same view.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "server/shutdown_wait.h"
#include "util/status.h"

namespace redistp {

class Client;
class Replication;

// One replica as the master sees it.
struct FailoverReplica {
  std::string ip;  // as INFO's slaveN line shows it (the announced address)
  int port = 0;    // REPLCONF listening-port
  int64_t ack_offset = 0;
  bool online = false;  // past its full sync, receiving the stream
  std::string name;     // "ip:port", for the log
  int64_t lag_s = 0;    // seconds since its last acknowledgement
  std::string state;    // as INFO's slaveN line shows it (online, wait_bgsave ...)
};

// The master side's and the replica side's parts of a failover.
class FailoverPeers {
 public:
  virtual ~FailoverPeers() = default;
  virtual std::vector<FailoverReplica> Replicas() = 0;
  // REPLCONF GETACK * to every online replica.
  virtual void RequestAcks() = 0;
  // Becomes a replica of host:port whose first PSYNC carries FAILOVER; the replica side calls
  // Failover::OnFailoverPsyncResult with the outcome.
  virtual void FollowForFailover(const std::string& host, int port) = 0;
  // Stops following a master (REPLICAOF NO ONE); the log says "MASTER MODE enabled (<kind>
  // from '<who>')", or "(<kind>)" when `who` is empty.
  virtual void BecomeMaster(const char* kind, const std::string& who) = 0;
};

// The peers of this server's own replication (failover_peers.cc): MasterSide's replica links,
// ReplicaSide's FollowForFailover and Unfollow.
std::unique_ptr<FailoverPeers> MakeReplicationPeers(Replication& repl);

class Failover : public ReplicaAcks {
 public:
  enum class State { kNone, kWaitingForSync, kInProgress };

  // FAILOVER's arguments once parsed.
  struct Request {
    std::string host;  // empty: any replica
    int port = 0;
    bool force = false;
    int64_t timeout_ms = 0;  // 0: none
  };

  explicit Failover(Replication& repl);
  ~Failover() override;
  Failover(const Failover&) = delete;
  Failover& operator=(const Failover&) = delete;

  // The sides the failover works with (the constructor binds MakeReplicationPeers's).
  void set_peers(FailoverPeers* peers) { peers_ = peers; }

  State state() const { return state_; }
  // INFO's master_failover_state value.
  const char* StateName() const;

  // FAILOVER (not ABORT) after its arguments parsed: the checks after parsing in Redis's order
  // (a replica refuses, one in progress refuses, no replicas, FORCE needs TO and TIMEOUT, the
  // target must be a replica), then the start. Returns the error text, or empty on success.
  std::string_view Start(const Request& req);
  // FAILOVER ABORT: false when none is in progress.
  bool Abort();

  // The state machine's clock: the sync check, TIMEOUT (Cron and BeforeSleep call it).
  void Tick();
  // The replica side's answer to the FAILOVER PSYNC: accepted (+CONTINUE or +FULLRESYNC) ends
  // the failover; rejected aborts it and makes this server a master again.
  void OnFailoverPsyncResult(bool accepted);
  // Something else changed the role during a failover (REPLICAOF by an admin is refused while
  // one runs, but a replica link lost at the wrong moment is not): the failover is over.
  void OnRoleChangedExternally();

  // The target's side: a PSYNC with FAILOVER from `c`, asking to continue from `replid`. If
  // this server is a replica whose replication id is `replid`, it promotes itself (the PSYNC
  // then goes on as any master's) and the result is empty; else the error text to reply.
  std::string_view AcceptFailoverPsync(Client& c, std::string_view replid);

  // ReplicaAcks (the shutdown sequence).
  bool HasReplicas() override;
  bool AllAcked() override;
  void RequestAcks() override;
  void LogLagging() override;

 private:
  // Ends the failover: `reason` empty when it completed, else the abort's log reason.
  void End(std::string_view reason);
  // The replica to hand over to now, or nullptr (none has acknowledged the whole stream).
  const FailoverReplica* SyncedTarget(const std::vector<FailoverReplica>& replicas) const;
  // waiting-for-sync -> failover-in-progress, towards host:port.
  void GoTo(const std::string& host, int port);
  std::string TargetName() const;

  Replication& repl_;
  std::unique_ptr<FailoverPeers> own_peers_;
  FailoverPeers* peers_ = nullptr;
  State state_ = State::kNone;
  Request req_;
  int64_t deadline_ms_ = 0;  // 0: no TIMEOUT
  bool became_replica_ = false;
};

}  // namespace redistp
