// Busy scripts: serving the other connections while a long script runs.
//
// Model. A script runs inside its caller's command, deep in a libevent callback, and libevent's
// loop is not re-entrant. Once the script has run for busy-reply-threshold, the script engine's
// instruction hook opens a Server::BusyPeriod (BeginBusyScript), calls its Serve
// (ProcessEventsWhileBusy) at every hook, and closes it when the script ends (EndBusyScript);
// BusyPeriod is the only way in, so no caller can leave the server busy. The pass is a
// miniature loop turn of our own: an epoll set made
// at BeginBusyScript holds the listeners and every connection but the caller; each pass waits
// for nothing (timeout 0), accepts, reads and runs what arrived through the server's ordinary
// accept and read paths (OnAccept, OnReadable: the one admission gate answers BUSY to every
// command without allow-busy), and writes the replies. Building the set costs one walk of the
// clients per busy script; a pass costs one epoll_wait when nothing is ready, else up to
// kMaxRounds rounds of at most kMaxEvents ready connections each.
//
// Invariants while busy:
//   - the caller is never read, written or closed: it is not in the epoll set and the write
//     pass skips it (its pending flush stays queued), so its script and its reply stay intact;
//     so is a protected client (kClientProtected: the DEBUG LOADAOF whose replay runs the
//     script);
//     a caller whose peer left is found closed by the ordinary loop after the script;
//   - the keyspace changes only through the script: blocked clients are not served
//     (HasServeWork), there is no eviction (the dispatcher skips the memory check) and no cron,
//     and a session that ends (disconnect, QUIT, RESET) releases its temporary keys only after
//     the script (busy_ended_owners_, released by the next AfterCallback);
//   - each pass thaws the command clock for the clients it serves, and the script's frozen
//     time is back when the pass ends (CommandClock::Thaw);
//   - no Client object is freed: closed clients are reaped by BeforeSleep, after the script.
//
// Why a pass of its own and not a mode of the main loop: the script's C and Lua frames sit on
// the stack of the callback that runs its command, so the main loop could only take over if
// the script were suspended on a stack of its own (Lua 5.1 cannot yield from a hook or across
// redis.call). And the main loop's turn does what must not happen while a script runs: cron
// (active expiry, eviction, client timeouts, save points), timers (BSETTP and watch
// deadlines), serving blocked clients, the subsystems' BeforeSleep (the AOF would be written
// in the middle of the script's MULTI/EXEC). The pass runs exactly the accept, read, dispatch
// and write steps, which is Redis's processEventsWhileBlocked behaviour too.
#include <sys/epoll.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "protocol/errors.h"
#include "server/server.h"

namespace redistp {
namespace {

// Epoll entries carry a client id, or this bit plus the listener's index.
constexpr uint64_t kListenerTag = 1ULL << 63;
// Ready connections handled per pass, so a pass stays short however many clients there are.
constexpr int kMaxEvents = 128;
// Rounds per pass at most (each ends with its write pass).
constexpr int kMaxRounds = 4;

}  // namespace

std::string_view Server::BusyError() const {
  return busy_is_eval_ ? err::kBusyEval : err::kBusyFunction;
}

void Server::BusyWatch(Client* c, bool add) {
  // The master link is not read while a script is busy: its commands would be refused with
  // BUSY and lost; its stream waits in the socket and is applied once the script ends (Redis
  // accumulates it the same way).
  if (busy_poll_fd_ < 0 || c == busy_caller_ || c->closed || c->pseudo() ||
      c->has_flag(kClientProtected) || c->kind() == ClientKind::kMasterLink) {
    return;
  }
  // Readable always; writable only while replies wait for room in the socket.
  epoll_event ev{};
  ev.events = EPOLLIN | (c->write_armed ? EPOLLOUT : 0u);
  ev.data.u64 = c->id;
  epoll_ctl(busy_poll_fd_, add ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, c->fd, &ev);
}

void Server::BeginBusyScript(Client* caller, bool is_eval) {
  busy_caller_ = caller;
  busy_is_eval_ = is_eval;
  // A load's pass (server/loading.cc) already watches every connection: a script of the AOF
  // it replays serves through the same set (its caller, the AOF's client, is in no set).
  if (busy_poll_fd_ >= 0) return;
  busy_poll_fd_ = epoll_create1(EPOLL_CLOEXEC);
  if (busy_poll_fd_ < 0) {
    // Without a poll set the server answers nobody until the script ends (as before busy).
    log_.Log(LogLevel::kWarning, "Cannot serve clients during the busy script: %s",
             std::strerror(errno));
    return;
  }
  for (size_t i = 0; i < listeners_.size(); ++i) {
    epoll_event ev{};
    ev.events = EPOLLIN;
    ev.data.u64 = kListenerTag | i;
    epoll_ctl(busy_poll_fd_, EPOLL_CTL_ADD, listeners_[i]->fd, &ev);
  }
  for (auto& [id, c] : clients_) BusyWatch(c, true);
}

void Server::EndBusyScript() {
  busy_caller_ = nullptr;
  if (loading_owns_poll_) return;  // the load's set, closed when the load ends
  if (busy_poll_fd_ >= 0) close(busy_poll_fd_);
  busy_poll_fd_ = -1;
  busy_caller_ = nullptr;
}

void Server::ProcessEventsWhileBusy() {
  if (busy_poll_fd_ < 0) return;
  // A few rounds while there is work, as Redis does, so that a connection accepted in one
  // round has its first command read in the next.
  for (int round = 0; round < kMaxRounds; ++round) {
    if (!BusyRound()) break;
  }
}

bool Server::BusyRound() {
  epoll_event events[kMaxEvents];
  int n = epoll_wait(busy_poll_fd_, events, kMaxEvents, 0);
  const bool reads_waiting = read_ready_next_ < read_ready_.size();
  if (n <= 0 && !reads_waiting) return false;
  // The clients served now run their commands at their own time; the script's frozen time is
  // back when the round ends.
  CommandClock::Scope thawed = keyspace_.command_clock.Thaw();
  // io-threads-do-reads: clients read in the caller's read pass, after it, hold their input in
  // their buffers, where the poll cannot see it (server/threaded_io.cc).
  if (reads_waiting) RunReadyInput();
  for (int i = 0; i < n; ++i) {
    const uint64_t tag = events[i].data.u64;
    if ((tag & kListenerTag) != 0) {
      const size_t index = tag & ~kListenerTag;
      if (index >= listeners_.size()) continue;
      // The connections accepted now have the next ids: watch them too.
      const uint64_t first_new = next_client_id_;
      OnAccept(listeners_[index]->fd, listeners_[index]->unix_socket, listeners_[index]->tls);
      for (auto it = clients_.lower_bound(first_new); it != clients_.end(); ++it) {
        BusyWatch(it->second, true);
      }
      continue;
    }
    Client* c = FindClient(tag);
    if (c == nullptr || c->closed || c == busy_caller_ || c->has_flag(kClientProtected)) continue;
    if ((events[i].events & EPOLLOUT) != 0) {
      FlushClient(c);
      if (!c->write_armed) BusyWatch(c, false);  // drained: readable only again
    }
    if ((events[i].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) != 0 && !c->closed) OnReadable(c);
  }
  // The write pass: every client with output but the caller, whose queue entry is kept.
  std::vector<Client*> batch;
  batch.swap(pending_flush_);
  for (Client* c : batch) {
    if (c == busy_caller_ || c->has_flag(kClientProtected)) {
      pending_flush_.push_back(c);
      continue;
    }
    c->set_flag(kClientPendingFlush, false);
    if (c->closed) continue;
    FlushClient(c);
    // A socket that is full is watched for writability until it drains.
    if (!c->closed && c->write_armed) BusyWatch(c, false);
  }
  return true;
}

void Server::ReleaseDeferredOwners() {
  if (busy_caller_ != nullptr) return;
  std::vector<std::pair<uint64_t, ReleaseCause>> owners;
  owners.swap(busy_ended_owners_);
  keyspace_.command_clock.Update(NowMs());
  for (auto [id, cause] : owners) ReleaseOwner(id, cause);
}

}  // namespace redistp
