// redistp::client::Lock — a distributed lock that is a temporary key: it lives exactly as long
// as the connection that took it (or, with ClientOptions::session_grace, the client's session:
// a reconnect that resumes it keeps the lock), so a crashed holder frees it at once.
//
// Two flavours (README, "Lock recipes"):
//   kFair           BSETTP name value timeout. Waiters queue on the server in arrival order and
//                   exactly one is woken per release: no herd. While a fair acquisition waits,
//                   its connection is blocked on the server: other commands on the same Client
//                   are answered only after it ends, so give a fair Lock a Client of its own.
//   kOpportunistic  WATCHEX name, then SETTP name value; on 0, wait for a DEL (or, after a
//                   reconnect, a NOEXIST) and try again. Whoever asks first after a release
//                   wins; every waiter sends one SETTP per release. The connection stays free.
// Release() sends DELTP, which deletes the key only if this connection still owns it.
// Re-entrant locks (LockOptions::reentrant) add a hold per Acquire() on a held lock (SETTP ...
// REENTRANT, answered at once with the first hold's token) and keep the key until the matching
// number of Release() calls (hold_count()).
//
// Never silently held. A lock is held from the reply that created its key until Release() or
// until the lock is lost, which the lost callback reports: the connection ended (its temporary
// keys died with it; a reconnect does not bring them back), the session was lost (with a
// session, a connection loss alone is not a loss: see redistp_client.h), the client was
// closed, or the key
// was deleted by someone else (DEL, FLUSHDB, RENAME...). Both flavours watch the key while they
// hold it (the opportunistic one from before its SETTP; every other hold — a fair BSETTP, a
// TryAcquire — registers WATCHEX as soon as the acquisition reply arrives). A watch that starts
// after the acquisition could miss a deletion that happened before it was registered, if the
// key was then re-created by someone else; so whenever the watch finds the key present at
// registration (also after a reconnect), the lock asks OBJECT OWNER and CLIENT ID in one
// pipeline and reports the loss when the key is no longer its own.
//
// Edge cases. An acquisition that ends (timeout, Release(), destruction) while its SETTP/BSETTP
// is still on the wire cannot be recalled: if that command later creates the key, the lock
// deletes it again with DELTP at once — unless a new Acquire() is waiting by then, which adopts
// it. A Lock sends at most one SETTP/BSETTP at a time, so a fair lock never queues behind itself.
// A connection lost while acquiring is not a failure: the command is sent again on the next
// connection (queued until then), within the same timeout. A lock never waits for its own
// owner: the first refusal of every acquisition (and every early 0 from BSETTP, which the
// server answers at once to an owner asking for its own key) is checked with OBJECT OWNER /
// OBJECT FENCE / CLIENT ID. The key being this owner's means, after an acquisition command
// lost with a session's connection, that the command ran (the lock is held), and otherwise
// that another Lock object of this owner holds it (kFailed, "already holds"); so a retry after
// such a loss is sent without REENTRANT, never counting a hold twice.
//
// Callbacks run on the client's event loop. The Client must outlive the Lock.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "client/redistp_client.h"

namespace redistp::client {

enum class LockMode { kFair, kOpportunistic };

enum class AcquireStatus {
  kAcquired,   // the lock is held
  kBusy,       // TryAcquire(): someone else holds it
  kTimedOut,   // Acquire(): not obtained within the timeout
  kCancelled,  // Release() was called while acquiring
  kFailed,     // an error: see the error text (server error, client closed, misuse)
};
const char* AcquireStatusName(AcquireStatus status);

struct LockOptions {
  LockMode mode = LockMode::kFair;
  // The lock key's value; default "<hostname>:<pid>:<random hex>" (shown by GET name).
  std::string value;
  // Ask for a fencing token (SETTP/BSETTP ... FENCE); read it with fence_token().
  bool fence = false;
  // Re-entrant (SETTP/BSETTP ... REENTRANT): Acquire()/TryAcquire() on a held lock adds a hold
  // at once (never waits for itself), and the key goes only when Release() was called once
  // per hold (hold_count()). The count is the owner's (connection or session) on the server,
  // so two re-entrant Lock objects of one Client on one name share the key.
  bool reentrant = false;
};

class Lock {
 public:
  using AcquireCallback = std::function<void(AcquireStatus, const std::string& error)>;
  using ReleaseCallback = std::function<void(bool deleted)>;
  using LostCallback = std::function<void(const std::string& reason)>;
  static constexpr std::chrono::milliseconds kForever = std::chrono::milliseconds::max();

  Lock(Client& client, std::string name, LockOptions options = {});
  // Releases the lock if held (DELTP) and abandons an acquisition without calling its callback.
  ~Lock();
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

  // Waits up to `timeout` (kForever: no limit) for the lock. `cb` runs once, on the loop —
  // or at once with kFailed when the lock is already held or being acquired or the client is
  // closed, and with kTimedOut for a fair lock given less than 1 ms.
  void Acquire(std::chrono::milliseconds timeout, AcquireCallback cb);
  // One SETTP: kAcquired or kBusy (same flavours, same callback rules).
  void TryAcquire(AcquireCallback cb);
  // Held: sends DELTP; `cb` gets whether the key was deleted (false if the server no longer
  // had it as ours). Acquiring: cancels (the acquire callback gets kCancelled) and `cb` gets
  // false at once. Idle: `cb` gets false at once.
  void Release(ReleaseCallback cb = {});
  // Called when a held lock is lost (see above), with the reason.
  void SetLostCallback(LostCallback cb);

  bool held() const;
  bool acquiring() const;
  // The fencing token of the current hold (LockOptions::fence), else 0.
  long long fence_token() const;
  // This object's holds: 0 when not held, 1 after an acquisition, n after n-1 re-entries.
  int hold_count() const;
  const std::string& name() const;
  const std::string& value() const;

 private:
  friend class Semaphore;
  friend class ReadWriteLock;
  struct Impl;
  // Makes this idle lock the holder of its key, which the caller's own command (a script that
  // ran SETTP on this client) just created, with fencing token `fence` (0: none): from here on
  // it is watched, reported lost and released like a key this lock took itself.
  void Adopt(long long fence);
  static void Send(Client& client, std::vector<std::string> argv, Client::ReplyCallback cb);
  std::shared_ptr<Impl> impl_;
};

}  // namespace redistp::client
