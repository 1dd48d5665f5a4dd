// Helpers shared by the tests of the lock recipes (semaphore, read/write lock, multi-lock):
// run an acquisition to its end, and count which clients the server woke.
#pragma once

#include <event2/event.h>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "client/lock.h"
#include "client/redistp_client.h"
#include "test_server.h"

namespace redistp::client::testing {

// Starts an acquisition with `start` and runs the loop until its callback (20 s at most).
inline AcquireStatus RunAcquire(event_base* base,
                                const std::function<void(Lock::AcquireCallback)>& start,
                                std::string* error = nullptr) {
  std::optional<AcquireStatus> status;
  start([&status, error](AcquireStatus s, const std::string& e) {
    status = s;
    if (error != nullptr) *error = e;
  });
  RunUntil(
      base, [&status] { return status.has_value(); }, std::chrono::seconds(20));
  return status.value_or(AcquireStatus::kFailed);
}

// Snapshot of how many frames each client has received; Woken() says how many received any
// since the snapshot — the number of clients the server woke.
class WakeCounter {
 public:
  explicit WakeCounter(std::vector<Client*> clients) : clients_(std::move(clients)) { Reset(); }
  void Reset() {
    base_.clear();
    for (Client* c : clients_) base_.push_back(c->frames_received());
  }
  int Woken() const {
    int n = 0;
    for (size_t i = 0; i < clients_.size(); ++i) n += clients_[i]->frames_received() != base_[i];
    return n;
  }

 private:
  std::vector<Client*> clients_;
  std::vector<uint64_t> base_;
};

}  // namespace redistp::client::testing
