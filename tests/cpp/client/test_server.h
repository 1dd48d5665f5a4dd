// Test support for the client library: a real redis-tp server on a free loopback port, and an
// event-loop runner with a deadline.
//
// The server binary is $REDISTP_SERVER if set, else redis-server next to the test binary
// (build/<flavour>/client-tests runs build/<flavour>/redis-server). It is started with no
// persistence, bound to 127.0.0.1 only, dies with the test process (PR_SET_PDEATHSIG) and is
// stopped in TearDown.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>

struct event_base;

namespace redistp::client::testing {

std::string ServerBinary();
// A TCP port on 127.0.0.1 that was free a moment ago.
int FreePort();

class TestServer {
 public:
  TestServer() = default;
  ~TestServer();
  TestServer(const TestServer&) = delete;
  TestServer& operator=(const TestServer&) = delete;

  // Starts the server (on `port`, or a free one when 0) and waits until it accepts connections.
  // Returns false, with a reason in error(), if it did not come up within 5 s.
  bool Start(int port = 0);
  // SIGTERM, then SIGKILL after 2 s; waits for the process.
  void Stop();
  int port() const { return port_; }
  bool running() const { return pid_ > 0; }
  const std::string& error() const { return error_; }

 private:
  bool StartOn(int port);

  pid_t pid_ = -1;
  int port_ = 0;
  std::string error_;
  // The server's working directory, made on the first start and removed with the object: an
  // RDB or AOF left in a shared directory (such as /tmp) would be loaded by the next server.
  std::string dir_;
};

// Runs `base` until `done()` or `timeout`; returns done().
bool RunUntil(event_base* base, const std::function<bool()>& done,
              std::chrono::milliseconds timeout = std::chrono::seconds(10));
// Runs `base` for `duration`.
void RunFor(event_base* base, std::chrono::milliseconds duration);

}  // namespace redistp::client::testing
