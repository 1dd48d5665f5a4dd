// Server: owns every subsystem of one redis-tp instance — configuration, the event loop,
// listeners, clients, databases, the command table, statistics, slowlog and latency monitor.
// There are no mutable globals: a test can build several Servers in one process.
//
// Data flow of a request (see networking.cc and dispatch.cc):
//   socket readable -> Client::query -> RequestParser (in place) -> Server::Dispatch (command
//   table lookup, admission checks) -> handler (src/commands) -> Database operations (the
//   keyspace choke point, src/db) -> ReplyBuilder -> Client::out -> one write per loop turn.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "db/database.h"
#include "server/authorizer.h"
#include "server/client.h"
#include "server/cluster_router.h"
#include "server/command.h"
#include "server/config.h"
#include "server/event_handle.h"
#include "server/eviction.h"
#include "server/fence_file.h"
#include "server/keyspace_hub.h"
#include "server/log.h"
#include "server/notifications.h"
#include "server/propagation.h"
#include "server/pubsub.h"
#include "server/replica_role.h"
#include "server/server_stats.h"
#include "server/shutdown_wait.h"
#include "server/subsystem.h"
#include "server/supervision.h"
#include "server/tracking.h"
#include "server/watchex_pubsub.h"
#include "util/clock.h"
#include "util/function_ref.h"
#include "util/status.h"
#include "util/tls.h"
#include "watch/blocking.h"
#include "watch/bsettp_kind.h"
#include "watch/exec_watches.h"
#include "watch/owners.h"
#include "watch/sessions.h"
#include "watch/watches.h"

namespace redistp {

class IoThreads;

struct ScriptCallGate;

class Server : public WatchSink {
 public:
  // `clock` (not owned) is the time source; nullptr uses the system clock. Tests pass a
  // ManualClock and drive time with RunDueWork (see tests/cpp/harness.h).
  explicit Server(Config config, Clock* clock = nullptr);
  ~Server() override;
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Opens listeners and creates databases. The caller registers the command families into
  // commands() first (main.cc does; the server layer cannot see src/commands). With
  // Listeners::kNone (the in-process test harness) no socket is opened, no signal handler is
  // installed and no pid file is written; clients come only from AttachClient.
  enum class Listeners { kOpen, kNone };
  Status Init(Listeners listeners = Listeners::kOpen);
  // Runs the event loop until shutdown; returns the process exit code.
  int Run();
  // Asks the loop to exit after the current callback (SHUTDOWN, signals).
  void RequestShutdown(bool from_signal);
  // --- shutdown with replicas (server/shutdown.cc, server/shutdown_wait.h) -------------------
  // SHUTDOWN (c = its caller) or a signal (c = nullptr) with the kShutdown* `flags`. kExiting:
  // the final steps succeeded and the loop ends after this callback; kRefused: a final step
  // failed (the save) and the server goes on, the caller replies the error; kWaiting: replicas
  // are attached and the server waits for them with writes paused, `c` blocked without reply
  // until the shutdown ends or is aborted (it then gets the error).
  enum class ShutdownStart { kExiting, kRefused, kWaiting };
  ShutdownStart BeginShutdown(int flags, Client* c, bool from_signal);
  // SHUTDOWN ABORT: cancels a waiting shutdown; false when none waits.
  bool AbortShutdown();
  bool shutdown_waiting() const { return shutdown_wait_.deadline_ms != 0; }
  // SHUTDOWN callers blocked in a waiting shutdown (INFO counts them in blocked_clients).
  size_t shutdown_waiters() const { return shutdown_wait_.waiters.size(); }
  // Replication's view of its replicas' acknowledgements (nullptr: no replication attached).
  void set_replica_acks(ReplicaAcks* acks) { replica_acks_ = acks; }
  ReplicaAcks* replica_acks() const { return replica_acks_; }

  // --- subsystems (server/subsystem.h: the hooks and their order) ---------------------------
  // Attaches `s` in its type's row, T::kSlot, which must be empty (a second attach of a row is
  // a programming error and aborts). The server owns it from now on and calls the hooks T
  // declares, in slot order; a subsystem with a Start hook attached after StartSubsystems is
  // started at once. Returns the attached object.
  template <class T>
  T& AttachSubsystem(std::unique_ptr<T> s) {
    T& ref = *s;
    AttachSubsystem(T::kSlot, &kSubsystemTypeTag<T>, SubsystemHooksOf<T>(), std::move(s));
    return ref;
  }
  // The attached subsystem of type T, or nullptr (none attached, or T::kSlot holds another
  // type). Costs an array index and a compare: fit for every command.
  template <class T>
  T* subsystem() const {
    const SubsystemEntry& e = subsystems_[static_cast<size_t>(T::kSlot)];
    return e.tag == &kSubsystemTypeTag<T> ? static_cast<T*>(e.object.get()) : nullptr;
  }
  // Starts the attached subsystems, in slot order (main.cc: after Init, before Run). The first
  // error is returned and the later subsystems are not started.
  Status StartSubsystems();
  // A SHUTDOWN or a signal asked to exit: asks each subsystem in slot order (the final save);
  // false as soon as one refuses, and the server keeps running.
  bool PrepareShutdown(int flags);
  // The sum of the attached subsystems' NotCountedMemory (INFO mem_not_counted_for_evict; what
  // eviction subtracts from the used figure). O(subsystems); asked only over maxmemory.
  size_t NotCountedMemory() const {
    size_t bytes = 0;
    for (const SubsystemEntry& e : subsystems_) {
      if (e.object != nullptr) bytes += e.object->NotCountedMemory();
    }
    return bytes;
  }
  // The first attached subsystem's refusal of writes (MISCONF texts), or empty.
  std::string_view WriteRefusal() const {
    for (size_t i = 0; i < refusal_hooks_.n; ++i) {
      std::string_view r = refusal_hooks_.items[i]->WriteRefusal();
      if (!r.empty()) return r;
    }
    return {};
  }
  // Subscribes the listener of the subsystem in `owner`'s row to key events (see
  // server/subsystem.h for its place in the order); unsubscribed when that subsystem goes.
  void SubscribeKeyEvents(SubsystemSlot owner, KeyspaceListener* listener, bool enabled = true);
  // Switches such a listener on or off, keeping its place (KeyspaceHub::SetEnabled).
  void SetKeyEventsEnabled(KeyspaceListener* listener, bool enabled) {
    hub_.SetEnabled(listener, enabled);
  }

  // --- clients -------------------------------------------------------------------------------
  // The one teardown path: ends the session (EndSession), then the connection (monitor, pause
  // list, events, socket), now, in this loop turn; the object is freed when the turn is over.
  // Every way a connection ends comes here: peer close or error, QUIT and protocol errors
  // (close after reply), CLIENT KILL, the idle timeout, CLIENT LEASE, the output-buffer and
  // query-buffer limits. `reason` goes to the verbose log. Between the two, the subsystems'
  // OnClientClose hooks run (once per connection: a second call returns at once).
  // `cause` is what INFO coordination counts the released keys under.
  void CloseClient(Client* c, const char* reason, ReleaseCause cause = ReleaseCause::kDisconnect);
  // Ends the client's session, in this order (each step's reason in networking.cc):
  //   1. transaction: the MULTI queue and the MULTI WATCH keys;
  //   2. existence watches (WATCHEX), so the steps below push nothing to this session;
  //   3. blocked state: leaves every queue without a reply;
  //   4. temporary keys: each deleted like DEL (watchers get DEL pushes, BSETTP waiters are
  //      served after the current command), and the lease; an attached session detaches
  //      instead, keeping its keys for its grace;
  //   5. Pub/Sub subscriptions, silently (no unsubscribe confirmations);
  //   6. client-side tracking off (its key-table rows are dropped lazily: server/tracking.h).
  // Shared by CloseClient and RESET; the connection itself stays usable afterwards. `cause`
  // (kDisconnect, kLease or kReset) is what the released keys are counted under.
  void EndSession(Client& c, ReleaseCause cause = ReleaseCause::kDisconnect);
  // Releases every temporary key `owner` holds (OwnerIndex::ReleaseAll), counted under
  // `cause`; while a script is busy, after it ends (server/busy.cc).
  void ReleaseOwner(uint64_t owner, ReleaseCause cause);
  Client* FindClient(uint64_t id) const;
  // Makes a connected, non-blocking socket a client (accept path, and the test harness with
  // one end of a socketpair). The server owns fd from now on.
  // `kind`: kMasterLink for the replica side's link to its master once it is synchronised.
  Client* AttachClient(int fd, bool unix_socket, std::string addr, std::string laddr,
                       ClientKind kind = ClientKind::kNormal);
  const std::map<uint64_t, Client*>& clients() const { return clients_; }
  // Writes what the client has pending; arms the write event if the socket is full.
  void FlushClient(Client* c);
  // Formats a CLIENT LIST / CLIENT INFO line.
  std::string ClientInfoLine(const Client& c) const;
  Status SelectDb(Client& c, int64_t index);
  void AddMonitor(Client* c);
  void RemoveMonitor(Client* c);

  // --- temporary keys, watches, blocking (src/watch) ---------------------------------------
  OwnerIndex& owners() { return owners_; }
  // The owner of the temporary keys `c` creates (SETTP/BSETTP) and may release (DELTP): an id
  // from the client-id counter naming a connection or, once sessions exist, the session attached
  // to the connection. Every owner check goes through here.
  uint64_t OwnerIdOf(const Client& c) const {
    const Client& s = c.session();
    return s.session_state.session_id != 0 ? s.session_state.session_id : s.id;
  }
  // Who stands behind an owner id now: the connection holding its keys (0 when none is) and the
  // session (0 when the owner is a plain connection).
  struct OwnerView {
    uint64_t client = 0;
    uint64_t session = 0;
  };
  OwnerView DescribeOwner(uint64_t owner) const {
    if (const Session* s = sessions_.Find(owner)) return OwnerView{s->client, owner};
    return OwnerView{FindClient(owner) != nullptr ? owner : 0, 0};
  }

  // --- sessions (server/session_runtime.cc; the registry is watch/sessions.h) ---------------
  SessionRegistry& sessions() { return sessions_; }
  const SessionRegistry& sessions() const { return sessions_; }
  // SESSION OPEN: a new session attached to `c`, owning the keys `c` owned so far; its token
  // in `token`. The caller checked that `c` has no session and that grace is in range. An
  // error only when no random secret could be drawn (nothing changed then).
  Status OpenSession(Client& c, int64_t grace_ms, std::string* token);
  // SESSION RESUME: attaches the session `token` names to `c`, closing the connection it was
  // attached to. Errors (nothing changed): a bad token, another session attached to `c`.
  Status ResumeSession(Client& c, std::string_view token);
  // SESSION CLOSE: ends `c`'s session now and releases its keys; returns how many.
  size_t CloseSession(Client& c);
  // Replayed propagation records (SESSION CREATE/OWN/DROP), from the AOF's loader or, with
  // `from_master`, from the master link: then `id` is the master's and is kept as an inherited
  // owner (OwnerIndex::Inherited), and nothing waits for the end of a load.
  Status ReplaySessionCreate(uint64_t id, int64_t grace_ms, std::string_view digest_hex,
                             bool from_master = false);
  Status ReplaySessionOwn(uint64_t id, Database& db, std::string_view key,
                          bool from_master = false);
  void ReplaySessionDrop(uint64_t id, bool from_master = false);
  // TPADOPT (a temporary key arriving with MIGRATE, after its RESTORE): `key`, an ordinary key
  // of `db`, becomes temporary with the fencing token `fence` and `holds` holds. The fencing
  // counter is first raised to max(fence, floor) and, when that passes the durable mark,
  // reserved (one token drawn and skipped). The owner: with `session`, that session (same id,
  // created detached with `digest` and its grace running from now when unknown here; the
  // client-id counter is raised above the id); an id a connection or another session has here
  // is taken in its inherited form (OwnerIndex::Inherited, which SESSION RESUME also tries);
  // both taken, or no `session`, gives an owner nobody can come back as: a fresh detached
  // session whose token nobody has, released after tp-failover-grace-ms. Recorded as SESSION CREATE
  // (when created) and SESSION OWN (and SESSION KEY for replicas). Errors change nothing: no such
  // key, a key already temporary, a reservation that failed.
  struct MigratedSession {
    uint64_t id = 0;
    int64_t grace_ms = 0;
    SessionDigest digest{};
  };
  Status AdoptMigratedKey(Database& db, std::string_view key, uint64_t fence, uint64_t floor,
                          uint64_t holds, const MigratedSession* session);
  // The replicas' record of who holds a temporary key (SESSION KEY <db> <key> <owner> <fence>
  // <holds>), appended after every change of a key's owner, fence or hold count while a
  // replica listens: creation, hand-off, re-entry, a DELTP that only dropped a hold.
  void RecordKeyOwnership(int db, const Entry* e);
  // Applies that record (the master link): the key takes the owner (as an inherited one),
  // fence and hold count given, and the fencing counter tracks the highest token seen.
  void ApplyKeyOwnership(Database& db, std::string_view key, uint64_t owner, uint64_t fence,
                         uint64_t holds, bool from_master);

  // --- temporary keys on a replica (set by the replication layer) --------------------------
  // While this server follows a master, ownership is the master's: no session's grace runs
  // here (a local connection ending, a grace passing, the link dropping release nothing of
  // the master's); only the stream's DEL and SESSION DROP do. FollowMaster(true) suspends every
  // running grace; FollowMaster(false) (a promotion) starts the grace of every detached session
  // that has none, as if each had just detached.
  void FollowMaster(bool on);
  bool follows_master() const { return follows_master_; }
  // The end of loading: a restart is not a blip, so every session a replay created or touched
  // loses its keys (DEL semantics, nobody is watching yet) and every replayed session goes.
  void EndReplayedSessions();
  WatchIndex& watches() { return watches_; }
  BlockingCore& blocking() { return blocking_; }
  BlockKind* bsettp_kind() { return &bsettp_kind_; }
  ExecWatches& exec_watches() { return exec_watches_; }
  // Fencing tokens (watch/fence.h): at startup, once the data is loaded, reads the reservation
  // file (server/fence_file.h), raises the counter to the larger of its mark and the wall clock
  // in microseconds, and makes the file the counter's durable store. An error (the file exists
  // but cannot be read) must stop the server: tokens could repeat.
  Status StartFencing();
  // Blocks the client on `keys` of its current database with `kind`; timeout_ms 0 = forever.
  // Its input is held until the kind serves it, the timeout passes or CLIENT UNBLOCK.
  void BlockClient(Client* c, const std::vector<std::string_view>& keys, BlockKind* kind,
                   std::unique_ptr<BlockState> state, int64_t timeout_ms);
  // Ends a block without service (CLIENT UNBLOCK): the kind's timeout reply, or the UNBLOCKED
  // error. Returns false if the client was not blocked.
  bool UnblockClient(Client* c, bool with_error);
  // Ends the block of a client whose keys this node no longer serves (cluster mode: MOVED,
  // CLUSTERDOWN) with `error`, accounted as Redis 7.0 does: the call counts (calls, time; no
  // latency sample, not failed), the error in errorstats. False if it was not blocked.
  bool RedirectBlockedClient(Client* c, std::string_view error);
  // Ends every block with `error` and closes those clients after the reply (a master that
  // becomes a replica: its blocked clients' waits no longer make sense, as in Redis).
  void UnblockAllClients(std::string_view error);
  // oom-score-adj (oom_score.cc): writes /proc/self/oom_score_adj for a process of
  // `process_class` (0 a master, 1 a replica, 2 a background child; -1 this server's own
  // role) from oom-score-adj-values, relative to the value the server started with unless
  // absolute; with oom-score-adj no, restores that value if it was ever changed. Fails with
  // Redis's CONFIG SET text when the kernel refuses the value (logged).
  Status ApplyOomScoreAdj(int process_class = -1);
  // Serves the waiters of keys that became ready, repeating while serving makes more keys
  // ready. Called after each top-level command (never inside one, nor inside EXEC), and not
  // while a CLIENT PAUSE holds writes (the keys stay ready until UnpauseClients). Inline: it
  // runs two or three times per request, and almost always finds nothing ready.
  void ServeReadyKeys() {
    if (HasServeWork()) ServeReadyKeysLoop();
  }

  // --- server-initiated messages (pushes) -----------------------------------------------------
  // The one push path for every server-initiated message (WATCHEX notifications, Pub/Sub
  // messages and keyspace notifications, tracking invalidations). `write(ReplyBuilder&)` gets
  // a builder in the target's protocol (RESP2 or RESP3, never suppressed by CLIENT REPLY) and
  // writes one complete frame: a push header (ReplyBuilder::Push: '>' for RESP3, an array for
  // RESP2) and its parts, or a frame encoded once for many targets (protocol/push_frame.h:
  // copied when small, referenced as one shared block when big). A push caused while
  // the target runs its own command (kClientExecuting, which covers a whole EXEC) is held and
  // follows that command's reply (ReleaseHeldPushes); any other push is appended to the
  // target's output at once (between two complete replies) and written this loop turn. A
  // closed target gets none. Inline, so a fan-out (PUBLISH to many subscribers) pays no call
  // per target.
  template <typename Write>
  void Push(Client& target, Write&& write) {
    if (target.closed) return;
    // Held while the target runs its own command (or EXEC): the push follows that reply.
    const bool hold = target.has_flag(kClientExecuting);
    // A builder of its own in the target's protocol: the client's builder may be suppressed
    // (CLIENT REPLY OFF/SKIP), which never stops a push.
    ReplyBuilder rb(hold ? &target.pending_pushes : &target.out);
    rb.SetResp(target.reply.resp());
    write(rb);
    if (!hold) ScheduleFlush(&target);
  }
  // Appends the pushes held during the client's command after its reply.
  void ReleaseHeldPushes(Client& c);
  // WatchSink: a watched key appeared or disappeared; the push is encoded once for all the
  // key's watchers (protocol/push_frame.h).
  void OnWatchedKeyEvent(uint64_t client, int db, std::string_view key, bool added) override;
  void OnWatchedKeyEvents(std::span<const uint64_t> clients, int db, std::string_view key,
                          bool added) override;
  void OnWatchDeadlineChanged(int64_t deadline_ms) override;
  // WatchSink: a key whose `__watchex@` channel has subscribers appeared or disappeared
  // (publishes it: server/watchex_pubsub.cc).
  void OnPublishedKeyEvent(int db, std::string_view key, bool added) override;

  // --- Pub/Sub, keyspace notifications, client-side caching ----------------------------------
  // The Pub/Sub subscription registry and the publish path (server/pubsub.h).
  PubSub& pubsub() { return pubsub_; }
  const PubSub& pubsub() const { return pubsub_; }

  // Client-side caching: the tracking table and invalidations (server/tracking.h).
  Tracking& tracking() { return tracking_; }

  // existence events over Pub/Sub (`__watchex@<db>__:<key>`; the registry calls its hooks):
  WatchexPublisher& watchex_pubsub() { return watchex_pubsub_; }

  // --- scripting ------------------------------------------------------------------------------
  // Whether the memory check of the command being run found the server out of memory (after
  // eviction): scripts refuse their first deny-oom write by it, as Redis 7.0 does.
  bool pre_command_oom() const { return pre_command_oom_; }
  // MONITOR shows a script call (EVAL, FCALL: flagged skip-monitor) before the commands the
  // script runs, as Redis 7.0 does; the engine calls this as the script starts.
  void FeedMonitorsNow(const Client& c, const std::vector<std::string_view>& args) {
    if (!monitors_.empty()) FeedMonitors(c, args);
  }

  // DEBUG SET-DISABLE-DENY-SCRIPTS: lets scripts run commands flagged noscript (for tests).
  bool scripts_may_run_noscript() const { return scripts_may_run_noscript_; }
  void set_scripts_may_run_noscript(bool on) { scripts_may_run_noscript_ = on; }
  // Bytes the Lua states hold (their allocator keeps this count). Redis's allocator does not
  // see Lua's heap, so used_memory and maxmemory leave it out here too (used_memory_lua and
  // used_memory_vm_* report it).
  size_t& script_heap_bytes() { return script_heap_bytes_; }
  // math.random's rand48 state: one per process, as in Redis 7.0 (every script and function
  // continues the sequence; SCRIPT FLUSH does not reset it). Starts in rand48's default state.
  uint64_t& script_rand_state() { return script_rand_state_; }
  size_t script_heap_bytes() const { return script_heap_bytes_; }

  // busy scripts, SCRIPT KILL / FUNCTION KILL:
  // The one way for work that runs inside a command for long (a script past
  // busy-reply-threshold) to let the other connections in (server/busy.cc). While a
  // BusyPeriod lives the server is "busy": the dispatcher refuses every command without the
  // allow-busy flag with BusyError(); each Serve() is one non-blocking pass over the listeners
  // and every connection but the caller's (accepts, reads and runs what arrived, writes the
  // replies). At most one lives at a time. Sessions that end meanwhile keep their temporary
  // keys until the period is over (they are released at the end of the callback).
  class BusyPeriod {
   public:
    // `is_eval` chooses the BUSY text (SCRIPT KILL or FUNCTION KILL).
    BusyPeriod(Server& server, Client* caller, bool is_eval) : server_(server) {
      server_.BeginBusyScript(caller, is_eval);
    }
    ~BusyPeriod() { server_.EndBusyScript(); }
    BusyPeriod(const BusyPeriod&) = delete;
    BusyPeriod& operator=(const BusyPeriod&) = delete;
    void Serve() { server_.ProcessEventsWhileBusy(); }

   private:
    Server& server_;
  };
  bool busy_script() const { return busy_caller_ != nullptr; }
  // Loading a dataset (at startup, DEBUG RELOAD, DEBUG LOADAOF): a client served meanwhile (by
  // a busy script the AOF replays) gets LOADING for every command without the loading flag,
  // before BUSY, as in Redis. INFO's loading field shows it.
  void set_loading(bool on) { loading_ = on; }
  bool loading() const { return loading_; }
  // A load that serves the clients as it goes (server/loading.cc): the RDB file at startup or
  // DEBUG RELOAD, the AOF at startup or DEBUG LOADAOF. While a LoadingPeriod lives, loading()
  // is true, the loaders report their progress in bytes (LoadingProgress), and each time the
  // count crosses a multiple of loading-process-events-interval-bytes the other connections
  // get one non-blocking pass (the busy pass of server/busy.cc): they are answered LOADING
  // for every command without the loading flag. SHUTDOWN and SIGTERM/SIGINT end the process
  // from such a pass, without saving. Periods nest (the AOF's RDB preamble): only the outer
  // one counts. `total_bytes` is the size of what will be read (INFO's loading_total_bytes).
  class LoadingPeriod {
   public:
    LoadingPeriod(Server& server, uint64_t total_bytes) : server_(server) {
      server_.BeginLoading(total_bytes);
    }
    ~LoadingPeriod() { server_.EndLoading(); }
    LoadingPeriod(const LoadingPeriod&) = delete;
    LoadingPeriod& operator=(const LoadingPeriod&) = delete;

   private:
    Server& server_;
  };
  // `delta` more bytes were read by the running load; serves the clients when due. A no-op
  // outside a LoadingPeriod (a replica's load of its master's payload).
  void LoadingProgress(uint64_t delta);
  // One key was loaded: key-load-delay microseconds of sleep (negative -N: 1 µs with a chance
  // of 1 in N), as Redis's debug knob, so tests can hold a server in the loading state.
  void LoadingKeyLoaded() {
    if (config_.key_load_delay != 0 && loading_) KeyLoadDelay();
  }
  // The RDB's used-mem aux field (INFO's loading_rdb_used_mem).
  void set_loading_rdb_used_mem(uint64_t bytes) { loading_stats_.rdb_used_mem = bytes; }
  const LoadingStats& loading_stats() const { return loading_stats_; }
  // SHUTDOWN or a signal arrived during a load: the process ends now, without saving (the
  // dataset is half loaded), as Redis's exit from its loading loop.
  [[noreturn]] void ExitWhileLoading();
  // The BUSY error for the running script: the SCRIPT KILL text (EVAL) or the FUNCTION KILL one.
  std::string_view BusyError() const;
  // SHUTDOWN (or a signal) asked the server to exit: a busy script stops at its next hook.
  bool shutdown_requested() const { return shutdown_requested_; }

  // --- persistence ----------------------------------------------------------------------------
  void set_last_save_time(int64_t sec) { last_save_time_ = sec; }
  // In a forked child (BGSAVE, AOF rewrite): closes the listening sockets, so that if the
  // parent dies a restarted server can bind its port while the child still runs. Touches no
  // libevent state. Also runs what the layers above registered with AddChildListenerCloser
  // (the cluster bus's listener).
  void CloseListenersInChild();
  void AddChildListenerCloser(std::function<void()> fn) {
    child_listener_closers_.push_back(std::move(fn));
  }
  // The persistence layer started (true) or reaped (false) a forked child: while one lives the
  // key tables do not resize and the cron does not rehash or shrink them (copy-on-write would
  // copy every page they touch), as Redis does.
  void OnChildChanged(bool active);

  // --- maxmemory ------------------------------------------------------------------------------
  Evictor& evictor() { return evictor_; }
  // The lazy free thread (db/lazy_free.h); lives as long as the server.
  LazyFree& lazyfree() { return *lazyfree_; }
  // Client eviction (server/client_eviction.cc): the memory a connection accounts for
  // (CLIENT LIST tot-mem), and whether maxmemory-clients may close it.
  size_t ClientMemory(const Client& c) const;
  bool ClientEvictable(const Client& c) const;
  // The maxmemory-clients limit in bytes now (a percentage resolved against maxmemory); 0 = off.
  size_t ClientMemoryLimit() const;
  // Re-counts c's memory into the evictable total, then closes clients, largest first, while
  // the total exceeds the limit. Cheap when maxmemory-clients is 0. Returns false when c itself
  // was closed.
  bool UpdateClientMemoryAndEvict(Client* c);
  // The cron's pass: re-counts every client (their buffers change without a command of their
  // own: Pub/Sub messages, replies still unread), then evicts as above.
  void ClientEvictionCron();
  // Used memory as INFO's used_memory and eviction see it (cheap; see eviction.h).
  size_t UsedMemory() const { return evictor_.UsedMemory(); }

  // --- command execution -------------------------------------------------------------------
  // Processes as many complete commands as the client's query buffer holds.
  void ProcessInput(Client* c);
  // Pauses command processing (CLIENT PAUSE); `writes_only` for WRITE mode.
  void PauseClients(int64_t until_ms, bool writes_only);
  // Ends the CLIENT PAUSE. A pause the server holds itself (below) goes on.
  void UnpauseClients();
  // Pauses of writes the server holds for its own reasons (Redis's other pause purposes): while
  // any is on, what CLIENT PAUSE WRITE holds waits, whatever CLIENT PAUSE/UNPAUSE do; each ends
  // only when its owner clears it. kShutdownWait: a shutdown waits for replicas
  // (server/shutdown.cc); kFailover: FAILOVER waits for its target (replication/failover.h).
  enum WritePause : uint8_t { kPauseShutdownWait = 1, kPauseFailover = 2 };
  void SetWritePause(WritePause why, bool on);
  bool write_paused_by_server() const { return server_pauses_ != 0; }
  bool paused_writes_only() const { return pause_writes_only_; }
  // Clients whose input waits for the end of the pause (INFO counts them in blocked_clients).
  size_t paused_clients() const { return paused_.size(); }
  int64_t pause_end_ms() const { return pause_end_ms_; }
  // DEBUG PAUSE-CRON: while set the cron tick does nothing but end a CLIENT PAUSE whose time
  // is up (no active expiry, timeouts, leases, save points, statistics), as in Redis 7.0.
  void set_cron_paused(bool on) { cron_paused_ = on; }
  // DEBUG REPLYBUFFER: how often the clients cron restarts a reply buffer's peak (ms; negative:
  // never) and whether it resizes reply buffers at all (Redis 7.0's defaults: 5 s, yes).
  static constexpr int64_t kReplyPeakResetDefaultMs = 5000;
  void set_reply_peak_reset_ms(int64_t ms) { reply_peak_reset_ms_ = ms; }
  void set_reply_buffer_resizing(bool on) { reply_buffer_resizing_ = on; }

  // --- driving the server without its event loop (tests/cpp/harness.h) ---------------------
  // These run exactly what the loop's callbacks would, at the clock's current time, and end
  // the loop turn (BeforeSleep: hand-offs, resumed clients, writes, freeing closed clients).
  // DeliverInput: `bytes` arrived on the client's socket (as if read); the commands run.
  void DeliverInput(Client* c, std::string_view bytes);
  // DeliverEof: the peer closed the connection (as a read of 0 bytes): the client is torn down.
  void DeliverEof(Client* c);
  // RunDueWork: every timer that is due has fired — one cron tick (active expiry, idle
  // timeouts, leases, end of CLIENT PAUSE), watched-key expiry and BSETTP timeouts. Walks the
  // clients for BSETTP deadlines: meant for tests, not for the loop's hot path.
  void RunDueWork();

  // --- replica role (server/replica_role.h: set by the replication layer, read here) ---------
  ReplicaRole& replica_role() { return replica_role_; }
  const ReplicaRole& replica_role() const { return replica_role_; }
  // The event loop, for the sockets of the layers above (the replica's link to its master).
  event_base* loop_base() { return base_.get(); }

  // --- accessors -----------------------------------------------------------------------------
  Config& config() { return config_; }
  Logger& log() { return log_; }
  // How an init system supervises the process (settled in main before it could daemonize).
  const Supervision& supervision() const { return supervision_; }
  void set_supervision(Supervision s) { supervision_ = std::move(s); }
  // Tells a systemd supervisor `message` (Supervision::Notify); nothing otherwise.
  void NotifySupervisor(std::string_view message) { supervision_.Notify(log_, message); }
  CommandTable& commands() { return commands_; }
  ServerStats& stats() { return stats_; }
  // INFO's io_threads_active: the last write pass ran on the I/O threads.
  bool io_threads_active() const { return io_threads_active_; }
  CoordinationStats& coordination_stats() { return coordination_stats_; }
  KeyspaceContext& keyspace() { return keyspace_; }
  // The propagation stream (AOF and replication attach sinks here).
  Propagator& propagator() { return propagator_; }

  // --- replication's hooks (src/replication sets and drives these; this layer cannot see it) --
  // Output appended to a client outside its own command (the stream to a replica, the RDB
  // being sent to it) is written in this turn's write pass.
  void QueueOutput(Client* c) {
    if (!c->closed) ScheduleFlush(c);
  }
  // The event loop, for replication's own events (the pipe of a diskless sync's child).
  event_base* event_loop() { return base_.get(); }
  // min-replicas-to-write is set and fewer good replicas are connected: the admission gate
  // refuses write commands with NOREPLICAS (kept current by the master side).
  bool repl_too_few_replicas = false;
  Database& db(int index) { return *dbs_[static_cast<size_t>(index)]; }
  int db_count() const { return static_cast<int>(dbs_.size()); }
  int64_t start_time_ms() const { return start_time_ms_; }
  const std::string& run_id() const { return run_id_; }
  const std::string& executable() const { return executable_; }
  void set_executable(std::string p) { executable_ = std::move(p); }
  int tcp_port() const { return bound_port_; }
  int tls_port() const { return bound_tls_port_; }
  // The TLS contexts (ready once tls-port, tls-replication or tls-cluster configured them).
  const TlsContext& tls_context() const { return tls_ctx_; }
  uint64_t cron_loops() const { return cron_loops_; }
  int hz() const { return current_hz_; }
  int64_t last_save_time() const { return last_save_time_; }
  // The client whose command handler is running and that command's arguments; null between
  // commands. For the crash report (crash_report.h).
  const Client* running_client() const { return running_client_; }
  const std::vector<std::string_view>* running_args() const { return running_args_; }

  // Slowlog and latency monitor: fed by RecordCall (dispatch.cc), read by SLOWLOG and LATENCY
  // (commands/introspection.cc).
  std::deque<SlowlogEntry>& slowlog() { return slowlog_; }
  void SlowlogReset() { slowlog_.clear(); }
  std::map<std::string, LatencyEvent>& latency_events() { return latency_; }
  void LatencyAddSample(const std::string& event, uint32_t ms);

  // Current wall-clock time, from the server's clock.
  int64_t NowMs() const { return clock_->WallMs(); }
  int64_t NowUs() const { return clock_->WallUs(); }
  const Clock& clock() const { return *clock_; }

  // Memory figures from jemalloc (refreshes its stats epoch).
  MemoryStats ReadMemoryStats() const;
  size_t used_memory_peak() const { return used_memory_peak_; }
  // Allocated bytes when Init() finished (INFO used_memory_startup, MEMORY STATS).
  size_t used_memory_startup() const { return used_memory_startup_; }

 private:
  friend struct NetworkingAccess;
  friend struct AdmissionAccess;  // the admission gate's checks (server/admission.cc)

  Status Listen();
  Status ListenAllTcp();
  // CONFIG SET port/bind: re-opens the TCP listeners, keeping the old ones on failure.
  Status RelistenTcp();
  // Raises RLIMIT_NOFILE for maxclients; returns the error text Redis gives when it cannot.
  Status AdjustOpenFilesLimit();
  // Opens one listener on `addr`:`port`; `tls` listeners hand their clients a TLS handshake.
  Status ListenTcp(const std::string& addr, bool optional, int port, bool tls);
  Status ListenUnix();
  void OnAccept(int listen_fd, bool unix_socket, bool tls);
  void OnReadable(Client* c);
  void OnWritable(Client* c);
  // The TLS halves of OnReadable and FlushClient (server/tls.cc): the handshake, draining
  // OpenSSL's pending bytes, and the reads and writes that wait on the other direction.
  void OnReadableTls(Client* c);
  void FlushClientTls(Client* c);
  // A plain read's two halves around read(2): sizing the query buffer (returns the bytes to
  // ask for, the room at its WritePtr), and what the result means (`n` from read, `err` its
  // errno): a close, nothing, or AfterRead.
  size_t PrepareRead(Client* c);
  void FinishRead(Client* c, ssize_t n, int err);
  // After a read delivered bytes: limits, then the commands (shared by plain and TLS).
  void AfterRead(Client* c, size_t n);
  // After a flush: disarms or arms the write event, closes after the reply, checks limits.
  void AfterFlush(Client* c);
  // Rebuilds the TLS contexts from the tls-* parameters; the error is the line Redis logs.
  Status ConfigureTls();
  void Cron();
  void ReapClients();
  // Closes a client whose reply buffer refused bytes over its limit, or whose pending output
  // is over its class's hard limit or has been over the soft one for its seconds.
  void CheckOutputLimits(Client* c);
  // Whether `used` bytes of output are over c's limits (starting the soft limit's clock);
  // when they are, logs Redis's line and counts the disconnection.
  bool OutputOverLimit(Client* c, size_t used);
  // The reply buffer's limit check (util/reply_buffer.h), installed on every connection.
  static bool ReplyLimitCheck(void* ctx, size_t would_hold);
  // Closes evictable clients, largest first, until the evictable total is under `limit`.
  void EvictClients(size_t limit);
  size_t clients_evictable_mem_ = 0;  // sum of counted_mem over the clients
  // False until the cron or the read path recounted every client under the current limit
  // (set false when maxmemory-clients or maxmemory changes).
  bool client_mem_counted_ = false;
  void Dispatch(Client* c);

 public:
  // Runs one command with explicit arguments through the admission gate (server/admission.h;
  // used by the network path, by EXEC and, with the script's gate state, by redis.call).
  // Replies go to the client's reply builder.
  void Execute(Client* c, const std::vector<std::string_view>& args,
               ScriptCallGate* script = nullptr);

  // The ACL slot of the admission gate (server/authorizer.h): installed by the ACL layer,
  // nullptr (the default) allows everything. The server does not own it.
  void set_authorizer(Authorizer* a) { authorizer_ = a; }
  Authorizer* authorizer() const { return authorizer_; }
  // Whether a connection that has not authenticated is held to NOAUTH: the default user has a
  // password or is off. Read at each use, as Redis reads it, so that removing the password
  // (CONFIG SET requirepass "") lets connections already open in.
  bool AuthRequired() const {
    return authorizer_ != nullptr ? !authorizer_->DefaultUserAuthenticates()
                                  : !config_.requirepass.empty();
  }
  // The cluster slot of the admission gate (server/cluster_router.h): installed by the cluster
  // subsystem on a cluster node, nullptr on a standalone server. The server does not own it.
  void set_cluster_router(ClusterRouter* r) { cluster_router_ = r; }
  ClusterRouter* cluster_router() const { return cluster_router_; }

 private:
  // End-of-callback work: BSETTP hand-offs, resuming unblocked clients, flushing clients that
  // received pushes, freeing closed clients.
  void AfterCallback();
  // Once per event-loop turn, after every ready callback ran: writes pending replies and
  // pushes, then frees the clients closed during the turn.
  void BeforeSleep();
  void FlushPending();
  // The write pass of FlushPending's non-replica clients on the I/O threads
  // (server/threaded_io.cc): returns false, having written nothing, when the threads are
  // not to be used for this batch (too few clients with output, as Redis decides).
  bool FlushThreaded(const std::vector<Client*>& batch);
  // io-threads-do-reads: a readable client is queued for the loop turn's read pass instead of
  // being read in its callback (returns true), while the threads are active; ReadPending reads
  // the queue on the I/O threads, then runs each client's input in queue order.
  bool DeferRead(Client* c);
  void ReadPending();
  // Runs the input of the clients the read pass read and has not run yet (read_ready_, in
  // order); also called by a busy script's rounds. Returns whether any was waiting.
  bool RunReadyInput();
  // Its next read is part of a big bulk argument (read straight into the argument's room).
  bool ReadsBigArgument(const Client* c) const;
  // After a client's pending bytes were written out (`written` of them, `err` the errno of a
  // failed write or 0): consumes them, counts them, then closes the client or runs AfterFlush.
  void FinishWrite(Client* c, size_t written, int err);
  void ExpireWatchedKeys();
  static void WatchTimerCallback(int fd, short what, void* arg);
  // Blocked clients' deadlines: one timer armed for the earliest (BlockingCore keeps them).
  void ArmBlockTimer();
  void ExpireBlockedClients();
  static void BlockTimerCallback(int fd, short what, void* arg);
  // Sessions' graces: one timer armed (in BeforeSleep) for the earliest end of a grace.
  void ArmSessionTimer();
  void ExpireSessions();
  static void SessionTimerCallback(int fd, short what, void* arg);
  // The connection that ends (or RESETs) leaves its session detached, keys untouched.
  void DetachSession(Client& c);
  // Ends session `id` (CLOSE or end of grace): releases its keys, records SESSION DROP.
  size_t EndSessionKeys(uint64_t id);
  // A blocked client's wait is over (served, timed out, unblocked): resume its input.
  void FinishBlock(Client* c);
  // Ready keys that may be served now (none while CLIENT PAUSE holds writes).
  // While CLIENT PAUSE holds writes (either mode) nobody is served: serving runs the blocked
  // command's write. Ready keys stay listed and are served once the pause ends.
  // Nor while a script is busy: the keyspace changes only through the script until it ends.
  bool HasServeWork() const {
    return blocking_.has_ready() && !any_pause() && busy_caller_ == nullptr;
  }
  // ServeReadyKeys' work, once HasServeWork said there is some.
  void ServeReadyKeysLoop();
  // CLIENT PAUSE: whether the admitted command `spec` (args) from `c` waits for the pause end.
  bool ShouldPause(const Client* c, const CommandSpec* spec,
                   const std::vector<std::string_view>& args);
  // The flags of this invocation (CommandSpec::invocation_flags, else the row's).
  uint64_t InvocationFlagsOf(const CommandSpec* spec, const std::vector<std::string_view>& args);
  // maxmemory admission (Redis's processCommand): evicts as the policy allows, then says
  // whether `spec` from `c` must be refused with the OOM error.
  bool RefuseForMemory(const Client* c, const CommandSpec* spec);
  // SLOWLOG, latency monitor (`timed`) and MONITOR (`monitored`) records of a command.
  void RecordCall(Client* c, const CommandSpec* spec, const std::vector<std::string_view>& args,
                  int64_t duration_us, bool timed = true, bool monitored = true);
  void FeedMonitors(const Client& c, const std::vector<std::string_view>& args);
  // Accounts a blocked command whose block ended (BlockedCall, server/server_stats.h).
  void RecordBlockedCall(Client* c);
  void WritePidFile();

  static void AcceptCallback(int fd, short what, void* arg);
  static void ReadCallback(int fd, short what, void* arg);
  static void WriteCallback(int fd, short what, void* arg);
  static void CronCallback(int fd, short what, void* arg);
  static void SignalCallback(int sig, short what, void* arg);

  SystemClock system_clock_;
  Clock* clock_;
  Config config_;
  Logger log_;
  Supervision supervision_;
  CommandTable commands_;
  ServerStats stats_;
  CoordinationStats coordination_stats_;
  // Declared first among the libevent owners, so it is destroyed after every event.
  EventBasePtr base_;
  KeyspaceContext keyspace_;
  // Before the databases, so it outlives them (their keys are freed inline at destruction).
  std::unique_ptr<LazyFree> lazyfree_;
  KeyspaceHub hub_;
  Propagator propagator_{&keyspace_, &config_};
  std::vector<std::unique_ptr<Database>> dbs_;
  Evictor evictor_{this};
  OwnerIndex owners_;
  FenceFile fence_file_{&config_, &log_};
  WatchIndex watches_{this};
  BlockingCore blocking_;
  // A hand-off is the end of the waiter's BSETTP: recorded as the SETTP it became
  // (server/session_runtime.cc).
  void RecordHandoff(int db, std::string_view key, const BSetTpState& st);
  BSetTpKind bsettp_kind_{&owners_, [this](int db, std::string_view key, const BSetTpState& st) {
                            RecordHandoff(db, key, st);
                          }};
  ExecWatches exec_watches_;
  EventPtr watch_timer_;
  EventPtr block_timer_;
  int64_t block_timer_deadline_ = 0;  // what block_timer_ is armed for (0: not armed)
  SessionRegistry sessions_;
  EventPtr session_timer_;
  int64_t session_timer_deadline_ = 0;  // what session_timer_ is armed for (0: not armed)
  // Ids of the sessions a replay created or gave keys (EndReplayedSessions).
  std::vector<uint64_t> replayed_sessions_;
  bool follows_master_ = false;         // FollowMaster
  std::vector<Client*> pending_flush_;  // have output to write; flushed in BeforeSleep
  // Queues a client for the write pass (once per turn, whatever produced the output).
  void ScheduleFlush(Client* c) {
    if (c->has_flag(kClientPendingFlush)) return;
    c->set_flag(kClientPendingFlush, true);
    pending_flush_.push_back(c);
  }
  std::vector<Client*> unblocked_;  // resumed at the end of the callback
  // io-threads N > 1: the helpers of the write pass (nullptr with io-threads 1), whether the
  // last pass used them (INFO io_threads_active), and the test switch that uses them for every
  // batch (REDISTP_IO_THREADS_ALWAYS=1 in the environment; server/threaded_io.cc).
  std::unique_ptr<IoThreads> io_threads_;
  std::vector<Client*> pending_reads_;  // io-threads-do-reads: read in this turn's read pass
  // Read by the pass, input not run yet: (client, bytes read), the next one at read_ready_next_.
  std::vector<std::pair<Client*, size_t>> read_ready_;
  size_t read_ready_next_ = 0;
  bool io_threads_active_ = false;
  bool io_threads_always_ = false;
  std::vector<Client*> leased_;  // clients with CLIENT LEASE, checked by cron

  struct Listener {
    int fd;
    bool unix_socket;
    EventPtr ev;
    Server* server;
    bool tls = false;
  };
  std::vector<std::unique_ptr<Listener>> listeners_;
  std::vector<std::function<void()>> child_listener_closers_;
  EventPtr cron_ev_;
  int bound_port_ = 0;
  int bound_tls_port_ = 0;
  bool bound_listeners_once_ = false;  // startup's Listen() succeeded (later binds: CONFIG SET)
  TlsContext tls_ctx_;
  std::vector<std::string> bound_bind_;

  std::map<uint64_t, Client*> clients_;
  std::vector<Client*> monitors_;

  // Pub/Sub:
  PubSub pubsub_{this};
  // keyspace notifications: notify-keyspace-events published through pubsub_ (the hub's last
  // listener, server/notifications.h).
  KeyspaceNotifier notifier_{this};
  // client-side caching:
  Tracking tracking_{this};
  // existence events over Pub/Sub:
  WatchexPublisher watchex_pubsub_{this, &hub_};

  // scripting:
  bool pre_command_oom_ = false;
  bool scripts_may_run_noscript_ = false;
  size_t script_heap_bytes_ = 0;
  uint64_t script_rand_state_ = 0x1234ABCD330EULL;

  // busy scripts (server/busy.cc; entered only through BusyPeriod):
  void BeginBusyScript(Client* caller, bool is_eval);
  void EndBusyScript();
  // One non-blocking pass over the listeners and the connections (never the caller's): accepts,
  // reads and runs what arrived, writes the replies. Returns at once when nothing is ready.
  void ProcessEventsWhileBusy();
  Client* busy_caller_ = nullptr;  // the busy script's caller; null while no script is busy
  bool busy_is_eval_ = true;
  bool loading_ = false;
  // Loading periods (server/loading.cc): nesting depth, INFO's figures, the byte count at
  // which the next pass serves the clients, and whether that pass opened the poll set.
  void BeginLoading(uint64_t total_bytes);
  void EndLoading();
  void KeyLoadDelay();
  void ServeWhileLoading();
  int loading_depth_ = 0;
  bool loading_was_set_ = false;
  LoadingStats loading_stats_;
  uint64_t loading_next_serve_ = 0;
  bool loading_owns_poll_ = false;
  int busy_poll_fd_ = -1;  // epoll set of the listeners and the connections while busy
  // Sessions that ended while busy: their temporary keys are released after the script
  // (ReleaseDeferredOwners), so a script never sees keys vanish under it.
  std::vector<std::pair<uint64_t, ReleaseCause>> busy_ended_owners_;
  void ReleaseDeferredOwners();
  // Adds the client to the busy poll set (add) or updates its events to its write state.
  void BusyWatch(Client* c, bool add);
  // One round of ProcessEventsWhileBusy; false when nothing was ready.
  bool BusyRound();

  // Following a master (server/replica_role.h).
  ReplicaRole replica_role_;

  // While a subsystem refuses writes (Subsystem::WriteRefusal): whether this command
  // is one it refuses (a write, PING outside scripts, an EXEC whose queue holds a write).
  bool RefuseForDiskError(const Client* c, const CommandSpec* spec, bool from_script) const;
  Authorizer* authorizer_ = nullptr;
  ClusterRouter* cluster_router_ = nullptr;

  // --- subsystems (server/subsystem.cc) ---
  void AttachSubsystem(SubsystemSlot slot, const void* tag, uint32_t hooks,
                       std::unique_ptr<Subsystem> s);
  // Refills the hook lists from the rows (after an attach or a removal).
  void RebuildHookLists();
  // Stop hooks in reverse slot order, then each subsystem unsubscribed and destroyed, last row
  // first (~Server, before clients and databases).
  void DestroySubsystems();
  // The rows, declared after every member a subsystem refers to (databases, Lua's heap count
  // ...) but destroyed explicitly first, by DestroySubsystems.
  std::array<SubsystemEntry, static_cast<size_t>(SubsystemSlot::kCount)> subsystems_;
  SubsystemHookList cron_hooks_, before_sleep_hooks_, close_hooks_, shutdown_hooks_, refusal_hooks_;
  bool subsystems_started_ = false;

 public:
  // CLIENT LEASE: sets (ms > 0) or removes (0) the client's liveness lease.
  void SetLease(Client* c, int64_t ms);

 private:
  std::vector<Client*> pending_free_;
  std::vector<Client*> paused_;
  uint64_t next_client_id_ = 1;

  int64_t pause_end_ms_ = 0;
  bool pause_writes_only_ = false;
  uint8_t server_pauses_ = 0;  // WritePause bits
  // Any pause, CLIENT PAUSE or the server's own: nothing expires, is evicted or is served.
  bool any_pause() const { return pause_end_ms_ != 0 || server_pauses_ != 0; }
  // Runs again the input of the clients CLIENT PAUSE held (those still held are held again).
  void ResumePausedClients();
  // The waiting shutdown: ends it when the replicas caught up or its time is up (Cron and
  // BeforeSleep call it while one waits).
  void CheckShutdownWait();
  // The final steps (PrepareShutdown) and the end of the loop; false if a step refused.
  bool FinishShutdown(int flags, bool from_signal);
  // Ends a waiting shutdown that does not exit: waiters get the error, writes resume.
  void CancelShutdownWait();
  ShutdownWait shutdown_wait_;
  ReplicaAcks* replica_acks_ = nullptr;
  bool cron_paused_ = false;
  int64_t reply_peak_reset_ms_ = kReplyPeakResetDefaultMs;
  bool reply_buffer_resizing_ = true;
  // The clients cron's sizing of one connection's buffers (server.cc): the query buffer
  // (idle, or much bigger than its recent peak) and the reply buffer (by its peak).
  void ResizeClientBuffers(Client* c, int64_t now);

  std::deque<SlowlogEntry> slowlog_;
  uint64_t slowlog_next_id_ = 0;
  std::map<std::string, LatencyEvent> latency_;

  int64_t start_time_ms_ = 0;
  int64_t last_save_time_ = 0;
  std::string run_id_;
  std::string executable_;
  uint64_t cron_loops_ = 0;
  int current_hz_ = 10;
  mutable size_t used_memory_peak_ = 0;
  size_t used_memory_startup_ = 0;
  bool shutdown_requested_ = false;
  int exit_code_ = 0;
  const Client* running_client_ = nullptr;
  const CommandSpec* running_spec_ = nullptr;
  const std::vector<std::string_view>* running_args_ = nullptr;
  // Error accounting (Execute): total_error_replies when the last command ended (a command is
  // failed when errors were counted since, wherever they were written, as in Redis 7.0), and
  // the errors that commands run by EXEC counted on their client, which EXEC must not count
  // again.
  uint64_t error_mark_ = 0;
  // One clock reading per command in a pipeline (ProcessInput): the time a command ended is the
  // next one's start, when nothing else ran in between. `next_start_us_` is that carried time
  // (0: read the clock), taken by the next Execute; `last_end_us_` and `executions_` are what
  // Execute leaves for ProcessInput to carry.
  int64_t next_start_us_ = 0;
  int64_t last_end_us_ = 0;
  uint64_t executions_ = 0;
  std::unordered_map<uint64_t, BlockedCall> blocked_calls_;  // by client id
  // The oom_score_adj the process started with (read once), and whether it was changed since.
  int oom_score_base_ = 0;
  bool oom_score_base_read_ = false;
  bool oom_score_changed_ = false;
  uint64_t exec_counted_errors_ = 0;
};

}  // namespace redistp
