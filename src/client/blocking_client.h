// BlockingClient and BlockingLock: the client and the lock for programs without an event loop.
//
// Model. A BlockingClient owns a private event_base and an asynchronous Client on it. Each call
// (Connect, Command, Watch, Poll, and the BlockingLock calls) runs that loop in the calling
// thread until its own answer is in, then returns; nothing runs between calls. Watch events,
// lost-lock reports and reconnects are therefore delivered during calls — a program that only
// waits calls Poll(). One BlockingClient belongs to one thread at a time; use one per thread.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/lock.h"
#include "client/redistp_client.h"

struct event_base;

namespace redistp::client {

class BlockingClient {
 public:
  static constexpr std::chrono::milliseconds kForever = std::chrono::milliseconds::max();

  explicit BlockingClient(ClientOptions options);
  ~BlockingClient();
  BlockingClient(const BlockingClient&) = delete;
  BlockingClient& operator=(const BlockingClient&) = delete;

  // Connects and waits until the connection is ready (true) or an attempt failed or
  // options.connect_timeout passed (false, error() says why).
  bool Connect();
  // Sends one command and waits for its reply; a local kErrTimeout error after `timeout`.
  Reply Command(std::vector<std::string> argv, std::chrono::milliseconds timeout = kForever);
  // Subscribes and waits until the first state was delivered to `cb` (or 5 s passed).
  Client::WatchId Watch(const std::string& key, Client::WatchCallback cb);
  void Unwatch(Client::WatchId id);
  // Runs the loop for `timeout`: delivers watch events, lost-lock reports, reconnects.
  void Poll(std::chrono::milliseconds timeout);
  // Runs the loop until `done()` or `timeout`; returns done(). Stops early, returning false,
  // when nothing is left that could ever make progress (no connection, no timer).
  bool RunUntil(const std::function<bool()>& done, std::chrono::milliseconds timeout);

  Client& async() { return *client_; }
  event_base* base() const { return base_; }
  const std::string& error() const { return error_; }

 private:
  event_base* base_;
  std::unique_ptr<Client> client_;
  Client::ListenerId listener_;
  std::string error_;
  bool connect_failed_ = false;
};

class BlockingLock {
 public:
  BlockingLock(BlockingClient& client, std::string name, LockOptions options = {});
  // Releases the lock if held, waiting for the DELTP reply.
  ~BlockingLock();
  BlockingLock(const BlockingLock&) = delete;
  BlockingLock& operator=(const BlockingLock&) = delete;

  // Waits up to `timeout` (Lock::kForever: no limit). kFailed: see error().
  AcquireStatus Acquire(std::chrono::milliseconds timeout);
  AcquireStatus TryAcquire();
  // True when the lock was held and its key deleted.
  bool Release();
  // Runs during any call on the BlockingClient (Poll included).
  void SetLostCallback(Lock::LostCallback cb) { lock_.SetLostCallback(std::move(cb)); }

  bool held() const { return lock_.held(); }
  long long fence_token() const { return lock_.fence_token(); }
  int hold_count() const { return lock_.hold_count(); }
  const std::string& error() const { return error_; }
  Lock& async() { return lock_; }

 private:
  AcquireStatus Wait(const std::function<void(Lock::AcquireCallback)>& start);

  BlockingClient& client_;
  Lock lock_;
  std::string error_;
};

}  // namespace redistp::client
