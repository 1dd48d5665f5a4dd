// redistp::client::Client — an asynchronous client for redis-tp on the caller's libevent loop,
// with per-key existence watches (WATCHEX) delivered as callbacks.
//
// Model. One Client is one logical session made of successive TCP connections. Commands are
// pipelined: each gets its callback, called exactly once, in the order the commands were issued
// (a reply, a server error, or a local error such as "connection lost"). Commands issued while
// no connection is ready wait in a queue and are sent, in order, once one is. Everything runs
// on the event_base the program passes in; nothing here is thread-safe, and callbacks run inside
// event_base_loop (never inside the call that issued the command).
//
// Watches. Watch(key, cb) subscribes; the callback first gets the key's state at registration
// (kExist / kNoExist), then every change (kAdd / kDel), in the order the server saw them. Several
// subscribers may watch one key; the server holds one watch per key and connection. Each
// Watch() sends its own WATCHEX so the new subscriber's first state is exact (a later push is
// delivered only to subscribers whose first state has arrived, so nobody sees a change that its
// first state already includes).
//
// Reconnects. When a connection ends (server restart, CLIENT KILL, network), every command
// still waiting for its reply gets kErrConnectionLost (it may or may not have run), the client
// retries with exponential back-off (ClientOptions), and on the new connection it re-sends AUTH,
// SELECT, CLIENT SETNAME, CLIENT LEASE, then one WATCHEX per watched key — each subscriber gets a
// fresh kExist/kNoExist, so the program sees what changed while it was away — and then the queued
// commands. Temporary keys die with their connection: listeners get kDisconnected, and every
// Lock (lock.h) held on this client reports itself lost — unless the client has a session.
//
// Sessions (ClientOptions::session_grace > 0). The first connection sends SESSION OPEN <grace>
// and keeps the token; from then on the temporary keys this client creates belong to the
// session, which the server keeps for the grace after a connection ends. Every later
// connection sends SESSION RESUME <token> right after AUTH/SELECT/SETNAME/LEASE, before the
// watches and the queued commands, so the program's keys and locks ride out the reconnect:
// listeners get kDisconnected and kConnected, and no Lock reports a loss. The session is lost —
// listeners get kSessionLost, every Lock held reports itself lost, and a new session is opened
// — when the server refuses the resume (the grace ended, the session was closed), or when the
// client has not resumed within the grace counted from the sending time of the last command
// whose reply arrived (a point at which the server surely still had the session attached), so
// the program learns of the loss no later than anyone else can take its locks. While a session
// is open and no lease is set, a PING every grace/3 keeps that point recent. CloseSession()
// ends the session now (its keys are released) and opens a new one; Close() gives it up
// without telling the server (its keys stay until the grace ends; a later Start() ends it).
//
// Telling pushes from replies (RESP2). A notification arrives in-band as the array
// ["watchex", key, "ADD"|"DEL"], between two replies. Some replies can have exactly that shape,
// so the client makes the ambiguity impossible instead of guessing:
//   - Every reply slot is marked, when its command is written, with whether its reply could look
//     like a push (command_class.h). A push-shaped frame is a push unless the slot at the head of
//     the queue is so marked.
//   - A slot is marked only if, when its command was written, no watch was registered on the
//     connection (no WATCHEX sent whose key has not been confirmed unwatched). Then no push can
//     arrive before that reply: the server only pushes for registered keys.
//   - While watches exist, a command whose reply could look like a push is sent as
//     MULTI / command / EXEC; the EXEC reply is a one-element array wrapping the real reply,
//     which cannot be mistaken for a push, and the callback gets the inner reply (or the
//     command's own error). Blocking commands are never wrapped (MULTI would stop them from
//     blocking) and none of them can reply in push shape. Inside the program's own MULTI, an
//     EXEC sent while watches exist carries an extra PING so its reply ends in a status and
//     cannot be push-shaped; the client removes that element.
//   - Commands that would change state the client manages (SELECT, AUTH, HELLO, RESET, QUIT,
//     WATCHEX, UNWATCHEX, SUBSCRIBE..., MONITOR, CLIENT REPLY) are refused locally.
//   Commands the client sends for itself (WATCHEX, UNWATCHEX, PING, lock commands) are held back
//   while the program's own MULTI is open and go out right after its EXEC or DISCARD.
//   Cost: a wrapped command takes three commands on the wire, and its reply one more level of
//   nesting (hiredis 0.14 reads up to seven levels).
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "client/reply.h"

struct event_base;
struct event;

namespace redistp::client {

// The project's one version, the server's (src/server/version.h, which this library may not
// include); tests/unit/tools.tcl checks that the tools print the server's.
inline constexpr char kClientVersion[] = "0.1.0";

struct ClientOptions {
  std::string host = "127.0.0.1";
  int port = 6379;
  std::string user;  // AUTH user password when set; AUTH password when only password is set
  std::string password;
  int db = 0;        // SELECT on every connection when not 0
  std::string name;  // CLIENT SETNAME on every connection when not empty
  std::chrono::milliseconds connect_timeout{2000};
  bool reconnect = true;  // false: the first lost or failed connection closes the client
  std::chrono::milliseconds backoff_initial{50};  // delay before the first retry, doubled per
  std::chrono::milliseconds backoff_max{2000};    // failure up to this, with up to 25% jitter
  // CLIENT LEASE: when > 0, the server closes the connection (freeing its temporary keys) if it
  // hears nothing for this long; the client sends a PING every lease/3 to keep it.
  std::chrono::milliseconds lease{0};
  // When > 0: every connection opens or resumes a session with this grace (0..86400000 ms);
  // see "Sessions" above.
  std::chrono::milliseconds session_grace{0};
  // Redis Sentinel: when `sentinels` is not empty ("host:port" each), host and port are not
  // used; before every connection attempt the sentinels are asked, in order, for the address
  // of `master_name` (SENTINEL get-master-addr-by-name; the first that answers wins, each
  // within connect_timeout), and a connection is used only once ROLE says it is a master. So
  // after a failover the client reconnects to the promoted replica, and with a session resumes
  // it there (docs/replication.md). A READONLY error (the server became a replica) ends the
  // connection so that the next attempt asks the sentinels again.
  std::vector<std::string> sentinels;
  std::string master_name;
};

enum class WatchEventType {
  kExist,    // state at (re)registration: the key exists
  kNoExist,  // state at (re)registration: the key does not exist
  kAdd,      // the key appeared
  kDel,      // the key disappeared
  kError,    // the server refused the watch (error holds its text); the subscription is gone
};
const char* WatchEventName(WatchEventType type);  // "EXIST", "NOEXIST", "ADD", "DEL", "ERROR"

struct WatchEvent {
  std::string key;
  WatchEventType type;
  std::string error;
};

enum class ConnectionEvent {
  kConnected,      // a connection is ready (handshake done, watches re-sent, queue flushed)
  kDisconnected,   // a ready connection ended; its temporary keys are gone
  kConnectFailed,  // an attempt failed (refused, timeout, handshake error); detail says why
  kClosed,         // Close() was called (after kDisconnected if a connection was ready)
  kSessionLost,    // the session and the temporary keys it owned are gone (or presumed gone:
                   // no resume within the grace); detail says why. A new session follows.
};

class Lock;

class Client {
 public:
  using ReplyCallback = std::function<void(const Reply&)>;
  using WatchCallback = std::function<void(const WatchEvent&)>;
  using ConnectionCallback = std::function<void(ConnectionEvent, const std::string& detail)>;
  using WatchId = uint64_t;
  using ListenerId = uint64_t;

  // `base` must outlive the client. Nothing happens until Start().
  Client(event_base* base, ClientOptions options);
  // Frees everything without calling any callback. Locks made on this client must be destroyed
  // first. Must not run inside one of this client's callbacks (use Close() there).
  ~Client();
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  // Begins connecting (on the next loop turn). Calling it again after Close() reopens.
  void Start();
  // Ends the connection for good: waiting and queued commands get kErrClosed, listeners get
  // kDisconnected if a connection was ready, no reconnect. Watches stay registered locally and
  // come back on Start().
  void Close();

  // Sends a command; `cb` (optional) gets its reply. See the header comment for ordering.
  void Command(std::vector<std::string> argv, ReplyCallback cb = {});

  // Subscribes to existence changes of `key` (in ClientOptions::db).
  WatchId Watch(const std::string& key, WatchCallback cb);
  // Ends one subscription (UNWATCHEX is sent when the key's last subscriber leaves). Safe to
  // call from any callback, also with an id already gone.
  void Unwatch(WatchId id);
  // Ends every subscription on `key`; returns how many there were.
  int UnwatchKey(const std::string& key);

  // Ends the session now (SESSION CLOSE; `cb` gets the number of keys released, or an error),
  // after telling listeners kSessionLost, and opens a new one. Without a session: a local error.
  void CloseSession(ReplyCallback cb = {});
  // The session's token ("<id>:<secret>"; empty before the first SESSION OPEN is answered) and
  // id (0 when none). The token lets another process resume the session: keep it secret.
  const std::string& session_token() const { return session_token_; }
  long long session_id() const { return session_id_; }
  // True while the client holds a session that is not given up (keys survive a reconnect).
  bool session_active() const {
    return options_.session_grace.count() > 0 && !session_token_.empty() && !session_given_up_;
  }
  // Successful SESSION RESUMEs so far.
  uint64_t session_resumes() const { return session_resumes_; }

  ListenerId AddConnectionListener(ConnectionCallback cb);
  void RemoveConnectionListener(ListenerId id);

  bool ready() const { return state_ == State::kReady; }
  bool closed() const { return state_ == State::kClosed; }
  event_base* base() const { return base_; }
  const ClientOptions& options() const { return options_; }
  // Number of connections that became ready so far.
  uint64_t connections() const { return connections_; }
  size_t awaiting_replies() const { return pending_.size(); }
  // Frames (replies and pushes) received from the server so far, over all connections: how
  // often this client was woken, which the herd tests of the lock recipes count.
  uint64_t frames_received() const { return frames_received_; }
  size_t watched_keys() const { return watches_.size(); }
  // While waiting to reconnect: the delay chosen before the next attempt (backoff_initial
  // doubled per failure, capped at backoff_max, plus up to 25% jitter); 0 otherwise. A
  // connection listener told of a failure reads the delay that failure scheduled.
  std::chrono::milliseconds retry_delay() const {
    return state_ == State::kBackoff ? retry_delay_ : std::chrono::milliseconds(0);
  }

 private:
  friend class Lock;
  enum class State { kIdle, kConnecting, kHandshake, kReady, kBackoff, kClosed };
  using Handler = std::function<void(const Reply&)>;

  // A command to send: user commands go through classification and wrapping; internal ones
  // (watches, PINGs, lock commands) are written as they are.
  struct Request {
    std::vector<std::string> argv;
    Handler handler;
    bool internal = false;
  };
  // One expected reply, in send order. `local` replies were decided without the server and are
  // delivered when they reach the head, so callback order is always send order.
  struct Slot {
    Handler handler;
    bool may_look_like_push = false;
    std::optional<Reply> local;
    std::chrono::steady_clock::time_point sent;  // when written (the session's proof of life)
  };
  struct Subscriber {
    WatchId id;
    std::shared_ptr<const WatchCallback> cb;
    bool active = false;  // its first state arrived on the current connection
  };

  void Submit(Request req);
  void SendNow(Request req);
  void SendUser(Request req);
  void SendWrapped(Request req);
  void SendPaddedExec(Request req);
  void ReleaseHeldInternal();
  void Write(const std::vector<std::string>& argv, Handler handler, bool may_look_like_push);
  void AddLocalSlot(Handler handler, Reply reply);
  void SendWatchex(const std::string& key, std::vector<WatchId> ids);
  void SendUnwatchex(const std::string& key);
  bool WatchesOnWire() const;
  void RemoveSubscriber(WatchId id);

  void ScheduleConnect(std::chrono::milliseconds delay);
  void BeginConnect();
  void TryNextAddress();
  void OnSocketConnected();
  void BeginHandshake();
  void OnReady();
  void ConnectionLost(const std::string& reason);
  void CloseSocket();
  void FailAll(const char* error);
  void Notify(ConnectionEvent ev, const std::string& detail);

  void OnReadable();
  void OnWritable();
  void OnFlush();
  void ScheduleFlush();
  void TryWrite();
  void OnFrame(Reply frame);
  void DeliverPush(const std::string& key, bool added);
  void DrainLocalHead();
  void OnLeaseTick();
  void SendSessionHandshake();
  void WriteSessionOpen();
  void OnSessionOpened(const Reply& r, bool in_handshake);
  void SessionLost(const std::string& reason);
  void ArmSessionDeadline();
  void OnSessionDeadline();

  static void ReadCb(int fd, short what, void* arg);
  static void WriteCb(int fd, short what, void* arg);
  static void ConnectCb(int fd, short what, void* arg);
  static void TimerCb(int fd, short what, void* arg);
  static void FlushCb(int fd, short what, void* arg);
  static void LeaseCb(int fd, short what, void* arg);
  static void SessionCb(int fd, short what, void* arg);

  event_base* base_;
  ClientOptions options_;
  State state_ = State::kIdle;
  uint64_t generation_ = 0;  // bumped whenever a connection ends
  uint64_t connections_ = 0;
  uint64_t frames_received_ = 0;
  int backoff_attempt_ = 0;
  std::chrono::milliseconds retry_delay_{0};
  uint64_t rng_state_;

  int fd_ = -1;
  std::vector<std::vector<char>> addrs_;  // resolved sockaddrs of this attempt
  size_t addr_index_ = 0;
  std::string last_connect_error_;
  // The address of this attempt: options' host/port, or what the sentinels answered.
  std::string target_host_;
  int target_port_ = 0;
  // Asks the sentinels for the master's address (client_sentinel.cc); false with the reason.
  bool AskSentinels(std::string* host, int* port, std::string* error);
  event* read_ev_ = nullptr;
  event* write_ev_ = nullptr;
  event* connect_ev_ = nullptr;
  event* timer_ev_ = nullptr;  // back-off / start delay / connect timeout
  event* flush_ev_ = nullptr;
  event* lease_ev_ = nullptr;
  event* session_ev_ = nullptr;  // the client-side grace deadline while disconnected
  bool write_armed_ = false;
  bool flush_scheduled_ = false;
  std::unique_ptr<ReplyReader> reader_;
  std::string out_;
  size_t out_pos_ = 0;

  std::deque<Slot> pending_;           // written (or locally answered), reply not delivered
  std::deque<Request> queued_;         // issued while no connection was ready
  std::deque<Request> held_internal_;  // internal requests held while the program's MULTI is open
  std::deque<std::pair<Handler, Reply>> closed_replies_;  // errors for commands after Close()
  bool in_user_multi_ = false;

  std::unordered_map<std::string, std::vector<Subscriber>> watches_;
  std::unordered_map<WatchId, std::string> watch_keys_;
  std::unordered_map<std::string, int> unwatch_in_flight_;
  std::vector<std::pair<ListenerId, std::shared_ptr<const ConnectionCallback>>> listeners_;
  uint64_t next_id_ = 1;

  std::string session_token_;
  long long session_id_ = 0;
  bool session_given_up_ = false;  // token kept only to end the session on the next connection
  uint64_t session_resumes_ = 0;
  // The sending time of the newest command whose reply arrived: the server had the session
  // attached then, so it cannot release the session's keys before this + grace.
  std::chrono::steady_clock::time_point session_proof_;
};

}  // namespace redistp::client
