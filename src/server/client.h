// Client: the state of one connection, or of a pseudo-client that runs commands for the server
// itself (a script's redis.call, the AOF's replay).
//
// Kind and flags: kind() says who is at the other end (ClientKind, fixed at creation); `flags` are
// the modes a connection enters and leaves (CLIENT REPLY, MONITOR, close after reply ...).
//
// Parts: the connection's own fields come first (identity, buffers, times). Each feature keeps its
// per-client state in a part of its own (`multi`, `blocking`, `pubsub`, `tracking`,
// `session_state`) whose rules, and whose reset when a session ends, belong to that feature's code,
// named beside the part; other code may read it. Larger per-client state is indexed by client id in
// the server instead (ExecWatches, BlockingCore, OwnerIndex, the watch index), so a part holds only
// what the client must carry itself. The replication link's state (offsets, acknowledgements)
// belongs in a part of its own, beside the kinds kReplica and kMasterLink.
//
// Buffers: `query` holds bytes read from the socket, parsed in place by `parser`; `out` holds
// encoded replies waiting to be written (a small buffer, then 16 KB blocks: util/reply_buffer.h),
// filled only through `reply` (the ReplyBuilder). The server writes `out` once after processing
// everything a read delivered (one read, one write per loop turn for a pipelining client) and arms
// the write event only when the socket is full.
//
// Lifetime: a pseudo-client belongs to its engine (scripting, the AOF loader). A connection's
// Client is created by the server on accept and ended only by Server::CloseClient, whose session
// part (Server::EndSession: transaction, watches, blocked state, temporary keys) RESET shares. The
// object itself is freed once the loop turn is over, so code that still holds a reference during
// the turn stays safe; `closed` tells it the connection is gone. The destructor frees memory (and
// the client's libevent events) only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocol/reply_builder.h"
#include "protocol/request_parser.h"
#include "server/event_handle.h"
#include "util/byte_buffer.h"
#include "util/reply_buffer.h"
#include "util/tls.h"
#include "watch/compact_set.h"

namespace redistp {

class AclUser;
class Database;
class ExecWatches;
class Server;
struct CommandSpec;
struct PubSubTopic;

// Hashes a Pub/Sub topic by its address (a client's subscription sets compare by identity).
struct PubSubTopicPtrTraits {
  static uint64_t Hash(const PubSubTopic* t) { return MixBits(reinterpret_cast<uintptr_t>(t)); }
};

enum ClientFlag : uint32_t {
  kClientCloseAfterReply = 1u << 0,  // write pending output, then close (QUIT, protocol error)
  kClientMonitor = 1u << 1,
  kClientUnixSocket = 1u << 2,
  kClientReplyOff = 1u << 3,
  kClientReplySkipNext = 1u << 4,  // CLIENT REPLY SKIP: suppress the next command's reply
  kClientReplySkip = 1u << 5,      // suppressing the current command's reply
  kClientNoEvict = 1u << 6,
  kClientExecuting = 1u << 7,      // inside its own command processing
  kClientPostponed = 1u << 8,      // the command just admitted waits for CLIENT PAUSE to end
  kClientPaused = 1u << 9,         // has unprocessed input held back by CLIENT PAUSE
  kClientInExec = 1u << 10,        // running the commands queued by MULTI (or a script)
  kClientPendingFlush = 1u << 11,  // queued in Server::pending_flush_ (written in BeforeSleep)
  kClientPendingRead = 1u << 12,   // queued in Server::pending_reads_ (io-threads-do-reads)
  // Redis's protectClient: its command is still running (DEBUG RELOAD/LOADAOF) while a busy
  // script serves the others: neither read nor written until it ends.
  kClientProtected = 1u << 13,
  // CLIENT NO-TOUCH ON: this connection's commands (but TOUCH) leave the keys' LRU/LFU data.
  kClientNoTouch = 1u << 14,
  // CLIENT CAPA redirect: the client says it understands -REDIRECT (recorded; nothing here
  // sends one).
  kClientCapaRedirect = 1u << 15,
  // CLIENT MAINT_NOTIFICATIONS ON: told (RESP3 push) before a planned failover or shutdown.
  kClientMaintNotify = 1u << 16,
  // Cluster mode. ASKING: the next command may use a slot this node is importing (cleared
  // after any other command outside MULTI). READONLY: reads of a replica's master's slots
  // are served here instead of redirected (READWRITE ends it).
  kClientAsking = 1u << 17,
  kClientReadOnly = 1u << 18,
};

// What a Client stands for, fixed when it is created. The flags above are modes a connection
// enters and leaves; the kind says who is at the other end, and the admission gate and a few
// commands act on it (a script's commands share its start time, the AOF's replay is never
// refused or paused, XADD's LIMIT and the fencing token are replayed as recorded).
enum class ClientKind : uint8_t {
  kNormal,      // a connection accepted from a listener
  kReplica,     // a connection that asked for the replication stream
  kMasterLink,  // this server's connection to its master, which applies the stream
  kScript,      // the scripting engine's pseudo-client (no socket): redis.call runs on it
  kAofLoading,  // the pseudo-client (no socket) that replays the AOF at startup or DEBUG LOADAOF
};

class Client {
 public:
  Client(uint64_t id, int fd, ClientKind kind = ClientKind::kNormal)
      : id(id), fd(fd), reply(&out), kind_(kind) {}
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;

  ClientKind kind() const { return kind_; }
  // Replication changes who is at the other end of an accepted connection: SYNC/PSYNC makes it
  // a kReplica (the master side), and it never changes back (the link ends with the connection).
  void set_kind(ClientKind kind) { kind_ = kind; }
  // A pseudo-client runs commands for the server itself and has no socket.
  bool pseudo() const { return kind_ == ClientKind::kScript || kind_ == ClientKind::kAofLoading; }

  bool has_flag(uint32_t f) const { return (flags & f) != 0; }
  void set_flag(uint32_t f, bool on) { flags = on ? (flags | f) : (flags & ~f); }

  // Output memory the output-buffer limits count: the reply blocks' bytes (omem), not the
  // small static buffer, as Redis counts it.
  size_t pending_output() const { return out.block_bytes(); }

  const uint64_t id;
  int fd;
  Server* server = nullptr;
  bool closed = false;
  uint32_t flags = 0;
  std::string addr;   // "ip:port" of the peer (or "/path:0" for unix sockets)
  std::string laddr;  // local "ip:port"
  std::string name;
  // CLIENT SETINFO LIB-NAME / LIB-VER: the client library's own words (printable, no spaces);
  // RESET keeps them, as in Redis 7.2.
  std::string lib_name;
  std::string lib_ver;
  int db_index = 0;
  Database* db = nullptr;
  bool authenticated = false;
  // Whether it ever was: a connection that never authenticated where authentication is required
  // may hold only a little output (Server::OutputOverLimit).
  bool ever_authenticated = false;
  // The ACL user this connection acts as (src/acl owns it); nullptr is the default user.
  AclUser* user = nullptr;

  ByteBuffer query;
  // The most the query buffer held since the clients cron last looked (Server::ResizeQueryBuffer
  // shrinks a buffer much bigger than it).
  size_t query_peak = 0;
  ReplyBuffer out;
  // When the clients cron last restarted `out`'s peak (DEBUG REPLYBUFFER PEAK-RESET-TIME).
  int64_t out_peak_reset_ms = 0;
  ReplyBuilder reply;
  RequestParser parser;

  int64_t ctime_ms = 0;             // creation time
  int64_t last_interaction_ms = 0;  // last byte received or command executed (idle timeout)
  int64_t obuf_soft_limit_since_ms = 0;
  // Full name of the last command ("client|list"): a view of its row's full_name (the table
  // lives as long as the server) or "NULL", so setting it per command copies nothing.
  std::string_view last_cmd = "NULL";
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;

  int64_t last_read_ms = 0;  // last byte received (idle buffers, CLIENT LEASE)
  // Client eviction: the bytes last counted for this client into the server's evictable total
  // (0 while it is not evictable); only Server::UpdateClientMemoryAndEvict and its cron move it.
  size_t counted_mem = 0;

  // The transaction (MULTI ... EXEC; commands/multi.cc holds the rules, Server::Execute
  // queues). The keys WATCHed for EXEC, and whether one changed, are the server's ExecWatches'
  // (watch/exec_watches.h), by client id.
  struct Transaction {
    bool active = false;  // between MULTI and EXEC/DISCARD: commands are queued, not run
    bool failed = false;  // a command failed to queue: EXEC aborts
    std::vector<std::vector<std::string>> queue;
  };
  Transaction multi;
  // Ends the transaction, the one way it ends (EXEC, DISCARD, a rejected EXEC, RESET, the close,
  // an AOF's incomplete MULTI): nothing queued, not failed, and no WATCHed key left in
  // `watches` (the server's ExecWatches), so the next MULTI starts clean.
  void DiscardTransaction(ExecWatches& watches);

  // Blocking commands (server/coordination.cc holds the rules). The wait itself (keys, kind,
  // deadline) is the server's BlockingCore's, by client id; while `active`, input is buffered
  // but not executed.
  struct Blocking {
    bool active = false;
  };
  Blocking blocking;

  // Push frames produced while this client's own command runs; Server::Push holds them here
  // and Server::ReleaseHeldPushes appends them after its reply, so the connection that made a
  // change reads its reply first (the spec's ordering promise).
  ReplyBuffer pending_pushes;

  // Pub/Sub (server/pubsub.h holds the rules): this client's subscriptions by PubSub::Kind
  // (channels, patterns, shard channels), the registry's topics, which hold the names. Changed
  // only by the PubSub registry; empty again after EndSession.
  struct PubSubState {
    CompactSet<PubSubTopic, PubSubTopicPtrTraits> subscriptions[3];
  };
  PubSubState pubsub;

  // Client-side caching, CLIENT TRACKING (server/tracking.h holds the rules).
  struct TrackingState {
    uint8_t flags = 0;      // TrackingFlag bits
    uint64_t redirect = 0;  // invalidations go to this client id (0: none; kept after OFF but
                            // reported only while on)
    std::vector<std::string> prefixes;  // BCAST prefixes in byte order ("" without PREFIX)
  };
  TrackingState tracking;

  // The session: what outlives a single command and ends with the connection (or RESET).
  // Its temporary keys are the server's OwnerIndex's, by client id (watch/owners.h); the lease that
  // guards them is here (Server::SetLease keeps the server's list of leased clients in step).
  // On the scripting engine's pseudo-client, while a script runs, `script_caller` is the
  // connection that called it: commands that act for a session use session() below, so a
  // script's SETTP makes a key the caller owns and a script's reads are tracked for the caller.
  struct SessionState {
    int64_t lease_ms = 0;  // CLIENT LEASE: no byte received for this long closes (0: none)
    Client* script_caller = nullptr;
    // The session attached to this connection (SESSION OPEN/RESUME; watch/sessions.h), 0 when
    // none: it owns the temporary keys the connection creates (Server::OwnerIdOf). Set and
    // cleared only by server/session_runtime.cc.
    uint64_t session_id = 0;
  };
  SessionState session_state;
  Client& session() {
    return session_state.script_caller != nullptr ? *session_state.script_caller : *this;
  }
  const Client& session() const {
    return session_state.script_caller != nullptr ? *session_state.script_caller : *this;
  }

  EventPtr read_ev;
  EventPtr write_ev;
  bool write_armed = false;
  // A TLS connection's session (null for plain sockets and pseudo-clients: the plain path
  // tests only this pointer). Reads and writes go through it; the two flags remember a call
  // that waits on the other direction (an SSL_read that must write, an SSL_write that must
  // read), so the event for that direction resumes it (server/tls.cc).
  TlsConnPtr tls;
  bool tls_read_wants_write = false;
  bool tls_write_wants_read = false;

 private:
  ClientKind kind_;
};

// A unix-socket client or one whose peer is 127.0.0.1 or ::1: the "local" of
// enable-debug-command, enable-module-command and enable-protected-configs.
bool IsLocalClient(const Client& client);

}  // namespace redistp
