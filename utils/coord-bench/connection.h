// Connection: one loopback TCP connection to a server, with a RESP frame reader.
//
// The socket is non-blocking from the moment it is connected; every wait is a poll() bounded
// by a deadline (clock.h). Bytes read are kept in an input buffer (4 KB to start, so that
// thousands of idle watchers stay cheap; it doubles when a read fills it) and cut into frames
// by PopFrame(). The blocking helpers (NextReply, NextPush, Call) separate the two streams a
// watching connection carries: notifications (IsPush) go to a queue, replies are returned in
// order, so a push arriving before a reply never makes the reply look wrong and is never lost.
// The event-loop benchmarks instead call ReadSome()/PopFrame() themselves when epoll says the
// socket is readable, and stamp the time of each read.
//
// Ending a connection: Close() is an orderly close (FIN); Abort() sets SO_LINGER to zero first,
// so the kernel sends a reset, as when a process crashes with data unread or the peer is cut
// off. Either way the descriptor is released at once; the destructor closes what is left open.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "resp.h"

namespace coordbench {

class Connection {
 public:
  // Connects to 127.0.0.1:`port` (waiting up to `timeout_ms`), with TCP_NODELAY. Returns
  // nullptr and sets `error` on failure.
  static std::unique_ptr<Connection> Open(int port, int timeout_ms, std::string* error);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  int fd() const { return fd_; }
  const std::string& error() const { return error_; }
  std::deque<Frame>& pushes() { return pushes_; }

  // Writes all of `bytes`, waiting for room until `deadline_ns`. False (see error()) on a
  // socket error or timeout.
  bool Send(std::string_view bytes, int64_t deadline_ns);
  bool SendCommand(const std::vector<std::string>& args, int64_t deadline_ns);

  // One non-blocking read into the input buffer: >0 bytes read, 0 when nothing was ready,
  // -1 on end of stream or error (see error()).
  long ReadSome();
  // Moves the next complete buffered frame into `frame`: 1 when one was taken, 0 when the
  // buffer holds no complete frame, -1 when the stream is not RESP (see error()).
  int PopFrame(Frame* frame);
  // The bytes received and not yet taken, for a caller that scans frames without building a
  // Frame (the throughput benchmark); Consume(n) then drops the first `n` of them.
  std::string_view Buffered() const {
    return std::string_view(in_.data() + in_pos_, in_end_ - in_pos_);
  }
  void Consume(size_t n) { in_pos_ += n; }

  // Waits until `deadline_ns` for the next frame that is not a push; pushes met on the way are
  // queued in pushes(). False (see error()) on timeout, end of stream or a protocol error.
  bool NextReply(Frame* reply, int64_t deadline_ns);
  // Takes the oldest queued push, or waits until `deadline_ns` for one; replies met on the way
  // are an error (the caller has no command outstanding).
  bool NextPush(Frame* push, int64_t deadline_ns);
  // Sends `args` and waits for its reply; a reply that is an error frame counts as success
  // here (the caller checks it).
  bool Call(const std::vector<std::string>& args, Frame* reply, int64_t deadline_ns);

  // Orderly close (FIN).
  void Close();
  // Abortive close: SO_LINGER 0, then close, so the peer sees a reset.
  void Abort();

 private:
  explicit Connection(int fd) : fd_(fd) {}
  // Waits for POLLIN (or POLLOUT when `for_write`) until the deadline.
  bool WaitFor(bool for_write, int64_t deadline_ns);
  bool Fail(std::string message);

  int fd_;
  // Input buffer: bytes [in_pos_, in_end_) of in_ are received and not yet taken by PopFrame.
  // Its size is its capacity (grown by doubling, never zero-filled per read).
  std::vector<char> in_;
  size_t in_pos_ = 0;
  size_t in_end_ = 0;
  std::deque<Frame> pushes_;
  std::string error_;
};

// Opens `count` connections to 127.0.0.1:`port`, each within `timeout_ms`. On failure returns
// an empty vector (the ones opened are closed again) and sets `error`.
std::vector<std::unique_ptr<Connection>> OpenMany(int port, size_t count, int timeout_ms,
                                                  std::string* error);

}  // namespace coordbench
