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

// How many connections CLIENT LIST shows blocked in BSETTP (in some queue).
inline int BlockedInBsettp(const Reply& client_list) {
  int n = 0;
  size_t pos = 0;
  const std::string& s = client_list.str;
  while (pos < s.size()) {
    size_t end = s.find('\n', pos);
    if (end == std::string::npos) end = s.size();
    const std::string line = s.substr(pos, end - pos);
    if (line.find(" flags=b") != std::string::npos &&
        line.find(" cmd=bsettp") != std::string::npos) {
      ++n;
    }
    pos = end + 1;
  }
  return n;
}

// Runs `base` in short slices until `done()` (checked between slices, so it may query the server
// through another connection), at most `slices` times; returns done().
inline bool RunSlicesUntil(event_base* base, const std::function<bool()>& done, int slices = 400) {
  for (int i = 0; i < slices; ++i) {
    if (done()) return true;
    RunFor(base, std::chrono::milliseconds(5));
  }
  return done();
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
