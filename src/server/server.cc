// Server lifecycle: construction, listeners, the cron, signals and shutdown.
//
// Cron runs `hz` times a second (dynamic-hz raises it with many clients, as Redis does). Each
// tick: refresh the cached clocks, active expiry per database within a time budget, incremental
// rehash and shrink, idle-timeout and output-buffer checks on a slice of the clients, the
// instantaneous-metrics samples, and the end of a CLIENT PAUSE.
#include "server/server.h"

#include <event2/event.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>

#include "db/lazy_free.h"
#include "server/crash_report.h"
#include "server/proc_title.h"
#include "server/shutdown_signals.h"
#include "util/hash_table.h"
#include "util/io_threads.h"
#include "util/memory.h"

namespace redistp {

namespace {
// How long a connection sends nothing before the cron frees its empty query buffer and
// shrinks its written-out reply buffer.
constexpr int64_t kIdleBufferMs = 2000;
}  // namespace

Server::Server(Config config, Clock* clock)
    : clock_(clock != nullptr ? clock : &system_clock_), config_(std::move(config)) {
  std::random_device rd;
  static const char kHex[] = "0123456789abcdef";
  for (int i = 0; i < 40; ++i) run_id_.push_back(kHex[rd() & 15]);
  // The seed is process-wide (util/hash.h) and drawn once per process: a second Server in the
  // same process (tests that join two in-process servers as master and replica) must not
  // re-key the tables of the first.
  static std::once_flag seeded;
  std::call_once(seeded, [&rd] { Dict::SetHashSeed((static_cast<uint64_t>(rd()) << 32) ^ rd()); });
  keyspace_.listener = &hub_;
  keyspace_.clock = clock_;
  // The key tables grow only when their new bucket arrays fit under maxmemory (Redis's
  // dictExpandAllowed): otherwise the growth itself would evict keys.
  keyspace_.table_growth_allowed = [](const void* arg, size_t bytes) {
    const auto* s = static_cast<const Server*>(arg);
    const uint64_t limit = s->config_.maxmemory;
    if (limit == 0) return true;
    const size_t used = s->evictor_.UsedMemory() + bytes;
    return used <= limit || used - std::min(used, s->NotCountedMemory()) <= limit;
  };
  keyspace_.table_growth_arg = this;
  lazyfree_ = std::make_unique<LazyFree>();
  keyspace_.lazyfree = lazyfree_.get();
  // io-threads is immutable: the helpers live as long as the server (server/threaded_io.cc).
  if (config_.io_threads > 1) io_threads_ = std::make_unique<IoThreads>(config_.io_threads);
  const char* always = std::getenv("REDISTP_IO_THREADS_ALWAYS");
  io_threads_always_ = always != nullptr && std::string_view(always) == "1";
  blocking_.set_interest(&watches_);
  // The hub calls listeners in this order, which is the order in which one key change reaches
  // a connection (docs/client-side-caching.md, "Order"): ownership first (no messages), then
  // the tracking invalidation, the WATCHEX push and its `__watchex@` Pub/Sub message, and the
  // keyspace notifications (`__keyspace@` then `__keyevent@`) last, as Redis sends an
  // invalidation before the notification of the same change.
  hub_.Subscribe(&owners_);
  owners_.set_time_source(&keyspace_);
  hub_.Subscribe(&tracking_);
  hub_.Subscribe(&watches_);
  // `__watchex@` messages of pattern subscribers; enabled only while a pattern can see them.
  hub_.Subscribe(&watchex_pubsub_, false);
  hub_.Subscribe(&blocking_);
  hub_.Subscribe(&exec_watches_);
  hub_.Subscribe(&propagator_);
  notifier_.Attach(&hub_);  // in the hub only while notify-keyspace-events has a class on
  start_time_ms_ = NowMs();
  last_save_time_ = start_time_ms_ / 1000;
  keyspace_.command_clock.UpdateWithLru(start_time_ms_);
}

Server::~Server() {
  // The subsystems go first: the persistence layer's AOF-loading client and the scripting
  // engine's client refer to a database.
  DestroySubsystems();
  // Clients (and their events) go first; the other events are members declared after base_,
  // so they are freed before it.
  for (auto& [id, c] : clients_) {
    if (c->fd >= 0) close(c->fd);
    delete c;
  }
  clients_.clear();
  ReapClients();
  for (auto& l : listeners_) close(l->fd);
  dbs_.clear();
}

Status Server::Init(Listeners listeners) {
  log_.Configure(config_.logfile, static_cast<LogLevel>(config_.loglevel));
  base_.reset(event_base_new());
  if (base_ == nullptr) return Status::Error("Failed creating the event loop");
  for (int i = 0; i < config_.databases; ++i) {
    dbs_.push_back(std::make_unique<Database>(i, &keyspace_));
  }
  Status s = AdjustOpenFilesLimit();
  if (!s.ok()) log_.Log(LogLevel::kWarning, "%s", s.message().c_str());
  // TLS is configured before anything listens: a bad certificate stops the start, as in Redis.
  if (config_.tls_port != 0 || config_.tls_replication || config_.tls_cluster) {
    s = ConfigureTls();
    if (!s.ok()) {
      log_.Log(LogLevel::kWarning, "%s", s.message().c_str());
      return Status::Error("Failed to configure TLS. Check logs for more info.");
    }
  }
  if (listeners == Listeners::kOpen) {
    s = Listen();
    if (!s.ok()) return s;
  }
  config_.OnChange({"port", "bind", "tls-port"}, [this]() {
    // A TLS port opened by CONFIG SET needs the contexts the start did not build.
    if (config_.tls_port != 0 && !tls_ctx_.ready()) {
      Status t = ConfigureTls();
      if (!t.ok()) {
        log_.Log(LogLevel::kWarning, "%s", t.message().c_str());
        return Status::Error("Unable to update TLS configuration. Check server logs.");
      }
    }
    Status r = RelistenTcp();
    if (!r.ok()) {
      return Status::Error(config_.port != bound_port_ || config_.tls_port != bound_tls_port_
                               ? "Unable to listen on this port. Check server logs."
                               : "Failed to bind to specified addresses.");
    }
    return Status::Ok();
  });
  // Any TLS setting rebuilds the contexts while TLS is in use; new connections get the new
  // ones, established ones keep theirs. A failure keeps the old contexts and undoes the SET.
  config_.OnChange(
      {"tls-cert-file", "tls-key-file", "tls-key-file-pass", "tls-client-cert-file",
       "tls-client-key-file", "tls-client-key-file-pass", "tls-dh-params-file", "tls-ca-cert-file",
       "tls-ca-cert-dir", "tls-protocols", "tls-ciphers", "tls-ciphersuites",
       "tls-prefer-server-ciphers", "tls-session-caching", "tls-session-cache-size",
       "tls-session-cache-timeout", "tls-auth-clients", "tls-replication", "tls-cluster"},
      [this]() {
        if (config_.tls_port == 0 && !config_.tls_replication && !config_.tls_cluster) {
          return Status::Ok();
        }
        Status t = ConfigureTls();
        if (!t.ok()) {
          log_.Log(LogLevel::kWarning, "%s", t.message().c_str());
          return Status::Error("Unable to update TLS configuration. Check server logs.");
        }
        return Status::Ok();
      });
  config_.OnApplyFailure([this](std::string_view name) {
    log_.Log(LogLevel::kWarning,
             "Failed applying new configuration. Possibly related to new %.*s setting. "
             "Restoring previous settings.",
             static_cast<int>(name.size()), name.data());
  });
  config_.OnChange("maxclients", [this]() { return AdjustOpenFilesLimit(); });
  // The starting oom_score_adj is read now, before anything changes it; a configured
  // oom-score-adj applies from the start (a refusal is only logged then).
  (void)ApplyOomScoreAdj();
  config_.OnChange({"oom-score-adj", "oom-score-adj-values"},
                   [this]() { return ApplyOomScoreAdj(); });
  // A new title template shows at once (main sets the first title once the ports are bound).
  config_.OnChange("proc-title-template", [this]() {
    ApplyServerProcTitle(*this);
    return Status::Ok();
  });
  // The reservation file moved: it holds no mark yet, so the next token reserves there first.
  config_.OnChange({"dir", "tp-fence-file"}, [this]() {
    owners_.fences().ForgetReservation();
    return Status::Ok();
  });
  // A maxmemory lowered below the used figure warns and evicts at once, as Redis 7.0 does.
  config_.OnChange("maxmemory", [this]() {
    if (config_.maxmemory == 0) return Status::Ok();
    size_t used = UsedMemory();
    if (config_.maxmemory < used) {
      log_.Log(LogLevel::kWarning,
               "WARNING: the new maxmemory value set via CONFIG SET (%llu) is smaller than the "
               "current memory usage (%zu). This will result in key eviction and/or the "
               "inability to accept new write commands depending on the maxmemory-policy.",
               static_cast<unsigned long long>(config_.maxmemory), used);
    }
    evictor_.Perform();
    return Status::Ok();
  });

  // SIGTERM/SIGINT are recorded by a plain handler and acted on by the cron tick
  // (server/shutdown_signals.h), as Redis does.
  if (listeners == Listeners::kOpen) InstallShutdownSignalHandlers(log_.file());
  signal(SIGPIPE, SIG_IGN);
  current_hz_ = static_cast<int>(config_.hz);
  cron_ev_.reset(event_new(base_.get(), -1, EV_PERSIST, &Server::CronCallback, this));
  timeval tv{0, 1000000 / std::max(1, current_hz_)};
  event_add(cron_ev_.get(), &tv);
  config_.OnChange("hz", [this]() {
    current_hz_ = static_cast<int>(config_.hz);
    timeval t{0, 1000000 / std::max(1, current_hz_)};
    event_add(cron_ev_.get(), &t);
    return Status::Ok();
  });
  config_.OnChange("loglevel", [this]() {
    log_.set_level(static_cast<LogLevel>(config_.loglevel));
    return Status::Ok();
  });
  config_.OnChange("logfile", [this]() {
    log_.Configure(config_.logfile, static_cast<LogLevel>(config_.loglevel));
    return Status::Ok();
  });
  auto sync_access_tracking = [this]() {
    MaxmemoryPolicy p = config_.maxmemory_policy_kind;
    keyspace_.lfu = p == MaxmemoryPolicy::kVolatileLfu || p == MaxmemoryPolicy::kAllkeysLfu;
    keyspace_.lfu_log_factor = config_.lfu_log_factor;
    keyspace_.lfu_decay_time = config_.lfu_decay_time;
    return Status::Ok();
  };
  sync_access_tracking();
  config_.OnChange({"maxmemory-policy", "lfu-log-factor", "lfu-decay-time"}, sync_access_tracking);
  auto sync_lazyfree = [this]() {
    keyspace_.lazy.expire = config_.lazyfree_lazy_expire;
    keyspace_.lazy.eviction = config_.lazyfree_lazy_eviction;
    keyspace_.lazy.server_del = config_.lazyfree_lazy_server_del;
    return Status::Ok();
  };
  sync_lazyfree();
  config_.OnChange({"maxmemory-clients", "maxmemory"}, [this]() {
    client_mem_counted_ = false;  // the next read or cron recounts under the new limit
    return Status::Ok();
  });
  config_.OnChange({"lazyfree-lazy-expire", "lazyfree-lazy-eviction", "lazyfree-lazy-server-del"},
                   sync_lazyfree);
  auto sync_type_limits = [this]() {
    TypeLimits& l = keyspace_.limits;
    l.list_max_listpack_size = config_.list_max_listpack_size;
    l.list_compress_depth = config_.list_compress_depth;
    l.hash_max_listpack_entries = static_cast<size_t>(config_.hash_max_listpack_entries);
    l.hash_max_listpack_value = static_cast<size_t>(config_.hash_max_listpack_value);
    l.set_max_intset_entries = static_cast<size_t>(config_.set_max_intset_entries);
    l.zset_max_listpack_entries = static_cast<size_t>(config_.zset_max_listpack_entries);
    l.zset_max_listpack_value = static_cast<size_t>(config_.zset_max_listpack_value);
    l.stream_node_max_bytes = static_cast<size_t>(config_.stream_node_max_bytes);
    l.stream_node_max_entries = static_cast<size_t>(config_.stream_node_max_entries);
    return Status::Ok();
  };
  sync_type_limits();
  config_.OnChange(
      {"list-max-listpack-size", "list-compress-depth", "hash-max-listpack-entries",
       "hash-max-listpack-value", "set-max-intset-entries", "zset-max-listpack-entries",
       "zset-max-listpack-value", "stream-node-max-bytes", "stream-node-max-entries"},
      sync_type_limits);
  watch_timer_.reset(evtimer_new(base_.get(), &Server::WatchTimerCallback, this));
  block_timer_.reset(evtimer_new(base_.get(), &Server::BlockTimerCallback, this));
  session_timer_.reset(evtimer_new(base_.get(), &Server::SessionTimerCallback, this));
  if (listeners == Listeners::kOpen) WritePidFile();
  used_memory_startup_ = ReadMemoryStats().allocated;
  return Status::Ok();
}

Status Server::AdjustOpenFilesLimit() {
  // Listeners, the log, the pid file and a few spare descriptors on top of the clients.
  constexpr rlim_t kReserved = 32;
  rlim_t want = static_cast<rlim_t>(config_.maxclients) + kReserved;
  rlimit lim;
  if (getrlimit(RLIMIT_NOFILE, &lim) != 0) return Status::Ok();
  if (lim.rlim_cur >= want) return Status::Ok();
  rlimit raised = lim;
  raised.rlim_cur = std::min(want, lim.rlim_max);
  if (setrlimit(RLIMIT_NOFILE, &raised) == 0 && raised.rlim_cur >= want) return Status::Ok();
  rlim_t got = raised.rlim_cur > kReserved ? raised.rlim_cur - kReserved : 1;
  return Status::Error(
      "The operating system is not able to handle the specified number of clients, try with " +
      std::to_string(got));
}

void Server::WritePidFile() {
  if (config_.pidfile.empty()) return;
  std::ofstream f(config_.pidfile);
  if (f) f << getpid() << "\n";
}

int Server::Run() {
  log_.Log(LogLevel::kNotice, "Ready to accept connections");
  NotifySupervisor(replica_role_.following
                       ? "STATUS=Ready to accept connections in read-only mode. Waiting for "
                         "MASTER <-> REPLICA sync\n"
                       : "STATUS=Ready to accept connections\n");
  NotifySupervisor("READY=1\n");
  // The first cron tick runs in the first loop turn, not one period later: Redis's serverCron
  // first fires a millisecond after startup, and so a replica of the config file connects to
  // its master at once (a Sentinel started right after it sees it in its first INFO of the
  // master, and asks again only 10 s later).
  timeval at_once{0, 0};
  event_base_once(base_.get(), -1, EV_TIMEOUT, &Server::CronCallback, this, &at_once);
  // One loop turn = every ready event's callback, then BeforeSleep (libevent 2.1 has no
  // "prepare" hook, so the loop is driven turn by turn).
  while (!shutdown_requested_) {
    if (event_base_loop(base_.get(), EVLOOP_ONCE) != 0) break;
    if (!pending_reads_.empty()) ReadPending();
    BeforeSleep();
  }
  log_.Log(LogLevel::kWarning, "Redis is now ready to exit, bye bye...");
  if (!config_.pidfile.empty()) unlink(config_.pidfile.c_str());
  if (!config_.unixsocket.empty()) unlink(config_.unixsocket.c_str());
  return exit_code_;
}

void Server::RequestShutdown(bool from_signal) {
  (void)from_signal;
  shutdown_requested_ = true;
  // Replies already produced (e.g. to other clients in this turn) are flushed best-effort.
  for (auto& [id, c] : clients_) {
    if (c->out.Readable() > 0) {
      iovec iov[16];
      int cnt = c->out.Gather(iov, 16);
      // What went out is consumed: the loop may still flush this turn's output before it
      // stops, and must not send those bytes a second time.
      ssize_t n = -1;
      if (c->tls != nullptr) {
        if (!c->tls->handshaking()) n = c->tls->Write(iov[0].iov_base, iov[0].iov_len);
      } else {
        n = writev(c->fd, iov, cnt);
      }
      if (n > 0) c->out.Consume(static_cast<size_t>(n));
    }
  }
  if (base_ != nullptr) event_base_loopbreak(base_.get());
}

void Server::OnChildChanged(bool active) {
  keyspace_.child_active = active;
  // While a forked child (BGSAVE, AOF rewrite) shares the memory, every hash table (the keys
  // and the sets, hashes and sorted sets) grows only past a load of 5 and never shrinks: a
  // resize relinks every element, which would make the kernel copy each page for the child.
  SetHashTableResizeAllowed(!active);
}

void Server::CloseListenersInChild() {
  for (auto& l : listeners_) close(l->fd);
  for (auto& fn : child_listener_closers_) fn();
}

// Acts on a recorded shutdown signal (called from the cron tick; `what` and the event are
// unused). While the final save runs, a second SIGINT exits from the handler.
void Server::SignalCallback(int sig, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->log_.Log(LogLevel::kWarning, "Received %s scheduling shutdown...",
              sig == SIGINT ? "SIGINT" : "SIGTERM");
  SetSignalShutdownRunning(true);
  // The final save (save points set, or shutdown-on-sig* says so); if it fails the server
  // keeps running, as Redis does.
  s->log_.Log(LogLevel::kWarning, "User requested shutdown...");
  int flags = sig == SIGINT ? s->config_.shutdown_on_sigint : s->config_.shutdown_on_sigterm;
  // With replicas attached this first waits for them (server/shutdown.cc), as SHUTDOWN does.
  const ShutdownStart started = s->BeginShutdown(flags, nullptr, true);
  if (started != ShutdownStart::kExiting) SetSignalShutdownRunning(false);
  if (started == ShutdownStart::kRefused) {
    // Redis 7.0.15 logs the same line as for a refused SHUTDOWN command.
    s->log_.Log(LogLevel::kWarning,
                "Errors trying to shut down the server. Check the logs for more information.");
  }
}

void Server::CronCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->Cron();
  s->AfterCallback();
}

void Server::Cron() {
  if (cron_paused_) {
    // DEBUG PAUSE-CRON: the periodic work stops; a CLIENT PAUSE still ends on time.
    if (pause_end_ms_ != 0 && NowMs() >= pause_end_ms_) UnpauseClients();
    return;
  }
  // A shutdown signal waits for the cron (so DEBUG PAUSE-CRON holds it, and SHUTDOWN ABORT
  // may cancel it), and for a shutdown already waiting for replicas to end.
  if (PendingShutdownSignal() != 0 && !shutdown_waiting()) {
    SignalCallback(TakeShutdownSignal(), 0, this);
    if (shutdown_requested_) return;
  }
  RearmWatchdog();  // watchdog-period: only a turn longer than the period trips it
  ++cron_loops_;
  int64_t now = NowMs();
  keyspace_.command_clock.UpdateWithLru(now);

  // Active expiry: 25% of a tick's time, shared by the databases (Redis's slow cycle).
  const int hz = std::max(1, current_hz_);
  int64_t budget_us = 1000000 / hz / 4;
  int64_t deadline = clock_->MonotonicUs() + budget_us;
  // Nothing expires during a pause (CLIENT PAUSE either mode, the server's own), as in Redis
  // 7.0, nor on a replica, whose keys go when its master's DELs arrive.
  if (keyspace_.expiry.active_enabled() && !any_pause() && !replica_role_.following) {
    const int64_t cycle_start_us = clock_->MonotonicUs();
    for (auto& db : dbs_) {
      db->ActiveExpireCycle(deadline, static_cast<int>(config_.active_expire_effort));
      // Hash fields with expire times (HEXPIRE ...), within the same budget.
      db->ActiveExpireFields(deadline, static_cast<int>(config_.active_expire_effort));
    }
    // A cycle as long as latency-monitor-threshold is a latency event of its own (LATENCY).
    const int64_t cycle_ms = (clock_->MonotonicUs() - cycle_start_us) / 1000;
    if (config_.latency_monitor_threshold > 0 && cycle_ms >= config_.latency_monitor_threshold) {
      LatencyAddSample("expire-cycle", static_cast<uint32_t>(cycle_ms));
    }
  }
  // Incremental rehash and shrinking wait while a forked child shares the memory.
  if (!keyspace_.child_active) {
    for (auto& db : dbs_) db->Cron(1000);
  }
  // Client-side caching: the key table back under tracking-table-max-keys even while idle (a
  // CONFIG SET lowering it takes effect without a next command).
  if (tracking_.clients() > 0) tracking_.EnforceLimit(config_.tracking_table_max_keys);

  // Clients: idle timeout and soft output limits. Work proportional to clients, but only
  // `hz` times per second and O(1) each, like Redis's clientsCron.
  if (config_.timeout > 0 || !clients_.empty()) {
    // Closing a client erases it from clients_, so the walk only collects; the closing comes
    // after it (an output-limit check may close the client it checks).
    std::vector<Client*> expired;
    std::vector<Client*> with_output;
    for (auto& [id, c] : clients_) {
      // Monitors, blocked clients and subscribers wait for the server, not the reverse.
      // Replication links (a replica's connection, the link to our master) never idle out.
      if (config_.timeout > 0 && !c->has_flag(kClientMonitor) && !c->blocking.active &&
          c->kind() == ClientKind::kNormal && !c->has_flag(kClientPaused) &&
          !PubSub::Subscribed(*c) && now - c->last_interaction_ms > config_.timeout * 1000) {
        expired.push_back(c);
        continue;
      }
      if (c->out.Readable() > 0) with_output.push_back(c);
      ResizeClientBuffers(c, now);
    }
    for (Client* c : expired) {
      log_.Log(LogLevel::kVerbose, "Closing idle client");
      CloseClient(c, "idle timeout");
    }
    for (Client* c : with_output) CheckOutputLimits(c);  // returns at once for a closed client
  }
  // Client eviction: buffers that grew without a command of their owner (client_eviction.cc).
  if (config_.maxmemory_clients != 0) ClientEvictionCron();
  // CLIENT LEASE: no bytes received for lease_ms closes the connection, blocked or not.
  if (!leased_.empty()) {
    std::vector<Client*> lapsed;
    for (Client* c : leased_) {
      if (now - c->last_read_ms > c->session_state.lease_ms) lapsed.push_back(c);
    }
    for (Client* c : lapsed) CloseClient(c, "lease expired", ReleaseCause::kLease);
  }
  // The subsystems, in slot order (server/subsystem.h): persistence (a finished child, save
  // points, scheduled saves, the AOF's fsync and rewrite), then MIGRATE (idle connections).
  const SubsystemHookList cron = cron_hooks_;
  for (size_t i = 0; i < cron.n; ++i) cron.items[i]->Cron();
  // A shutdown waiting for replicas whose time is up (server/shutdown.cc).
  if (shutdown_waiting()) CheckShutdownWait();

  // Instantaneous metrics every 100ms.
  if (now - stats_.last_sample_ms >= 100) {
    int64_t dt = stats_.last_sample_ms == 0 ? 100 : now - stats_.last_sample_ms;
    int i = stats_.sample_idx;
    stats_.ops_samples[i] = (stats_.total_commands_processed - stats_.last_sample_ops) * 1000 /
                            static_cast<uint64_t>(dt);
    stats_.in_samples[i] =
        (stats_.net_input_bytes - stats_.last_sample_in) * 1000 / static_cast<uint64_t>(dt);
    stats_.out_samples[i] =
        (stats_.net_output_bytes - stats_.last_sample_out) * 1000 / static_cast<uint64_t>(dt);
    stats_.sample_idx = (i + 1) % ServerStats::kSamples;
    stats_.last_sample_ms = now;
    stats_.last_sample_ops = stats_.total_commands_processed;
    stats_.last_sample_in = stats_.net_input_bytes;
    stats_.last_sample_out = stats_.net_output_bytes;
  }

  if (pause_end_ms_ != 0 && now >= pause_end_ms_) UnpauseClients();
  if ((cron_loops_ % static_cast<uint64_t>(hz)) == 0) ReadMemoryStats();  // keeps the peak fresh
  // A maxmemory eviction pass that ran out of time continues here (eviction.h).
  if (evictor_.follow_up() && !any_pause()) evictor_.Perform();
}

MemoryStats Server::ReadMemoryStats() const {
  MemoryStats m;
  AllocatorStats a = ReadAllocatorStats();
  m.allocated = a.allocated;
  m.active = a.active;
  m.resident = a.resident;
  m.mapped = a.mapped;
  m.retained = a.retained;
  // Eviction's cheap figure restarts from this total, so INFO and eviction agree.
  evictor_.Rebase(a.allocated);
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (f != nullptr) {
    unsigned long pages_total = 0, pages_rss = 0;
    if (std::fscanf(f, "%lu %lu", &pages_total, &pages_rss) == 2) {
      m.rss = pages_rss * static_cast<size_t>(sysconf(_SC_PAGESIZE));
    }
    std::fclose(f);
  }
  if (m.allocated > used_memory_peak_) used_memory_peak_ = m.allocated;
  return m;
}

void Server::ResizeClientBuffers(Client* c, int64_t now) {
  // The query buffer, as Redis 7.0's clients cron sizes it, and only when at least 4 KB of it
  // is unused: a connection that sent nothing for two seconds gives back all the room it does
  // not use (an idle pooled connection costs no read buffer); a buffer over 32 KB and more
  // than twice what it held since the last look (the room one big argument left) shrinks to
  // that peak, but never under the bytes it holds or the bulk argument being received.
  constexpr size_t kQueryWasteMin = 4 * 1024;
  constexpr size_t kQueryResizeThreshold = 32 * 1024;
  ByteBuffer& q = c->query;
  const size_t held = q.Readable();
  const size_t missing = c->parser.bulk_bytes_missing(held);
  if (q.Capacity() - held > kQueryWasteMin) {
    if (now - c->last_read_ms > kIdleBufferMs) {
      q.ShrinkTo(0);
    } else if (q.Capacity() > kQueryResizeThreshold && q.Capacity() / 2 > c->query_peak) {
      q.ShrinkTo(std::max(c->query_peak, held + missing));
    }
  }
  // The next look compares with what the buffer holds from now on.
  c->query_peak = held + missing;
  // The reply buffer: by its peak use (ReplyBuffer::CronResize), the peak restarting every
  // reply_peak_reset_ms_ (DEBUG REPLYBUFFER PEAK-RESET-TIME).
  const bool reset =
      reply_peak_reset_ms_ >= 0 && now - c->out_peak_reset_ms >= reply_peak_reset_ms_;
  if (reset) c->out_peak_reset_ms = now;
  c->out.CronResize(reply_buffer_resizing_, reset);
}

std::string Server::ClientInfoLine(const Client& c) const {
  char flags[16];
  size_t nf = 0;
  // Letters in Redis 7.2's order (O S M P x b t R B d c u A U r e T), of those we can have.
  if (c.has_flag(kClientMonitor)) flags[nf++] = 'O';
  if (c.kind() == ClientKind::kReplica) flags[nf++] = 'S';
  if (PubSub::Subscribed(c)) flags[nf++] = 'P';
  // The link to our master (Redis lists it with M, before the letters below).
  if (c.kind() == ClientKind::kMasterLink) flags[nf++] = 'M';
  if (c.multi.active) flags[nf++] = 'x';
  // A client held by CLIENT PAUSE is blocked too, as in Redis 7.0.
  if (c.blocking.active || c.has_flag(kClientPaused)) flags[nf++] = 'b';
  if ((c.tracking.flags & kTrackingOn) != 0) flags[nf++] = 't';
  if ((c.tracking.flags & kTrackingBrokenRedir) != 0) flags[nf++] = 'R';
  if ((c.tracking.flags & kTrackingBcast) != 0) flags[nf++] = 'B';
  if (c.has_flag(kClientCloseAfterReply)) flags[nf++] = 'c';
  if (c.has_flag(kClientUnixSocket)) flags[nf++] = 'U';
  if (c.has_flag(kClientReadOnly)) flags[nf++] = 'r';  // READONLY (cluster mode)
  if (c.has_flag(kClientNoEvict)) flags[nf++] = 'e';
  if (c.has_flag(kClientNoTouch)) flags[nf++] = 'T';  // Redis 7.2's letter, after e
  if (nf == 0) flags[nf++] = 'N';
  flags[nf] = '\0';
  int64_t now = NowMs();
  const char* events = c.write_armed ? "rw" : "r";
  // argv-mem: bytes of the arguments of the command being run (0 between commands), as Redis.
  size_t argv_mem = 0;
  for (std::string_view a : c.parser.args()) argv_mem += a.size();
  // The free-form fields (name, user, lib-name, lib-ver) are appended as they are, so a long
  // one is never cut; only the numeric runs between them go through snprintf.
  std::string line;
  line.reserve(512 + c.name.size() + c.lib_name.size() + c.lib_ver.size());
  char buf[512];
  std::snprintf(buf, sizeof(buf),
                "id=%llu addr=%s laddr=%s fd=%d name=", static_cast<unsigned long long>(c.id),
                c.addr.c_str(), c.laddr.c_str(), c.fd);
  line += buf;
  line += c.name;
  std::snprintf(buf, sizeof(buf),
                " age=%lld idle=%lld flags=%s db=%d sub=%zu psub=%zu ssub=%zu multi=%d qbuf=%zu "
                "qbuf-free=%zu argv-mem=%zu multi-mem=0 rbs=%zu rbp=%zu obl=%zu oll=%zu omem=%zu "
                "tot-mem=%zu events=%s cmd=",
                static_cast<long long>((now - c.ctime_ms) / 1000),
                static_cast<long long>((now - c.last_interaction_ms) / 1000), flags, c.db_index,
                c.pubsub.subscriptions[PubSub::kChannel].size(),
                c.pubsub.subscriptions[PubSub::kPattern].size(),
                c.pubsub.subscriptions[PubSub::kShard].size(),
                c.multi.active ? static_cast<int>(c.multi.queue.size()) : -1, c.query.Readable(),
                c.query.Capacity() - c.query.Readable(), argv_mem, c.out.static_capacity(),
                c.out.static_peak(), c.out.static_used(), c.out.block_count(), c.out.block_bytes(),
                ClientMemory(c), events);
  line += buf;
  line += c.last_cmd;
  line += " user=";
  // The master link runs as no user at all: Redis shows it as (superuser).
  if (c.kind() == ClientKind::kMasterLink) {
    line += "(superuser)";
  } else if (authorizer_ != nullptr) {
    line += authorizer_->UserName(c);
  } else {
    line += "default";
  }
  std::snprintf(
      buf, sizeof(buf), " redir=%lld resp=%d lib-name=",
      (c.tracking.flags & kTrackingOn) != 0 ? static_cast<long long>(c.tracking.redirect) : -1LL,
      c.reply.resp());
  line += buf;
  // lib-name= and lib-ver= (Redis 7.2's place, after resp=) show always, empty until CLIENT
  // SETINFO: a key=value reader ignores fields it does not know (docs/clients.md).
  line += c.lib_name;
  line += " lib-ver=";
  line += c.lib_ver;
  std::snprintf(buf, sizeof(buf), " tk=%zu wx=%zu", owners_.CountOwnedBy(OwnerIdOf(c)),
                watches_.CountFor(c.id));
  line += buf;
  return line;
}

void Server::DeliverInput(Client* c, std::string_view bytes) {
  if (c->closed) return;
  c->query.Append(bytes);
  c->net_input_bytes += bytes.size();
  stats_.net_input_bytes += bytes.size();
  c->last_interaction_ms = c->last_read_ms = NowMs();
  keyspace_.command_clock.Update(c->last_read_ms);
  ProcessInput(c);
  if (config_.maxmemory_clients != 0) UpdateClientMemoryAndEvict(c);
  if (!c->closed) ScheduleFlush(c);
  AfterCallback();
  BeforeSleep();
}

void Server::DeliverEof(Client* c) {
  CloseClient(c, "Client closed connection");
  AfterCallback();
  BeforeSleep();
}

void Server::RunDueWork() {
  Cron();
  ExpireWatchedKeys();
  ExpireBlockedClients();  // the blocking core's deadlines, read against the clock
  ExpireSessions();        // the ends of detached sessions' graces
  AfterCallback();
  BeforeSleep();
}

}  // namespace redistp
