// Coordination runtime: the server side of temporary keys, existence watches and BSETTP.
//
// The spec's ordering promise — "a watcher receives the notification of a change before the
// reply to any command it sends after that change. For the connection that made the change,
// the notification follows that command's reply (after the EXEC reply for MULTI)" — is kept by
// where push frames go:
//   - a client that is not executing gets the frame appended to its output at once (its output
//     only ever holds complete replies, so the frame lands between replies, never inside one);
//     the client is flushed at the end of the callback;
//   - the client whose command caused the change is executing: its frames wait in
//     pending_pushes and are appended after that command's reply (ProcessInput does it).
// Nothing here closes a client synchronously while another command runs: output-limit checks
// happen when pending clients are flushed at the end of the callback.
//
// BSETTP: a blocked client keeps reading (its lease renews) but executes nothing. Hand-offs are
// served from the ready list after each command and at the end of each callback; a resumed
// client's pipelined input is processed at the end of the callback, never nested inside
// another client's command.
#include <event2/event.h>

#include <algorithm>

#include "protocol/errors.h"
#include "server/server.h"

namespace redistp {

void Server::OnWatchedKeyEvent(uint64_t client, int /*db*/, std::string_view key, bool added) {
  Client* c = FindClient(client);
  if (c == nullptr || c->closed) return;
  // Frames are built with the client's own protocol: '>' for RESP3, an array for RESP2.
  ReplyBuffer& dst = c->has_flag(kClientExecuting) ? c->pending_pushes : c->out;
  ReplyBuilder rb(&dst);
  rb.SetResp(c->reply.resp());
  rb.Push(3);
  rb.Bulk("watchex");
  rb.Bulk(key);
  rb.Bulk(added ? "ADD" : "DEL");
  if (!c->has_flag(kClientExecuting)) ScheduleFlush(c);
}

void Server::OnWatchDeadlineChanged(int64_t deadline_ms) {
  if (watch_timer_ == nullptr) return;
  if (deadline_ms == 0) {
    event_del(watch_timer_);
    return;
  }
  // Expired means now > deadline: fire one millisecond after it.
  int64_t delay = deadline_ms + 1 - NowMs();
  if (delay < 0) delay = 0;
  timeval tv{static_cast<time_t>(delay / 1000), static_cast<suseconds_t>((delay % 1000) * 1000)};
  event_add(watch_timer_, &tv);
}

void Server::WatchTimerCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->ExpireWatchedKeys();
  s->AfterCallback();
}

void Server::ExpireWatchedKeys() {
  keyspace_.now_ms = NowMs();
  for (auto& [db_index, key] : watches_.DueExpiries(keyspace_.now_ms)) {
    if (db_index < db_count()) db(db_index).Peek(key);  // deletes it if expired, emitting DEL
  }
  int64_t next = watches_.next_deadline();
  if (next != 0) OnWatchDeadlineChanged(std::max(next, keyspace_.now_ms));
}

void Server::BlockForKey(Client* c, std::string_view key, std::string value, bool fence,
                         int64_t timeout_ms) {
  c->blocked = true;
  blocking_.Enqueue(c->db_index, key, BlockedWaiter{c->id, std::move(value), fence},
                    c->db->FindRaw(key));
  c->block_deadline_ms = timeout_ms > 0 ? NowMs() + timeout_ms : 0;
  if (timeout_ms > 0) {
    c->block_timer = evtimer_new(base_, &Server::BlockTimerCallback, c);
    timeval tv{static_cast<time_t>(timeout_ms / 1000),
               static_cast<suseconds_t>((timeout_ms % 1000) * 1000)};
    event_add(c->block_timer, &tv);
  }
}

void Server::BlockTimerCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* c = static_cast<Client*>(arg);
  Server* s = c->server;
  s->UnblockClient(c, false);
  s->AfterCallback();
}

bool Server::UnblockClient(Client* c, bool with_error) {
  if (!c->blocked) return false;
  blocking_.Leave(c->id);
  if (c->block_timer != nullptr) {
    event_free(c->block_timer);
    c->block_timer = nullptr;
  }
  c->blocked = false;
  c->block_deadline_ms = 0;
  if (with_error) {
    c->reply.Error(err::kUnblocked);
  } else {
    c->reply.Int(0);
  }
  unblocked_.push_back(c);
  ScheduleFlush(c);
  return true;
}

void Server::ServeReadyKeys() {
  while (blocking_.has_ready()) {
    for (auto& [db_index, key] : blocking_.TakeReady()) {
      if (db_index >= db_count()) continue;
      Database& d = db(db_index);
      keyspace_.now_ms = NowMs();
      if (d.Peek(key) != nullptr) continue;  // re-created meanwhile: waiters keep waiting
      BlockedWaiter w;
      while (blocking_.PopHead(db_index, key, &w)) {
        Client* c = FindClient(w.client);
        if (c == nullptr || c->closed || !c->blocked) continue;
        if (c->block_timer != nullptr) {
          event_free(c->block_timer);
          c->block_timer = nullptr;
        }
        c->blocked = false;
        c->block_deadline_ms = 0;
        // The waiter "made" this change: its reply precedes its own pushes.
        bool was_executing = c->has_flag(kClientExecuting);
        c->set_flag(kClientExecuting, true);
        c->reply.Int(owners_.CreateOwned(d, key, w.value, c->id, w.fence));
        // The hand-off is the end of the waiter's BSETTP: replayed as the SETTP it became.
        if (w.fence) {
          propagator_.Emit(db_index, {"SETTP", key, w.value, "FENCE"});
        } else {
          propagator_.Emit(db_index, {"SETTP", key, w.value});
        }
        c->set_flag(kClientExecuting, was_executing);
        if (!was_executing && c->pending_pushes.Readable() > 0) {
          c->out.Append(c->pending_pushes);
          c->pending_pushes.Clear();
        }
        unblocked_.push_back(c);
        ScheduleFlush(c);
        break;  // one removal, one hand-off
      }
    }
  }
}

void Server::SetLease(Client* c, int64_t ms) {
  c->lease_ms = ms;
  auto it = std::find(leased_.begin(), leased_.end(), c);
  if (ms > 0 && it == leased_.end()) leased_.push_back(c);
  if (ms == 0 && it != leased_.end()) leased_.erase(it);
}

void Server::FlushPending() {
  while (!pending_flush_.empty()) {
    std::vector<Client*> batch;
    batch.swap(pending_flush_);
    // Newest first, as Redis does: the client whose command caused a fan-out queued its own
    // reply after its watchers' pushes, and gets it written before them.
    for (auto it = batch.rbegin(); it != batch.rend(); ++it) {
      Client* c = *it;
      c->set_flag(kClientPendingFlush, false);
      if (c->closed) continue;
      FlushClient(c);
    }
  }
}

void Server::AfterCallback() {
  // Hand-offs can resume clients whose input makes more keys ready: run until both are done.
  do {
    ServeReadyKeys();
    // Resume clients whose block ended: run the input they pipelined meanwhile.
    std::vector<Client*> batch;
    batch.swap(unblocked_);
    for (Client* c : batch) {
      if (c->closed || c->blocked) continue;
      if (c->query.Readable() > 0) ProcessInput(c);
      if (!c->closed) ScheduleFlush(c);
    }
  } while (blocking_.has_ready() || !unblocked_.empty());
}

void Server::BeforeSleep() {
  // A flush that kills a client (output limit, write error) releases its keys, which makes
  // keys ready and produces pushes: run until nothing is left, then free closed clients.
  do {
    AfterCallback();
    FlushPending();
  } while (blocking_.has_ready() || !unblocked_.empty() || !pending_flush_.empty());
  ReapClients();
}

}  // namespace redistp
