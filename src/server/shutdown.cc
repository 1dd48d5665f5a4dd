// The shutdown sequence: SHUTDOWN and SIGTERM/SIGINT, waiting for replicas first
// (server/shutdown_wait.h has the model).
//
// BeginShutdown is the one entry: it either runs the final steps now (no replica to wait for,
// NOW, shutdown-timeout 0) or starts the wait. The wait is checked in every cron tick and loop
// turn (CheckShutdownWait), so it ends in the turn that brings the last acknowledgement; its
// end runs the same final steps. The pause it holds is the server's own (kPauseShutdownWait),
// which CLIENT UNPAUSE does not end, as in Redis 7.0.
#include <algorithm>
#include <csignal>

#include "protocol/errors.h"
#include "server/maint_notify.h"
#include "server/server.h"
#include "server/shutdown_signals.h"

namespace redistp {

Server::ShutdownStart Server::BeginShutdown(int flags, Client* c, bool from_signal) {
  const bool now = (flags & kShutdownNow) != 0;
  // A new attempt (not one joining a wait) tells a systemd supervisor at once, before any wait
  // for replicas, as Redis 7.0 does; an aborted attempt sends nothing back.
  if (!shutdown_waiting()) NotifySupervisor("STOPPING=1\n");
  if (shutdown_waiting()) {
    // A second request joins the waiting one, unless it says NOW: then the wait ends here.
    if (!now) {
      if (c != nullptr) {
        c->blocking.active = true;
        shutdown_wait_.waiters.push_back(c);
      }
      return ShutdownStart::kWaiting;
    }
  } else if (!now && config_.shutdown_timeout > 0 && replica_acks_ != nullptr &&
             replica_acks_->HasReplicas()) {
    log_.Log(LogLevel::kNotice, "Waiting for replicas before shutting down.");
    shutdown_wait_.deadline_ms = NowMs() + int64_t{config_.shutdown_timeout} * 1000;
    shutdown_wait_.flags = flags;
    shutdown_wait_.from_signal = from_signal;
    SetWritePause(kPauseShutdownWait, true);
    // Planned: the connections that asked are told now, while the server still answers.
    PushMaintenanceMoving(*this, config_.shutdown_timeout, {});
    replica_acks_->RequestAcks();
    if (c != nullptr) {
      c->blocking.active = true;
      shutdown_wait_.waiters.push_back(c);
    }
    return ShutdownStart::kWaiting;
  }
  if (shutdown_waiting()) {
    // NOW over a waiting shutdown: the waiting one's flags with NOW's.
    flags |= shutdown_wait_.flags;
    if (FinishShutdown(flags, from_signal)) return ShutdownStart::kExiting;
    CancelShutdownWait();
    return ShutdownStart::kRefused;
  }
  return FinishShutdown(flags, from_signal) ? ShutdownStart::kExiting : ShutdownStart::kRefused;
}

bool Server::FinishShutdown(int flags, bool from_signal) {
  // Every shutdown of a master says which replicas it leaves behind (a timed-out wait, NOW, or
  // no wait at all), before the final steps, as Redis.
  if (replica_acks_ != nullptr && replica_acks_->HasReplicas()) replica_acks_->LogLagging();
  if (!PrepareShutdown(flags)) {
    if ((flags & kShutdownForce) == 0) return false;
    log_.Log(LogLevel::kWarning, "Errors trying to shut down the server. Exiting anyway (FORCE).");
  }
  // The last notice (0 seconds: it goes now) rides on the final best-effort write of every
  // connection's output (RequestShutdown).
  PushMaintenanceMoving(*this, 0, {});
  RequestShutdown(from_signal);
  return true;
}

void Server::CheckShutdownWait() {
  // Once the final steps ran (the process exits at the end of this turn) a second check in the
  // same turn must not run them again: a second final save, a second log.
  if (!shutdown_waiting() || shutdown_requested_) return;
  const bool acked = replica_acks_ == nullptr || replica_acks_->AllAcked();
  if (!acked && NowMs() < shutdown_wait_.deadline_ms) return;
  if (FinishShutdown(shutdown_wait_.flags, shutdown_wait_.from_signal)) return;
  log_.Log(LogLevel::kWarning,
           "Errors trying to shut down the server. Check the logs for more information.");
  CancelShutdownWait();
}

bool Server::AbortShutdown() {
  if (!shutdown_waiting()) {
    // A signal the cron has not acted on yet (DEBUG PAUSE-CRON) is simply forgotten.
    const int sig = TakeShutdownSignal();
    if (sig == 0) return false;
    log_.Log(LogLevel::kWarning, "Received %s scheduling shutdown...",
             sig == SIGINT ? "SIGINT" : "SIGTERM");
    log_.Log(LogLevel::kWarning, "Shutdown manually aborted.");
    return true;
  }
  log_.Log(LogLevel::kWarning, "Shutdown manually aborted.");
  CancelShutdownWait();
  return true;
}

void Server::CancelShutdownWait() {
  std::vector<Client*> waiters;
  waiters.swap(shutdown_wait_.waiters);
  shutdown_wait_ = ShutdownWait{};
  for (Client* c : waiters) {
    if (c->closed) continue;
    c->reply.Error(err::kShutdownFailed);
    FinishBlock(c);
  }
  SetWritePause(kPauseShutdownWait, false);
}

}  // namespace redistp
