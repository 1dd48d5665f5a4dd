// redistp::client::ReadWriteLock — many readers or one writer, on temporary keys (what
// Redisson's RReadWriteLock and Curator's InterProcessReadWriteLock users look for), fair
// (arrival order between readers and writers), herd-free, with fencing tokens.
//
// Keys.
//   `<name>:gate`              a fair lock (BSETTP). A writer holds it for its whole hold; a
//                              reader holds it only for the moment it takes to register.
//   `<name>:reader:<id>`       one temporary key per reading ReadWriteLock object: the read hold.
//   `<name>:readers`           an ordinary set naming the reader keys, for the writer to find
//                              them (entries of readers that died are removed by the next
//                              writer, which sees their keys gone).
//
// Reading. One script creates the reader key and adds it to the set, but only when the gate is
// free (nobody writes or queues): uncontended, one round trip. Otherwise the reader queues for
// the gate, and once it holds it, registers the same way and passes the gate on at once.
// Writing. The writer takes the gate (BSETTP: in the queue with readers, in arrival order).
// Holding the gate stops new readers, so the readers already in can only leave; a script lists
// the live reader keys, and the writer watches them (WATCHEX) until the last is gone — each
// reader's release wakes only the writer. A write release (DELTP of the gate) hands the gate to
// the next in the queue, one waiter; a reader there passes it on to the next when it has
// registered, so a run of queued readers enters one after another, each woken once.
//
// Fencing. LockOptions::fence gives a write hold the gate's token and a read hold its reader
// key's token (both from the server's one counter: a writer's token is greater than that of
// every reader that entered before it).
//
// Limits. One object holds one mode at a time: no upgrade (a reader asking for the write lock
// would wait for itself) and no downgrade; Acquire* while holding fails. Readers that passed
// the gate before a writer queued keep reading until they release: a writer waits for them. A
// reader whose connection dies leaves a stale set entry until the next writer cleans it. While
// queued, the connection is blocked in BSETTP: give a waiting lock a Client of its own.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "client/lock.h"
#include "client/redistp_client.h"

namespace redistp::client {

class ReadWriteLock {
 public:
  enum class Mode { kNone, kRead, kWrite };
  using AcquireCallback = Lock::AcquireCallback;
  using ReleaseCallback = Lock::ReleaseCallback;
  using LostCallback = Lock::LostCallback;

  // LockOptions::mode is ignored (the gate is always fair); value and fence apply.
  ReadWriteLock(Client& client, std::string name, LockOptions options = {});
  // Releases a hold and abandons an acquisition without calling its callback.
  ~ReadWriteLock();
  ReadWriteLock(const ReadWriteLock&) = delete;
  ReadWriteLock& operator=(const ReadWriteLock&) = delete;

  // Shared hold; same callback rules as Lock::Acquire.
  void AcquireRead(std::chrono::milliseconds timeout, AcquireCallback cb);
  void TryAcquireRead(AcquireCallback cb);
  // Exclusive hold: no reader and no other writer while it lasts.
  void AcquireWrite(std::chrono::milliseconds timeout, AcquireCallback cb);
  void TryAcquireWrite(AcquireCallback cb);
  // Ends the hold (either mode) or cancels an acquisition (kCancelled, `cb` gets false).
  void Release(ReleaseCallback cb = {});
  // A held read or write lock was lost (its key deleted by someone else, connection lost).
  void SetLostCallback(LostCallback cb);

  Mode held_mode() const;
  bool held() const { return held_mode() != Mode::kNone; }
  bool acquiring() const;
  long long fence_token() const;
  const std::string& name() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace redistp::client
