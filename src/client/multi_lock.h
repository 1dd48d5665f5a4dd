// redistp::client::MultiLock — all of several locks or none (what Redisson's RedissonMultiLock
// and Curator's InterProcessMultiLock users look for).
//
// Model. A MultiLock is a Lock (lock.h) per name, all on one Client and with the same options.
// Acquire() takes them one after another in one fixed order — the names sorted bytewise, with
// duplicates removed — whatever order the program gave: two MultiLocks over overlapping names
// then always meet on their first common name, so neither can hold one lock while waiting for
// a lock the other holds (no deadlock). Each lock waits in its own key's queue (fair flavour:
// BSETTP, herd-free), within what is left of the one timeout. When a lock cannot be taken
// (timeout, TryAcquire busy, an error, Release()), the ones already taken are released.
//
// Holding. Release() releases every lock at once (one pipeline of DELTP). If any one lock is
// lost (its key deleted by someone else, the connection lost), the others are released and the
// lost callback fires once: a MultiLock is held whole or not at all. fence_tokens() gives each
// lock's token (LockOptions::fence), in the sorted order of names().
//
// Limits. Taking N locks one by one costs N round trips even when all are free; a waiting fair
// MultiLock blocks its connection (one BSETTP at a time): give it a Client of its own.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/lock.h"
#include "client/redistp_client.h"

namespace redistp::client {

class MultiLock {
 public:
  using AcquireCallback = Lock::AcquireCallback;
  using ReleaseCallback = Lock::ReleaseCallback;
  using LostCallback = Lock::LostCallback;

  MultiLock(Client& client, std::vector<std::string> names, LockOptions options = {});
  // Releases what is held and abandons an acquisition without calling its callback.
  ~MultiLock();
  MultiLock(const MultiLock&) = delete;
  MultiLock& operator=(const MultiLock&) = delete;

  // Same callback rules as Lock::Acquire; kAcquired only when every lock is held.
  void Acquire(std::chrono::milliseconds timeout, AcquireCallback cb);
  // Each lock with TryAcquire, in order; kBusy (and nothing held) if any one is taken.
  void TryAcquire(AcquireCallback cb);
  // Held: releases all; `cb` gets true when every key was deleted. Acquiring: cancels.
  void Release(ReleaseCallback cb = {});
  void SetLostCallback(LostCallback cb);

  bool held() const;
  bool acquiring() const;
  // The names in acquisition order (sorted, without duplicates).
  const std::vector<std::string>& names() const;
  // Each lock's fencing token, in names() order (0s when not held or without fence).
  std::vector<long long> fence_tokens() const;

 private:
  struct Impl;
  std::shared_ptr<Impl> impl_;
};

}  // namespace redistp::client
