// The fixture shared by the client tests: a fresh server per test, an event_base for the
// asynchronous clients under test, and a blocking control connection for setup and checks.
#pragma once

#include <event2/event.h>
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "client/blocking_client.h"
#include "client/redistp_client.h"
#include "test_server.h"

namespace redistp::client::testing {

using namespace std::chrono_literals;

class ServerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(server_.Start()) << server_.error();
    base_ = event_base_new();
  }
  void TearDown() override {
    control_.reset();
    event_base_free(base_);
    server_.Stop();
  }

  ClientOptions Options() const {
    ClientOptions o;
    o.port = server_.port();
    o.backoff_initial = 10ms;
    o.backoff_max = 200ms;
    return o;
  }

  BlockingClient& Control() {
    if (!control_) {
      control_ = std::make_unique<BlockingClient>(Options());
      EXPECT_TRUE(control_->Connect()) << control_->error();
    }
    return *control_;
  }
  Reply Ctl(std::vector<std::string> argv) { return Control().Command(std::move(argv), 5s); }

  bool Run(const std::function<bool()>& done, std::chrono::milliseconds timeout = 10s) {
    return RunUntil(base_, done, timeout);
  }

  // Starts `c` and runs the loop until it is ready.
  void Connect(Client& c) {
    c.Start();
    ASSERT_TRUE(Run([&c] { return c.ready(); }, 5s)) << "client did not connect";
  }

  // Sends one command on `c` and runs the loop until its reply.
  Reply Call(Client& c, std::vector<std::string> argv) {
    auto slot = std::make_shared<std::optional<Reply>>();
    c.Command(std::move(argv), [slot](const Reply& r) { *slot = r; });
    if (!Run([&slot] { return slot->has_value(); }, 10s))
      return Reply::LocalError("test: no reply");
    return **slot;
  }

  TestServer server_;
  event_base* base_ = nullptr;
  std::unique_ptr<BlockingClient> control_;
};

}  // namespace redistp::client::testing
