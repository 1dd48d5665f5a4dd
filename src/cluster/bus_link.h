// The cluster bus's connections: a listener on the bus port, outgoing links to other nodes,
// incoming links from them, whole decoded frames up, encoded frames down.
//
// Model. BusNet owns every BusLink. A link is one TCP connection carrying bus frames
// (bus_message.h) in both directions; which node it belongs to, and what a frame means, is the
// gossip layer's business (BusLinkOwner, implemented by the cluster subsystem). Two kinds:
//   kTo    opened by Connect() towards a node's ip:cport; `connected` turns true when the
//          non-blocking connect completes (OnLinkConnected). A connect that fails or exceeds
//          the timeout given to Connect() ends like any broken link (OnLinkClosed).
//   kFrom  accepted on the listener (OnLinkAccepted); `node` is null until the owner ties it.
// Reading: each readable event reads what the socket has into a BusFrameReader; every whole
// frame is decoded and handed to OnLinkFrame in order. A frame with a bad signature or a
// declared length below a header's ends the link (the stream cannot be resynced); a frame
// that fails DecodeBusMessage's per-type checks is logged at verbose level, counted as
// received, and skipped, the link stays (what a Redis 7.0 node does). A version other than 1
// is skipped the same way. EOF or a read error ends the link.
// Writing: Send() encodes into the link's send buffer and writes at once what the socket
// takes; the rest waits for the writable event (armed only while bytes are pending). When
// cluster-link-sendbuf-limit (bytes, 0 = none) is exceeded by the pending bytes the link is
// freed (OnLinkClosed) and total_cluster_links_buffer_limit_exceeded counts it, as in 7.0;
// the check runs in Cron(), as a 7.0 node makes it in its cluster cron, so Send() never frees
// a link under its caller (a write error in Send() is reported by the next Cron() too).
// Ending: a link ends either because the owner calls Close() (no callback) or because of the
// peer / an error / the buffer limit (OnLinkClosed is called once, then the link is freed).
// OnLinkClosed and OnLinkFrame may call Close() or Connect() for other links, and Close() on
// the link itself from OnLinkFrame (the link is freed once the callback returns, and no
// further frame of it is delivered).
// Counters: per message type, frames sent and received, for CLUSTER INFO's
// cluster_stats_messages_* lines; sent counts a frame when Send() queues it, received when it
// is read whole (also one that is then skipped).
#pragma once

#include <array>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cluster/bus_frame_reader.h"
#include "cluster/bus_message.h"
#include "server/event_handle.h"
#include "util/status.h"

struct event_base;

namespace redistp {

class Logger;
class BusNet;
struct ClusterNode;

class BusLink {
 public:
  enum class Dir { kTo, kFrom };

  Dir dir() const { return dir_; }
  // The node this link belongs to: set by Connect() for kTo, by the owner for kFrom (null
  // until the peer is known).
  ClusterNode* node = nullptr;
  // Milliseconds (wall clock) when the link was created: CLUSTER LINKS's create-time.
  int64_t create_ms() const { return create_ms_; }
  // kTo: the connect completed. kFrom: always true.
  bool connected() const { return connected_; }
  // The peer's address as the socket sees it, and our own end's address (a node learns its
  // own ip from the local address of the link a MEET arrived on).
  const std::string& peer_ip() const { return peer_ip_; }
  const std::string& local_ip() const { return local_ip_; }
  // CLUSTER LINKS: "r" or "rw" (a write is pending), the send buffer's allocated and used bytes.
  std::string_view events() const { return write_armed_ ? "rw" : "r"; }
  // (an empty buffer holds no allocation: a drained one is freed)
  size_t send_buffer_allocated() const { return out_.empty() ? 0 : out_.capacity(); }
  size_t send_buffer_used() const { return out_.size() - out_pos_; }

 private:
  friend class BusNet;
  BusNet* net_ = nullptr;  // the owner of this link, for its event callbacks
  Dir dir_ = Dir::kTo;
  int fd_ = -1;
  int64_t create_ms_ = 0;
  int64_t connect_deadline_ms_ = 0;  // kTo before connected: give up after this
  bool connected_ = false;
  bool write_armed_ = false;
  bool closing_ = false;      // Close() called from inside a callback of this link
  bool cron_doomed_ = false;  // Cron() found it to end; links opened meanwhile are not
  std::string peer_ip_;
  std::string local_ip_;
  BusFrameReader reader_;
  std::string out_;
  size_t out_pos_ = 0;
  EventPtr read_ev_;
  EventPtr write_ev_;
};

// What the links report to their owner (the cluster subsystem). Called from the event loop.
class BusLinkOwner {
 public:
  virtual ~BusLinkOwner() = default;
  virtual void OnLinkAccepted(BusLink* link) = 0;
  virtual void OnLinkConnected(BusLink* link) = 0;
  virtual void OnLinkFrame(BusLink* link, const BusMessage& msg) = 0;
  // The link broke (peer closed, error, connect failure or timeout, send buffer limit); it is
  // freed after this returns. Not called for Close().
  virtual void OnLinkClosed(BusLink* link) = 0;
};

class BusNet {
 public:
  // `now_ms` reads the wall clock (the server's injectable one).
  BusNet(event_base* base, BusLinkOwner& owner, Logger& log, int64_t (*now_ms)(void*),
         void* clock_arg);
  ~BusNet();  // closes every link and the listeners, without callbacks
  BusNet(const BusNet&) = delete;
  BusNet& operator=(const BusNet&) = delete;

  // Listens on `port` on every address of `bind` (the server's bind list; "*" and "-"-prefixed
  // optional addresses as the client listener takes them; empty: all addresses, IPv4 and IPv6).
  // Error text: Redis's "Could not bind ..." style line, already logged.
  Status Listen(const std::vector<std::string>& bind, int port);
  // Starts a non-blocking connect to ip:port for `node`; the link exists at once (kTo, not yet
  // connected). A connect that cannot even start still returns a link, which is ended by the
  // next Cron() with OnLinkClosed, so the caller has one failure path.
  BusLink* Connect(std::string_view ip, int port, ClusterNode* node, int64_t timeout_ms);
  // Queues one encoded frame (see the essay); counts it as sent. A link not yet connected
  // keeps the bytes until it is.
  void Send(BusLink* link, const BusMessage& msg);
  // Frees `link` without calling OnLinkClosed.
  void Close(BusLink* link);
  // Ends connects past their deadline and links whose connect failed (OnLinkClosed). Called
  // from the cluster cron.
  void Cron();
  // In a forked child: close the listening sockets.
  void CloseListenersInChild();

  void set_sendbuf_limit(uint64_t bytes) { sendbuf_limit_ = bytes; }
  const std::list<std::unique_ptr<BusLink>>& links() const { return links_; }
  size_t link_count() const { return links_.size(); }
  uint64_t sent(uint16_t type) const { return type < kBusTypeCount ? sent_[type] : 0; }
  uint64_t received(uint16_t type) const { return type < kBusTypeCount ? received_[type] : 0; }
  uint64_t sent_total() const;
  uint64_t received_total() const;
  uint64_t buffer_limit_exceeded() const { return limit_exceeded_; }

 private:
  struct Listener;
  static void OnAccept(int fd, short what, void* arg);
  static void OnReadable(int fd, short what, void* arg);
  static void OnWritable(int fd, short what, void* arg);
  void HandleRead(BusLink* link);
  void HandleWrite(BusLink* link);
  void Flush(BusLink* link);
  void Fail(BusLink* link);  // OnLinkClosed then free
  void Free(BusLink* link);
  int64_t now() const { return now_ms_(clock_arg_); }

  event_base* base_;
  BusLinkOwner& owner_;
  Logger& log_;
  int64_t (*now_ms_)(void*);
  void* clock_arg_;
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::list<std::unique_ptr<BusLink>> links_;
  uint64_t sendbuf_limit_ = 0;
  std::array<uint64_t, kBusTypeCount> sent_{};
  std::array<uint64_t, kBusTypeCount> received_{};
  uint64_t limit_exceeded_ = 0;
  BusLink* in_callback_ = nullptr;  // the link whose frames are being delivered
};

}  // namespace redistp
