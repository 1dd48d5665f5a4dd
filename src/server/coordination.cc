// Coordination runtime: the server side of pushes, temporary keys, existence watches and the
// blocking core.
//
// Pushes. Every server-initiated message goes through Server::Push. The spec's ordering
// promise — "a watcher receives the notification of a change before the reply to any command
// it sends after that change. For the connection that made the change, the notification
// follows that command's reply (after the EXEC reply for MULTI)" — is kept by where frames go:
//   - a client that is not executing gets the frame appended to its output at once (its output
//     only ever holds complete replies, so the frame lands between replies, never inside one);
//     it is written in this loop turn's write pass;
//   - the client whose command caused the change is executing: its frames wait in
//     pending_pushes and ReleaseHeldPushes appends them after that command's reply
//     (ProcessInput does it after each top-level command, so after EXEC as a whole).
// Nothing here closes a client synchronously while another command runs: output-limit checks
// happen when pending clients are flushed. A push is not a reply: CLIENT REPLY OFF/SKIP, which
// disable the client's ReplyBuilder, never stop one (frames go to the output directly; a Pub/Sub
// confirmation written as a command's reply holds a ReplyBuilder::PushScope), as in Redis 7.0.
//
// Blocking. A blocked client keeps reading (its lease renews) but executes nothing. Its keys'
// waiters are served from the core's ready list after each top-level command and at the end of
// each callback (never inside a command, nor while CLIENT PAUSE holds writes); a served or
// timed-out client's pipelined input is processed at the end of the callback, never nested
// inside another client's command. Deadlines: one libevent timer armed (in BeforeSleep) for the
// earliest deadline the core holds.
#include <event2/event.h>

#include <algorithm>

#include "protocol/errors.h"
#include "server/server.h"

namespace redistp {
namespace {

// The accounting of a blocked call whose block ended without service (BlockedCall,
// recorded in full by RecordBlockedCall when served): Redis 7.0 counts the call and its time,
// a latency sample when CLIENT UNBLOCK (or a role change) ended it but not when it timed out,
// and never a SLOWLOG entry. FinishBlock then finds nothing left to record. A template so the
// server's private record type is deduced, not named.
template <typename BlockedCalls>
void AccountEndedCall(BlockedCalls& calls, uint64_t client_id, bool latency_sample) {
  auto call = calls.find(client_id);
  if (call == calls.end()) return;
  const CommandSpec* spec = call->second.spec;
  ++spec->stats.calls;
  spec->stats.usec += static_cast<uint64_t>(call->second.duration_us);
  if (latency_sample)
    spec->stats.latency.Record(static_cast<uint64_t>(call->second.duration_us) * 1000);
  calls.erase(call);
}

// A blocked command that ends with an error (its group destroyed, CLIENT UNBLOCK ... ERROR, a
// role change) failed, as Redis counts it: one more error reply of that prefix in errorstats
// and a failed call of the command (CLIENT LIST's cmd=, the name it blocked with). `before`
// is the client's error count before the ending reply was written.
void CountBlockEndError(Server& s, Client& c, uint64_t before) {
  if (c.reply.errors_written() == before) return;
  ++s.stats().total_error_replies;
  ++s.stats().error_counts[std::string(c.reply.last_error_prefix())];
  if (const CommandSpec* spec = s.commands().Find(c.last_cmd); spec != nullptr) {
    ++spec->stats.failed_calls;
  }
}

}  // namespace

void Server::ReleaseHeldPushes(Client& c) {
  if (c.pending_pushes.Readable() == 0) return;
  c.out.Append(c.pending_pushes);
  c.pending_pushes.Clear();
  ScheduleFlush(&c);
}

void Server::OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) {
  const uint64_t one[] = {client};
  OnWatchedKeyEvents(one, db, key, added);
}

void Server::OnWatchedKeyEvents(std::span<const uint64_t> clients, int /*db*/, std::string_view key,
                                bool added) {
  // One encoding for every watcher, RESP2 and RESP3 alike (`watchex <key> ADD|DEL`). A local
  // frame: pushing never runs another key event, but nothing here has to rely on it.
  PushFrame frame;
  frame.AppendHeader(3);
  frame.AppendRaw("$7\r\nwatchex\r\n");
  frame.AppendBulk(key);
  frame.AppendRaw(added ? "$3\r\nADD\r\n" : "$3\r\nDEL\r\n");
  frame.Seal();
  for (uint64_t id : clients) {
    Client* c = FindClient(id);
    if (c == nullptr) continue;
    Push(*c, [&frame](ReplyBuilder& rb) { frame.WriteTo(rb); });
  }
}

void Server::OnWatchDeadlineChanged(int64_t deadline_ms) {
  if (watch_timer_ == nullptr) return;
  if (deadline_ms == 0) {
    event_del(watch_timer_.get());
    return;
  }
  // Expired means now > deadline: fire one millisecond after it.
  int64_t delay = deadline_ms + 1 - NowMs();
  if (delay < 0) delay = 0;
  timeval tv{static_cast<time_t>(delay / 1000), static_cast<suseconds_t>((delay % 1000) * 1000)};
  event_add(watch_timer_.get(), &tv);
}

void Server::WatchTimerCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->ExpireWatchedKeys();
  s->AfterCallback();
}

void Server::ExpireWatchedKeys() {
  // Nothing expires during CLIENT PAUSE: UnpauseClients arms the timer again.
  if (any_pause()) return;
  keyspace_.command_clock.Update(NowMs());
  for (auto& [db_index, key] : watches_.DueExpiries(keyspace_.now_ms())) {
    if (db_index < db_count()) db(db_index).Peek(key);  // deletes it if expired, emitting DEL
  }
  int64_t next = watches_.next_deadline();
  if (next != 0) OnWatchDeadlineChanged(std::max(next, keyspace_.now_ms()));
}

Status Server::StartFencing() {
  Result<uint64_t> mark = FenceFile::Read(config_.tp_fence_file);
  if (!mark.ok()) return mark.status();
  FenceCounter& fences = owners_.fences();
  // Every token of the previous run is <= the mark (or, for tokens of a version without the
  // file, below the clock of this start): the next token is above both.
  fences.Raise(mark.value());
  fences.Raise(static_cast<uint64_t>(NowUs()));
  fences.set_store(&fence_file_);
  return Status::Ok();
}

void Server::BlockClient(Client* c, const std::vector<std::string_view>& keys, BlockKind* kind,
                         std::unique_ptr<BlockState> state, int64_t timeout_ms) {
  c->blocking.active = true;
  int64_t deadline = timeout_ms > 0 ? NowMs() + timeout_ms : 0;
  blocking_.Block(c->id, *c->db, keys, kind, std::move(state), deadline);
  if (BlockedClient* w = blocking_.Find(c->id); w != nullptr) w->since_ms = NowMs();
  // The timer is (re)armed for the earliest deadline in BeforeSleep.
}

void Server::ArmBlockTimer() {
  int64_t next = blocking_.next_deadline();
  if (block_timer_ == nullptr || next == block_timer_deadline_) return;
  block_timer_deadline_ = next;
  if (next == 0) {
    event_del(block_timer_.get());
    return;
  }
  int64_t delay = std::max<int64_t>(0, next - NowMs());
  timeval tv{static_cast<time_t>(delay / 1000), static_cast<suseconds_t>((delay % 1000) * 1000)};
  event_add(block_timer_.get(), &tv);
}

void Server::BlockTimerCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->ExpireBlockedClients();
  s->AfterCallback();
}

void Server::ExpireBlockedClients() {
  int64_t now = NowMs();
  keyspace_.command_clock.Update(now);
  block_timer_deadline_ = 0;  // fired: re-armed below for whatever is left
  for (std::unique_ptr<BlockedClient>& w : blocking_.TakeExpired(now)) {
    Client* c = FindClient(w->client);
    if (c == nullptr || c->closed) continue;
    w->kind->TimeoutReply(*w, c->reply);
    // Redis 7.0 counts a call that timed out (calls, time) without a latency sample or a
    // SLOWLOG entry; FinishBlock then finds nothing left to record.
    AccountEndedCall(blocked_calls_, c->id, /*latency_sample=*/false);
    FinishBlock(c);
  }
  ArmBlockTimer();
}

bool Server::UnblockClient(Client* c, bool with_error) {
  if (!c->blocking.active) return false;
  // A SHUTDOWN waiting for replicas ends only with the shutdown or SHUTDOWN ABORT (Redis's
  // CLIENT UNBLOCK does not reach it either).
  const std::vector<Client*>& sd = shutdown_wait_.waiters;
  if (std::find(sd.begin(), sd.end(), c) != sd.end()) return false;
  std::unique_ptr<BlockedClient> w = blocking_.Remove(c->id);
  AccountEndedCall(blocked_calls_, c->id, config_.latency_tracking);
  if (with_error) {
    const uint64_t before = c->reply.errors_written();
    c->reply.Error(err::kUnblocked);
    CountBlockEndError(*this, *c, before);
  } else if (w != nullptr) {
    w->kind->TimeoutReply(*w, c->reply);
  }
  FinishBlock(c);
  return true;
}

bool Server::RedirectBlockedClient(Client* c, std::string_view error) {
  if (!c->blocking.active || blocking_.Remove(c->id) == nullptr) return false;
  AccountEndedCall(blocked_calls_, c->id, /*latency_sample=*/false);
  const uint64_t before = c->reply.errors_written();
  c->reply.Error(error);
  if (c->reply.errors_written() != before) {
    ++stats_.total_error_replies;
    ++stats_.error_counts[std::string(c->reply.last_error_prefix())];
  }
  FinishBlock(c);
  return true;
}

void Server::UnblockAllClients(std::string_view error) {
  std::vector<Client*> blocked;
  for (auto& [id, c] : clients_) {
    if (c->blocking.active) blocked.push_back(c);
  }
  for (Client* c : blocked) {
    blocking_.Remove(c->id);
    AccountEndedCall(blocked_calls_, c->id, config_.latency_tracking);
    const uint64_t before = c->reply.errors_written();
    c->reply.Error(error);
    CountBlockEndError(*this, *c, before);
    c->set_flag(kClientCloseAfterReply, true);
    FinishBlock(c);
  }
}

void Server::FinishBlock(Client* c) {
  if (c == nullptr || c->closed) return;
  c->blocking.active = false;
  RecordBlockedCall(c);
  // The reply that ended the wait is out before the pushes its service caused.
  if (!c->has_flag(kClientExecuting)) ReleaseHeldPushes(*c);
  unblocked_.push_back(c);
  ScheduleFlush(c);
}

void Server::ServeReadyKeysLoop() {
  while (HasServeWork()) {
    for (auto& [db_index, key] : blocking_.TakeReady()) {
      if (db_index >= db_count()) continue;
      keyspace_.command_clock.Update(NowMs());
      auto serve = [this](BlockedClient& w, Database& d, std::string_view k) {
        Client* c = FindClient(w.client);
        if (c == nullptr || c->closed) return ServeResult::kNotServed;
        // The blocked command completes now, as the waiter's own: its reply precedes the
        // pushes it causes (Push holds them while kClientExecuting is set).
        bool was_executing = c->has_flag(kClientExecuting);
        c->set_flag(kClientExecuting, true);
        const uint64_t before = c->reply.errors_written();
        ServeResult r = w.kind->TryServe(w, d, k, c->reply);
        c->set_flag(kClientExecuting, was_executing);
        if (c->reply.errors_written() != before) {
          // Served with an error (XREADGROUP whose stream went away): counted as the blocked
          // command's, not blamed on whichever command runs next.
          CountBlockEndError(*this, *c, before);
          error_mark_ = stats_.total_error_replies;
        }
        return r;
      };
      for (std::unique_ptr<BlockedClient>& w : blocking_.ServeKey(db(db_index), key, serve)) {
        FinishBlock(FindClient(w->client));
      }
    }
    if (any_pause()) break;  // a served command paused the server
  }
}

void Server::SetLease(Client* c, int64_t ms) {
  c->session_state.lease_ms = ms;
  auto it = std::find(leased_.begin(), leased_.end(), c);
  if (ms > 0 && it == leased_.end()) leased_.push_back(c);
  if (ms == 0 && it != leased_.end()) leased_.erase(it);
}

void Server::FlushPending() {
  while (!pending_flush_.empty()) {
    std::vector<Client*> batch;
    batch.swap(pending_flush_);
    // The replicas' stream first: a write is on its way to every replica before its client
    // reads the reply, so a master killed right after replying has sent it (Redis queues a
    // replica after the client whose command fed it, and writes the newest first). Measured:
    // SIGKILL at the +OK lost the write on the replica 30 times in 30 with the reply first.
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
      Client* c = *it;
      if (c->kind() != ClientKind::kReplica) continue;
      c->set_flag(kClientPendingFlush, false);
      if (!c->closed) FlushClient(c);
    }
    // Then the others: on the I/O threads when they are on and the batch is big enough, or
    // here, newest first, as Redis does: the client whose command caused a fan-out queued its
    // own reply after its watchers' pushes, and gets it written before them.
    if (io_threads_ != nullptr && FlushThreaded(batch)) continue;
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
      Client* c = *it;
      if (c->kind() == ClientKind::kReplica) continue;  // written above
      c->set_flag(kClientPendingFlush, false);
      if (c->closed) continue;
      FlushClient(c);
    }
  }
}

void Server::AfterCallback() {
  tracking_.SendHeldInvalidations();  // normally sent after each command already (ProcessInput)
  // Temporary keys of sessions that ended while a script was busy go now (server/busy.cc).
  if (!busy_ended_owners_.empty()) ReleaseDeferredOwners();
  // The usual case, after nearly every read: nothing ready, nobody unblocked.
  if (!HasServeWork() && unblocked_.empty()) return;
  // Hand-offs can resume clients whose input makes more keys ready: run until both are done.
  do {
    ServeReadyKeys();
    // Resume clients whose block ended: run the input they pipelined meanwhile.
    std::vector<Client*> batch;
    batch.swap(unblocked_);
    for (Client* c : batch) {
      if (c->closed || c->blocking.active) continue;
      if (c->query.Readable() > 0) ProcessInput(c);
      if (!c->closed) ScheduleFlush(c);
    }
  } while (HasServeWork() || !unblocked_.empty());
}

void Server::BeforeSleep() {
  // A flush that kills a client (output limit, write error) releases its keys, which makes
  // keys ready and produces pushes: run until nothing is left, then free closed clients.
  do {
    AfterCallback();
    tracking_.BroadcastPending();  // BCAST: the keys this turn changed, once per prefix
    // The subsystems' turn: the AOF is written (and, for appendfsync always, synced) before
    // any reply goes out.
    const SubsystemHookList before_sleep = before_sleep_hooks_;
    for (size_t i = 0; i < before_sleep.n; ++i) before_sleep.items[i]->BeforeSleep();
    // A shutdown waiting for replicas ends in the turn that brought the last acknowledgement.
    if (shutdown_waiting()) CheckShutdownWait();
    FlushPending();
  } while (HasServeWork() || !unblocked_.empty() || !pending_flush_.empty());
  ArmBlockTimer();
  ArmSessionTimer();
  ReapClients();
}

}  // namespace redistp
