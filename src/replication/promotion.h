// Temporary keys, sessions and fencing tokens across a change of role.
//
// Model. While this server follows a master it holds the master's temporary keys and sessions
// as the master's stream describes them (server/session_runtime.cc: inherited owners, no grace
// running, nothing released but by the stream). The two moments of a role change are where
// that state becomes this server's own, or stops being it:
//
//   Promotion (Replication::BecameMaster: REPLICAOF NO ONE, FAILOVER, a Sentinel failover).
//     1. Fencing: the counter jumps 2^32 above the highest token this server has seen (the
//        records' tokens and the RDB's redistp-fence field raised it), so tokens the old master
//        drew and never replicated stay below every token handed out from now on unless there
//        were more than 2^32 of them. The next draw reserves its block in the reservation file
//        as any draw does (watch/fence.h), so a crash right after the promotion cannot repeat
//        a token either.
//     2. Sessions: each one inherited (detached, no grace) starts its grace now, as if its owner
//        had just disconnected; SESSION RESUME with its token attaches it here, same keys and
//        fences.
//     3. Keys of plain connections of the old master (inherited owners that are no session):
//        those connections cannot follow a failover, so their keys are kept for
//        tp-failover-grace-ms (a holder that does not know the master changed keeps working
//        for a while; the grace is the margin before anybody else gets the lock) and then
//        released as a disconnect would: DEL events, BSETTP hand-offs, DEL records to this
//        server's own replicas and AOF. INFO coordination counts them as released_by_failover.
//   Demotion (Replication::BecameReplica): the pending releases are dropped (the new master's
//     data replaces ours at the full sync, and a replica releases nothing on its own), every
//     running grace stops, and every BSETTP waiter gets its timeout answer (a hand-off on a
//     replica would create a lock nobody else sees).
//
// The pending releases share the moment of the promotion; the check runs in the replication
// cron (hz), against tp-failover-grace-ms as configured at that time (a CONFIG SET applies to
// the pending releases too): a release is at most one cron period late.
#pragma once

#include <cstdint>
#include <vector>

#include "server/server.h"

namespace redistp {

class Promotion {
 public:
  // How far above the highest token seen a promoted server's counter starts.
  static constexpr uint64_t kFenceGap = uint64_t{1} << 32;

  explicit Promotion(Server& server) : server_(server) {}

  // The three steps above, in that order. Logged at notice level with the counts.
  void BecameMaster();
  // Drops the pending releases; ownership follows the master again.
  void BecameReplica();
  // Releases the plain owners whose tp-failover-grace-ms has passed.
  void Cron();

  // Owners whose release is pending, and the promotion they wait from (Unix ms; 0: none).
  const std::vector<uint64_t>& pending() const { return pending_; }
  int64_t promoted_ms() const { return promoted_ms_; }

 private:
  Server& server_;
  std::vector<uint64_t> pending_;
  int64_t promoted_ms_ = 0;
};

}  // namespace redistp
