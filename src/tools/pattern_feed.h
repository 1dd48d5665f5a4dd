// PatternFeed: a Pub/Sub connection that PSUBSCRIBEs to patterns and hands each message to a
// callback, reconnecting when the connection is lost — the prefix mode of redis-tp-watch.
//
// Why not the client library: its Client refuses SUBSCRIBE/PSUBSCRIBE (a RESP2 connection in
// subscribe mode can run nothing else, which a general client cannot allow). This feed is a
// connection that does nothing else, so it speaks RESP2 directly, with the library's reply
// reader and request encoder (client/reply.h).
//
// The handshake (AUTH when a password is set, then one PSUBSCRIBE for all patterns) runs with
// blocking reads bounded by the connect timeout; after it, the socket is read on the caller's
// libevent loop. A server error in the handshake (NOAUTH, WRONGPASS...) is a refusal: the feed
// stops and reports it. A lost connection is retried with doubling back-off (50 ms to 2 s);
// messages published while it was down are lost (Pub/Sub keeps no history), which the
// status callback says.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "client/redistp_client.h"
#include "client/reply.h"

struct event_base;
struct event;

namespace redistp::tools {

class PatternFeed {
 public:
  using MessageCallback =
      std::function<void(const std::string& channel, const std::string& message)>;
  // `refused` is true when the server refused (the feed has stopped), false for a lost
  // connection that is being retried or a reconnect that succeeded (`message` says which).
  using StatusCallback = std::function<void(bool refused, const std::string& message)>;

  PatternFeed(event_base* base, client::ClientOptions options, std::vector<std::string> patterns,
              MessageCallback on_message, StatusCallback on_status);
  ~PatternFeed();
  PatternFeed(const PatternFeed&) = delete;
  PatternFeed& operator=(const PatternFeed&) = delete;

  // Connects and subscribes, blocking. False with `*error` set when the server cannot be
  // reached or refuses (`*refused` tells which).
  bool Start(std::string* error, bool* refused);
  bool stopped() const { return stopped_; }

 private:
  bool Connect(std::string* error, bool* refused);
  void OnReadable();
  void Lost(const std::string& why);
  void Retry();
  static void ReadCb(int, short, void* arg);
  static void RetryCb(int, short, void* arg);

  event_base* base_;
  client::ClientOptions options_;
  std::vector<std::string> patterns_;
  MessageCallback on_message_;
  StatusCallback on_status_;
  int fd_ = -1;
  std::unique_ptr<client::ReplyReader> reader_;
  event* read_ev_ = nullptr;
  event* retry_ev_ = nullptr;
  std::chrono::milliseconds backoff_{50};
  bool stopped_ = false;
};

// `text` with the glob characters of a Pub/Sub pattern (* ? [ ] \) escaped, so that it matches
// only itself.
std::string EscapeGlob(const std::string& text);

}  // namespace redistp::tools
