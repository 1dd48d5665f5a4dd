// Shutdown with replicas: what the server's shutdown sequence needs from replication.
//
// Model (Redis 7.0's SHUTDOWN). A master with replicas that is asked to exit (SHUTDOWN without
// NOW, SIGTERM/SIGINT) and has shutdown-timeout > 0 does not exit at once: it pauses writes,
// asks its replicas to acknowledge their offset, and waits until every replica has
// acknowledged the whole stream or shutdown-timeout seconds have passed; only then does it run
// the final steps (the save of persistence, PrepareShutdown) and exit. While it waits, the
// SHUTDOWN caller is blocked (INFO counts it in blocked_clients) and SHUTDOWN ABORT cancels:
// the waiters get "Errors trying to SHUTDOWN" and writes go on. The server layer runs this
// sequence (server/shutdown.cc) but cannot see src/replication, so replication hands it a
// ReplicaAcks object (Server::set_replica_acks) that answers the questions below.
#pragma once

#include <cstdint>
#include <vector>

namespace redistp {

class Client;

// Replication's answers to the shutdown sequence (and anything else that must wait for the
// replicas to catch up). Called on the event loop thread only.
class ReplicaAcks {
 public:
  virtual ~ReplicaAcks() = default;
  // Whether a replica is attached that a shutdown should wait for.
  virtual bool HasReplicas() = 0;
  // Whether every attached replica has acknowledged the master's whole stream.
  virtual bool AllAcked() = 0;
  // Asks every replica for an acknowledgement now (REPLCONF GETACK *), so the wait ends as soon
  // as they have caught up rather than at their next periodic ACK.
  virtual void RequestAcks() = 0;
  // At the end of every shutdown with replicas attached: a warning for each replica that has
  // not acknowledged the whole stream, then "N of M replicas are in sync when shutting down.".
  virtual void LogLagging() = 0;
};

// The state of a shutdown that waits for replicas (Server owns one).
struct ShutdownWait {
  int64_t deadline_ms = 0;  // 0: no shutdown is waiting
  int flags = 0;            // kShutdown* bits of the request
  bool from_signal = false;
  std::vector<Client*> waiters;  // SHUTDOWN callers, blocked until the end
};

}  // namespace redistp
