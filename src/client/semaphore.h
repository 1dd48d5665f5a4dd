// redistp::client::Semaphore — a counting semaphore of N permits on temporary keys (what
// Redisson's RSemaphore and Curator's InterProcessSemaphoreV2 users look for): at most N holders
// at a time, served in arrival order, a crashed holder's permit freed at once.
//
// Keys. Permit i is the temporary key `<name>:permit:<i>` (i = 0..N-1); holding a permit is
// owning one of them. `<name>:queue` is a fair lock (BSETTP) that orders the waiters.
//
// Acquiring. One script (EVAL) first takes any free permit with SETTP, but only when nobody
// queues (`<name>:queue` absent), so a newcomer never overtakes a waiter: uncontended, an
// acquisition is one round trip. Otherwise the semaphore takes its turn in the queue; the
// waiter at the head (the holder of `<name>:queue`) runs the script again and, if every permit
// is taken, watches the N permit keys (WATCHEX). A release (DELTP of a permit) therefore wakes
// exactly one client — the head, the only one watching — which takes the permit and passes the
// queue to the next waiter (DELTP `<name>:queue`, a BSETTP hand-off that wakes only that one).
// No herd: the other waiters sit in the server's BSETTP queue and hear nothing.
//
// Holding. The held permit is watched like a Lock (lock.h): its lost callback fires when the
// permit key is deleted by someone else or dies with the connection. With
// SemaphoreOptions::fence each permit carries a fencing token (SETTP ... FENCE).
//
// Limits. One Semaphore object holds at most one permit (use several objects for several
// permits). Every participant must agree on N: a client that believes in fewer permits never
// takes the others, one that believes in more takes permits that do not exist for the rest.
// While a waiter queues, its connection is blocked in BSETTP: give a waiting Semaphore a Client
// of its own. The script uses keys it computes from `<name>`, which a single server allows.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "client/lock.h"
#include "client/redistp_client.h"

namespace redistp::client {

struct SemaphoreOptions {
  // The permit keys' value; default "<hostname>:<pid>:<random hex>". Keep it unique per
  // object: after a connection loss under a session, the permit whose value is this one is
  // taken to be the one a lost script took.
  std::string value;
  bool fence = false;  // a fencing token per permit hold: fence_token()
};

class Semaphore {
 public:
  using AcquireCallback = Lock::AcquireCallback;
  using ReleaseCallback = Lock::ReleaseCallback;
  using LostCallback = Lock::LostCallback;

  // `permits` must be at least 1 (else every acquisition fails).
  Semaphore(Client& client, std::string name, int permits, SemaphoreOptions options = {});
  // Releases a held permit and abandons an acquisition without calling its callback.
  ~Semaphore();
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  // Waits up to `timeout` (Lock::kForever: no limit) for a permit; same callback rules as
  // Lock::Acquire.
  void Acquire(std::chrono::milliseconds timeout, AcquireCallback cb);
  // A permit now or kBusy (also when permits are free but others queue for them).
  void TryAcquire(AcquireCallback cb);
  // Held: gives the permit back (DELTP). Acquiring: cancels (kCancelled), `cb` gets false.
  void Release(ReleaseCallback cb = {});
  void SetLostCallback(LostCallback cb);

  bool held() const;
  bool acquiring() const;
  int permits() const;
  // The index of the held permit (0..permits-1), else -1.
  int permit() const;
  long long fence_token() const;
  const std::string& name() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace redistp::client
