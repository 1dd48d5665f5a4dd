// In-process command harness: a real Server (command table, databases, watches, blocking) with
// no listener, driven without its event loop, on a ManualClock.
//
// Connections are named and backed by a socketpair: the server owns one end as an ordinary
// client, the harness reads the other. Everything the server writes is parsed into frames and
// sorted per connection into replies (in order) and pushes (RESP3 '>' frames; in RESP2, any
// frame that arrives while no reply is outstanding). Run() sends one command and returns its
// reply, or a frame of kind kNone when the command blocked (TakeReply() collects it later).
//
// Time moves only through AdvanceTime(ms), which moves the clock and runs what a timer would
// have fired by then: one cron tick (active expiry, idle timeouts, CLIENT LEASE, end of CLIENT
// PAUSE), watched-key expiry and BSETTP timeouts. Nothing sleeps. Every record the server
// propagates is captured; Propagated() returns and clears them.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "server/config.h"
#include "server/propagation.h"
#include "server/server.h"
#include "util/clock.h"

namespace redistp::testing {

// One parsed RESP2/RESP3 frame.
struct Frame {
  enum class Kind {
    kNone,
    kSimple,
    kError,
    kInt,
    kBulk,
    kNull,
    kArray,
    kMap,
    kSet,
    kPush,
    kDouble,
    kBool,
    kVerbatim,
    kBigNumber
  };
  Kind kind = Kind::kNone;
  std::string str;           // simple, error, bulk, verbatim, double and big-number text
  int64_t integer = 0;       // kInt, kBool (0/1)
  std::vector<Frame> elems;  // aggregates (a map's keys and values alternate)
  std::string raw;           // the frame's bytes as sent

  bool is_none() const { return kind == Kind::kNone; }
  // Compact text for assertions: OK, (error) ERR .., (integer) 1, "bulk", (nil), [a, b].
  std::string Text() const;
};

// Parses one frame from data[*pos]; returns false (pos unchanged) when it is incomplete.
bool ParseFrame(const std::string& data, size_t* pos, Frame* out);

class Harness {
 public:
  // `config` is used as given (defaults: 16 databases, no persistence, no listener).
  explicit Harness(Config config = Config());
  ~Harness();
  Harness(const Harness&) = delete;
  Harness& operator=(const Harness&) = delete;

  // Opens a named connection (created on first use by Run too).
  Client* Connect(const std::string& name);
  // The server's Client object for a connection (nullptr once the server closed it).
  Client* client(const std::string& name);
  // True when the server has closed this connection.
  bool Closed(const std::string& name);
  // Switches the connection's protocol by sending HELLO (2 or 3).
  void SetResp(const std::string& name, int version);

  // Sends one command and returns its reply, or a kNone frame if none came (blocked).
  Frame Run(const std::string& name, const std::vector<std::string>& args);
  // The oldest reply received and not yet returned (kNone if none).
  Frame TakeReply(const std::string& name);
  // Pushes received by the connection since the last call, oldest first.
  std::vector<Frame> Pushes(const std::string& name);
  // Closes the peer end, as a client that disconnects; the server notices and tears down.
  void Disconnect(const std::string& name);

  // Moves the manual clock and runs every timer that is due.
  void AdvanceTime(int64_t ms);
  ManualClock& clock() { return clock_; }
  Server& server() { return *server_; }

  // Propagated records since the last call (SELECT/MULTI/EXEC included), as argument lists.
  std::vector<std::vector<std::string>> Propagated();

 private:
  struct Conn {
    int peer_fd = -1;
    uint64_t id = 0;
    int resp = 2;
    bool closed = false;
    std::string inbox;    // bytes read from the peer end, not yet parsed
    int outstanding = 0;  // replies expected (RESP2 tells replies from pushes by this)
    std::deque<Frame> replies;
    std::vector<Frame> pushes;
  };
  // Every record must be a command the AOF loader accepts: non-empty, a name of the command
  // table, an arity the table allows (a gtest failure otherwise), so every in-process test
  // also checks the stream it causes.
  // It takes what the AOF takes (the replicas-only records have their own sinks in the tests
  // that look at them).
  struct Sink : PropagationSink {
    void OnPropagate(const std::vector<std::string>& argv) override;
    uint8_t targets() const override { return kPropagateAof; }
    Server* server = nullptr;
    std::vector<std::vector<std::string>> records;
  };

  Conn& Get(const std::string& name);
  // Reads everything the server wrote to every connection and sorts it into frames.
  void Drain();
  void DrainOne(Conn& conn);

  ManualClock clock_;
  std::unique_ptr<Server> server_;
  Sink sink_;
  std::map<std::string, Conn> conns_;
};

}  // namespace redistp::testing
