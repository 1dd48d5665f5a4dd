// INFO: the server's report on itself, in Redis 7.0's layout.
//
// The reply is one text of "# Section" blocks separated by an empty line; each block is a list
// of "field:value" lines ending in CRLF. Sections always come in the fixed order of kSections,
// whatever order the client named them in. Arguments (case-insensitive, any number):
//   none / "default"     the default sections (everything but commandstats and redis-tp's
//                        coordination),
//   "all" / "everything" every section (redis-tp has no modules, so the two are the same),
//   a section name       that section; unknown names are ignored, so INFO of only unknown
//                        names is an empty text.
// RESP3 clients get a verbatim string ("txt"), RESP2 clients a bulk string.
//
// Honesty rule for fields: a field is printed when redis-tp knows its value. Fields describing
// subsystems redis-tp does not have (replication links, forks, AOF, defrag, I/O threads, Lua,
// modules) print the value that is true for their absence: 0, -1 or "ok" as Redis prints for an
// instance where they never ran. Counters redis-tp does not keep are left out rather than
// printed as a made-up 0 (the server.cc counters they need are listed where they would go).
// latencystats (only with "all"/"everything" or by name, as in Redis 7.0) reads each command
// row's latency histogram; it is empty while latency-tracking is off.
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <set>
#include <string>

#include "cluster/bus_link.h"
#include "cluster/cluster.h"
#include "cluster/cluster_bus.h"
#include "commands/server_info.h"
#include "db/database.h"
#include "db/lazy_free.h"
#include "db/slot_index.h"
#include "persistence/persistence.h"
#include "replication/master_side.h"
#include "replication/replication.h"
#include "scripting/function_engine.h"
#include "scripting/script_engine.h"
#include "server/client.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "server/version.h"
#include "util/memory.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Appends one printf-formatted line and the CRLF that ends it.
__attribute__((format(printf, 2, 3))) void Line(std::string* out, const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  int n = std::vsnprintf(buf, sizeof(buf), fmt, ap);
  va_end(ap);
  if (n > 0) out->append(buf, std::min(static_cast<size_t>(n), sizeof(buf) - 1));
  out->append("\r\n");
}

unsigned long long U(uint64_t v) { return static_cast<unsigned long long>(v); }
long long L(int64_t v) { return static_cast<long long>(v); }

// A stable identifier of this build: FNV-1a over the versions and the compiler.
std::string BuildId() {
  std::string seed = std::string(kRedisVersion) + "/" + kRedisTpVersion + "/" + __VERSION__;
  uint64_t h = 1469598103934665603ULL;
  for (char ch : seed) {
    h ^= static_cast<unsigned char>(ch);
    h *= 1099511628211ULL;
  }
  char buf[17];
  std::snprintf(buf, sizeof(buf), "%016llx", U(h));
  return buf;
}

void ServerSection(Server& s, std::string* out) {
  static_assert(sizeof(long) == 8 || sizeof(long) == 4);
  utsname un{};
  uname(&un);
  int64_t now_us = s.NowUs();
  int64_t uptime = (now_us / 1000 - s.start_time_ms()) / 1000;
  Line(out, "redis_version:%s", s.config().compat_version.c_str());
  Line(out, "redis_tp_version:%s", kRedisTpVersion);
  Line(out, "redis_git_sha1:00000000");
  Line(out, "redis_git_dirty:0");
  Line(out, "redis_build_id:%s", BuildId().c_str());
  Line(out, "redis_mode:%s", s.config().cluster_enabled ? "cluster" : "standalone");
  Line(out, "os:%s %s %s", un.sysname, un.release, un.machine);
  Line(out, "arch_bits:%d", static_cast<int>(sizeof(long) * 8));
  Line(out, "monotonic_clock:POSIX clock_gettime");
#ifdef __linux__
  Line(out, "multiplexing_api:epoll");  // libevent's backend of choice on Linux
#endif
  Line(out, "atomicvar_api:c11-builtin");
#ifdef __GNUC__
  Line(out, "gcc_version:%d.%d.%d", __GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__);
#endif
  Line(out, "process_id:%d", static_cast<int>(getpid()));
  Line(out, "process_supervised:%s", std::string(s.supervision().InfoName()).c_str());
  Line(out, "run_id:%s", s.run_id().c_str());
  // A TLS-only server (port 0) shows its tls-port here, as Redis does.
  Line(out, "tcp_port:%d", s.tcp_port() != 0 ? s.tcp_port() : s.tls_port());
  Line(out, "server_time_usec:%lld", L(now_us));
  Line(out, "uptime_in_seconds:%lld", L(uptime));
  Line(out, "uptime_in_days:%lld", L(uptime / 86400));
  Line(out, "hz:%d", s.hz());
  Line(out, "configured_hz:%lld", static_cast<long long>(s.config().hz));
  Line(out, "lru_clock:%u", s.keyspace().lru_clock());
  Line(out, "executable:%s", s.executable().c_str());
  Line(out, "config_file:%s", s.config().config_file.c_str());
  Line(out, "io_threads_active:%d", s.io_threads_active() ? 1 : 0);
}

void ClientsSection(Server& s, std::string* out) {
  // Redis reports the largest buffers seen over the last seconds; redis-tp keeps no history, so
  // these are the largest buffers allocated right now.
  size_t max_in = 0, max_out = 0;
  for (const auto& [id, c] : s.clients()) {
    max_in = std::max(max_in, c->query.Capacity());
    max_out = std::max(max_out, c->out.block_bytes());  // omem, as Redis
  }
  // Replicas' connections are not clients here (Redis: clients minus replicas).
  const size_t replicas = Replication::Of(s).master().replica_count();
  Line(out, "connected_clients:%zu", s.clients().size() - replicas);
  // Redis 7.0 counts two links per known node but myself, whatever is connected.
  const Cluster* cluster = Cluster::Of(s);
  Line(out, "cluster_connections:%zu",
       cluster != nullptr ? (cluster->state().nodes().size() - 1) * 2 : 0);
  Line(out, "maxclients:%lld", static_cast<long long>(s.config().maxclients));
  Line(out, "client_recent_max_input_buffer:%zu", max_in);
  Line(out, "client_recent_max_output_buffer:%zu", max_out);
  // Clients held by CLIENT PAUSE count as blocked, as in Redis 7.0.
  Line(out, "blocked_clients:%zu",
       s.blocking().blocked_count() + s.paused_clients() + s.shutdown_waiters());
  Line(out, "tracking_clients:%zu", s.tracking().clients());
  Line(out, "clients_in_timeout_table:%zu", s.blocking().timeout_count());
}

size_t TotalSystemMemory() {
  long pages = sysconf(_SC_PHYS_PAGES);
  long page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<size_t>(pages) * static_cast<size_t>(page) : 0;
}

void MemorySection(Server& s, std::string* out) {
  MemoryOverview m = ComputeMemoryOverview(s);
  size_t sysmem = TotalSystemMemory();
  uint64_t maxmemory = static_cast<uint64_t>(s.config().maxmemory);
  Line(out, "used_memory:%zu", m.used);
  Line(out, "used_memory_human:%s", BytesToHuman(m.used).c_str());
  Line(out, "used_memory_rss:%zu", m.rss);
  Line(out, "used_memory_rss_human:%s", BytesToHuman(m.rss).c_str());
  Line(out, "used_memory_peak:%zu", m.peak);
  Line(out, "used_memory_peak_human:%s", BytesToHuman(m.peak).c_str());
  Line(out, "used_memory_peak_perc:%.2f%%", m.peak_perc);
  Line(out, "used_memory_overhead:%zu", m.overhead_total);
  Line(out, "used_memory_startup:%zu", m.startup);
  Line(out, "used_memory_dataset:%zu", m.dataset);
  Line(out, "used_memory_dataset_perc:%.2f%%", m.dataset_perc);
  Line(out, "allocator_allocated:%zu", m.allocator_allocated);
  Line(out, "allocator_active:%zu", m.allocator_active);
  Line(out, "allocator_resident:%zu", m.allocator_resident);
  Line(out, "total_system_memory:%zu", sysmem);
  Line(out, "total_system_memory_human:%s", BytesToHuman(sysmem).c_str());
  // Scripting: the EVAL Lua state and script cache, the functions' Lua state and libraries.
  const ScriptEngine& scripts = ScriptEngine::Of(s);
  const FunctionEngine& functions = FunctionEngine::Of(s);
  const size_t vm_eval = scripts.lua_memory();
  const size_t vm_functions = functions.lua_memory();
  const size_t scripts_eval = scripts.cache_memory();
  const size_t functions_mem = functions.memory();
  Line(out, "used_memory_lua:%zu", vm_eval);
  Line(out, "used_memory_vm_eval:%zu", vm_eval);
  Line(out, "used_memory_lua_human:%s", BytesToHuman(vm_eval).c_str());
  Line(out, "used_memory_scripts_eval:%zu", scripts_eval);
  Line(out, "number_of_cached_scripts:%zu", scripts.cached_scripts());
  Line(out, "number_of_functions:%zu", functions.libraries().function_count());
  Line(out, "number_of_libraries:%zu", functions.libraries().library_count());
  Line(out, "used_memory_vm_functions:%zu", vm_functions);
  Line(out, "used_memory_vm_total:%zu", vm_eval + vm_functions);
  Line(out, "used_memory_vm_total_human:%s", BytesToHuman(vm_eval + vm_functions).c_str());
  Line(out, "used_memory_functions:%zu", functions_mem);
  Line(out, "used_memory_scripts:%zu", scripts_eval + functions_mem);
  Line(out, "used_memory_scripts_human:%s", BytesToHuman(scripts_eval + functions_mem).c_str());
  Line(out, "maxmemory:%llu", U(maxmemory));
  Line(out, "maxmemory_human:%s", BytesToHuman(maxmemory).c_str());
  Line(out, "maxmemory_policy:%s", s.config().maxmemory_policy.c_str());
  Line(out, "allocator_frag_ratio:%.2f", m.allocator_frag);
  Line(out, "allocator_frag_bytes:%lld", L(m.allocator_frag_bytes));
  Line(out, "allocator_rss_ratio:%.2f", m.allocator_rss);
  Line(out, "allocator_rss_bytes:%lld", L(m.allocator_rss_bytes));
  Line(out, "rss_overhead_ratio:%.2f", m.rss_extra);
  Line(out, "rss_overhead_bytes:%lld", L(m.rss_extra_bytes));
  Line(out, "mem_fragmentation_ratio:%.2f", m.total_frag);
  Line(out, "mem_fragmentation_bytes:%lld", L(m.total_frag_bytes));
  Line(out, "mem_not_counted_for_evict:%zu", s.NotCountedMemory());
  Line(out, "mem_replication_backlog:%zu", m.repl_backlog);
  // Redis 7.0 shares one buffer between the backlog and the replicas; here the backlog is a
  // ring and each replica's link has its own output buffer, so the total is their sum.
  Line(out, "mem_total_replication_buffers:%zu", m.repl_backlog + m.clients_replicas);
  Line(out, "mem_clients_slaves:%zu", m.clients_replicas);
  Line(out, "mem_clients_normal:%zu", m.clients_normal);
  Line(out, "mem_cluster_links:%zu", m.cluster_links);
  Line(out, "mem_aof_buffer:%zu", m.aof_buffer);
  Line(out, "mem_allocator:%s", AllocatorName());
  Line(out, "active_defrag_running:0");
  Line(out, "lazyfree_pending_objects:%llu", U(s.lazyfree().pending()));
  Line(out, "lazyfreed_objects:%llu", U(s.lazyfree().freed()));
}

void PersistenceSection(Server& s, std::string* out) {
  // A load (at startup, DEBUG RELOAD, DEBUG LOADAOF) serves the clients as it goes
  // (server/loading.cc): loading:1 and the loading_* figures at the end. The current_* fields
  // describe the running child (BGSAVE or AOF rewrite) from what it reported on its info pipe
  // (persistence/child_info.h); 0 without one. Without the persistence subsystem (the in-process
  // harness) nothing was saved or loaded.
  Line(out, "loading:%d", s.loading() ? 1 : 0);
  Line(out, "async_loading:0");
  Persistence* p = s.subsystem<Persistence>();
  const bool child = p != nullptr && p->HasActiveChild();
  const ChildProgress progress = child ? p->child_progress() : ChildProgress{};
  const uint64_t keys_total = child ? p->child_keys_total() : 0;
  const int64_t now_ms = s.NowMs();
  Line(out, "current_cow_peak:%llu", U(progress.cow_peak));
  Line(out, "current_cow_size:%llu", U(progress.cow_bytes));
  Line(out, "current_cow_size_age:%lld",
       L(progress.cow_updated_ms != 0 ? (now_ms - progress.cow_updated_ms) / 1000 : 0));
  Line(out, "current_fork_perc:%.2f",
       keys_total != 0
           ? static_cast<double>(progress.keys_processed) * 100.0 / static_cast<double>(keys_total)
           : 0.0);
  Line(out, "current_save_keys_processed:%llu", U(progress.keys_processed));
  Line(out, "current_save_keys_total:%llu", U(keys_total));
  const bool rdb_child = child && p->child_kind() == ChildKind::kRdb;
  Line(out, "rdb_changes_since_last_save:%llu", U(p != nullptr ? p->changes_since_save() : 0));
  Line(out, "rdb_bgsave_in_progress:%d", rdb_child ? 1 : 0);
  Line(out, "rdb_last_save_time:%lld", L(s.last_save_time()));
  Line(out, "rdb_last_bgsave_status:%s", p == nullptr || p->last_bgsave_ok() ? "ok" : "err");
  Line(out, "rdb_last_bgsave_time_sec:%lld", L(p != nullptr ? p->last_bgsave_seconds() : -1));
  Line(out, "rdb_current_bgsave_time_sec:%lld",
       L(rdb_child ? (now_ms - p->child_start_ms()) / 1000 : -1));
  Line(out, "rdb_saves:%llu", U(p != nullptr ? p->rdb_saves() : 0));
  Line(out, "rdb_last_cow_size:%llu", U(p != nullptr ? p->rdb_last_cow_size() : 0));
  Line(out, "rdb_last_load_keys_expired:%llu", U(p != nullptr ? p->last_load().keys_expired : 0));
  Line(out, "rdb_last_load_keys_loaded:%llu", U(p != nullptr ? p->last_load().keys_loaded : 0));
  // aof_* and module_fork_* fields: the AOF module writes them (persistence/aof.h).
  Persistence::Of(s).aof().WriteInfo(out);
  if (s.loading()) {
    // The progress of the load, in Redis's terms: perc over total+1, and an ETA from the rate
    // so far (1 second while less than a second has passed).
    const LoadingStats& ls = s.loading_stats();
    const int64_t elapsed = now_ms / 1000 - ls.start_time;
    const uint64_t remaining =
        ls.total_bytes > ls.loaded_bytes ? ls.total_bytes - ls.loaded_bytes : 0;
    const int64_t eta = elapsed <= 0 ? 1
                                     : static_cast<int64_t>(static_cast<uint64_t>(elapsed) *
                                                            remaining / (ls.loaded_bytes + 1));
    Line(out, "loading_start_time:%lld", L(ls.start_time));
    Line(out, "loading_total_bytes:%llu", U(ls.total_bytes));
    Line(out, "loading_rdb_used_mem:%llu", U(ls.rdb_used_mem));
    Line(out, "loading_loaded_bytes:%llu", U(ls.loaded_bytes));
    Line(out, "loading_loaded_perc:%.2f",
         static_cast<double>(ls.loaded_bytes) / static_cast<double>(ls.total_bytes + 1) * 100.0);
    Line(out, "loading_eta_seconds:%lld", L(eta));
  }
}

// Mean of the cron's last kSamples instantaneous samples.
uint64_t SampleMean(const uint64_t (&samples)[ServerStats::kSamples]) {
  uint64_t sum = 0;
  for (uint64_t v : samples) sum += v;
  return sum / ServerStats::kSamples;
}

void StatsSection(Server& s, std::string* out) {
  const ServerStats& st = s.stats();
  const KeyspaceContext& ks = s.keyspace();
  Line(out, "total_connections_received:%llu", U(st.total_connections_received));
  Line(out, "total_commands_processed:%llu", U(st.total_commands_processed));
  Line(out, "instantaneous_ops_per_sec:%llu", U(SampleMean(st.ops_samples)));
  Line(out, "total_net_input_bytes:%llu", U(st.net_input_bytes));
  Line(out, "total_net_output_bytes:%llu", U(st.net_output_bytes));
  Line(out, "total_net_repl_input_bytes:0");
  Line(out, "total_net_repl_output_bytes:0");
  Line(out, "instantaneous_input_kbps:%.2f", static_cast<double>(SampleMean(st.in_samples)) / 1024);
  Line(out, "instantaneous_output_kbps:%.2f",
       static_cast<double>(SampleMean(st.out_samples)) / 1024);
  Line(out, "instantaneous_input_repl_kbps:0.00");
  Line(out, "instantaneous_output_repl_kbps:0.00");
  Line(out, "rejected_connections:%llu", U(st.rejected_connections));
  MasterSide& master = Replication::Of(s).master();
  Line(out, "sync_full:%llu", U(master.sync_full()));
  Line(out, "sync_partial_ok:%llu", U(master.sync_partial_ok()));
  Line(out, "sync_partial_err:%llu", U(master.sync_partial_err()));
  Line(out, "expired_keys:%llu", U(ks.expired_keys));
  // expired_stale_perc, expired_time_cap_reached_count and expire_cycle_cpu_milliseconds
  // belong here; the active expiry cycle does not measure them yet.
  Line(out, "evicted_keys:%llu", U(st.evicted_keys));
  Line(out, "evicted_clients:%llu", U(st.evicted_clients));
  Line(out, "total_eviction_exceeded_time:0");
  Line(out, "current_eviction_exceeded_time:0");
  Line(out, "keyspace_hits:%llu", U(ks.keyspace_hits));
  Line(out, "keyspace_misses:%llu", U(ks.keyspace_misses));
  // Topics with at least one subscriber; patterns counted once however many clients use them.
  const PubSub& ps = s.pubsub();
  Line(out, "pubsub_channels:%llu", U(ps.topic_count(PubSub::kChannel)));
  Line(out, "pubsub_patterns:%llu", U(ps.topic_count(PubSub::kPattern)));
  Line(out, "pubsubshard_channels:%llu", U(ps.topic_count(PubSub::kShard)));
  {
    Persistence* p = s.subsystem<Persistence>();
    Line(out, "latest_fork_usec:%lld", L(p != nullptr ? p->latest_fork_usec() : 0));
    // Forked debugging sessions (SCRIPT DEBUG YES) count as forks, as Redis counts them.
    const ScriptEngine* se = s.subsystem<ScriptEngine>();
    const uint64_t ldb_forks = se != nullptr ? se->debugger_forks() : 0;
    Line(out, "total_forks:%llu", U((p != nullptr ? p->total_forks() : 0) + ldb_forks));
  }
  Line(out, "migrate_cached_sockets:%llu", U(MigrateCachedSockets(s)));
  Line(out, "slave_expires_tracked_keys:0");
  Line(out, "active_defrag_hits:0");
  Line(out, "active_defrag_misses:0");
  Line(out, "active_defrag_key_hits:0");
  Line(out, "active_defrag_key_misses:0");
  Line(out, "total_active_defrag_time:0");
  Line(out, "current_active_defrag_time:0");
  Line(out, "tracking_total_keys:%zu", s.tracking().total_keys());
  Line(out, "tracking_total_items:%zu", s.tracking().total_items());
  Line(out, "tracking_total_prefixes:%zu", s.tracking().total_prefixes());
  Line(out, "unexpected_error_replies:%llu", U(st.unexpected_error_replies));
  Line(out, "total_error_replies:%llu", U(st.total_error_replies));
  Line(out, "dump_payload_sanitizations:0");
  Line(out, "total_reads_processed:%llu", U(st.total_reads_processed));
  Line(out, "total_writes_processed:%llu", U(st.total_writes_processed));
  Line(out, "io_threaded_reads_processed:%llu", U(st.io_threaded_reads_processed));
  Line(out, "io_threaded_writes_processed:%llu", U(st.io_threaded_writes_processed));
}

void ReplicationSection(Server& s, std::string* out) { Replication::Of(s).WriteInfo(out); }

void CpuTime(std::string* out, const char* name, const timeval& tv) {
  Line(out, "%s:%ld.%06ld", name, static_cast<long>(tv.tv_sec), static_cast<long>(tv.tv_usec));
}

void CpuSection(Server& /*s*/, std::string* out) {
  rusage self{}, children{}, thread{};
  getrusage(RUSAGE_SELF, &self);
  getrusage(RUSAGE_CHILDREN, &children);
  getrusage(RUSAGE_THREAD, &thread);  // INFO runs on the main thread
  CpuTime(out, "used_cpu_sys", self.ru_stime);
  CpuTime(out, "used_cpu_user", self.ru_utime);
  CpuTime(out, "used_cpu_sys_children", children.ru_stime);
  CpuTime(out, "used_cpu_user_children", children.ru_utime);
  CpuTime(out, "used_cpu_sys_main_thread", thread.ru_stime);
  CpuTime(out, "used_cpu_user_main_thread", thread.ru_utime);
}

void ModulesSection(Server& /*s*/, std::string* /*out*/) {}  // no modules: the header alone

void CommandStatsLine(const CommandSpec& spec, std::string* out) {
  const CommandStats& st = spec.stats;
  if (st.calls != 0 || st.rejected_calls != 0 || st.failed_calls != 0) {
    double per_call = st.calls == 0 ? 0.0 : static_cast<double>(st.usec) / st.calls;
    Line(out,
         "cmdstat_%s:calls=%llu,usec=%llu,usec_per_call=%.2f,rejected_calls=%llu,"
         "failed_calls=%llu",
         spec.full_name.c_str(), U(st.calls), U(st.usec), per_call, U(st.rejected_calls),
         U(st.failed_calls));
  }
  for (const CommandSpec& sub : spec.subcommands) CommandStatsLine(sub, out);
}

void CommandStatsSection(Server& s, std::string* out) {
  for (const auto& spec : s.commands().all()) CommandStatsLine(*spec, out);
}

void ErrorStatsSection(Server& s, std::string* out) {
  for (const auto& [prefix, count] : s.stats().error_counts) {
    Line(out, "errorstat_%s:count=%llu", prefix.c_str(), U(count));
  }
}

// A percentile as Redis names it in latencystats: "%f" without trailing zeros ("p99.9", "p50").
std::string PercentileName(double p) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%f", p);
  std::string name = buf;
  if (name.find('.') != std::string::npos) {
    while (name.back() == '0') name.pop_back();
    if (name.back() == '.') name.pop_back();
  }
  return name;
}

void LatencyStatsLine(const CommandSpec& spec, const std::vector<std::string>& names,
                      const std::vector<double>& percentiles, std::string* out) {
  const LatencyHistogram& h = spec.stats.latency;
  if (h.active()) {
    out->append("latency_percentiles_usec_").append(spec.full_name).push_back(':');
    char value[64];
    for (size_t i = 0; i < percentiles.size(); ++i) {
      if (i != 0) out->push_back(',');
      std::snprintf(value, sizeof(value), "=%.3f",
                    static_cast<double>(h.ValueAtPercentile(percentiles[i])) / 1000.0);
      out->append("p").append(names[i]).append(value);
    }
    out->append("\r\n");
  }
  for (const CommandSpec& sub : spec.subcommands) LatencyStatsLine(sub, names, percentiles, out);
}

void LatencyStatsSection(Server& s, std::string* out) {
  if (!s.config().latency_tracking) return;
  const std::vector<double>& percentiles = s.config().latency_tracking_info_percentiles;
  std::vector<std::string> names;
  for (double p : percentiles) names.push_back(PercentileName(p));
  for (const auto& spec : s.commands().all()) LatencyStatsLine(*spec, names, percentiles, out);
}

void ClusterSection(Server& s, std::string* out) {
  Line(out, "cluster_enabled:%d", s.config().cluster_enabled ? 1 : 0);
}

void KeyspaceSection(Server& s, std::string* out) {
  for (int i = 0; i < s.db_count(); ++i) {
    Database& db = s.db(i);
    if (db.size() == 0) continue;
    Line(out, "db%d:keys=%zu,expires=%zu,avg_ttl=%llu", i, db.size(), db.volatile_size(),
         U(db.avg_ttl_ms()));
  }
}

// redis-tp's own section (docs/temporary-keys-and-watches.md, "Observability"): states first
// (keys, owners, sessions, watches, queues), then event counters since the start, then the
// last token. Released keys are counted by cause, one per key; a DELTP that only dropped a hold
// counts nothing.
void CoordinationSection(Server& s, std::string* out) {
  OwnerIndex& owners = s.owners();
  const CoordinationStats& st = s.coordination_stats();
  const SessionRegistry& sessions = s.sessions();
  const SessionCounters& n = sessions.counters();
  Line(out, "temporary_keys:%zu", owners.size());
  Line(out, "temporary_key_owners:%zu", owners.owner_count());
  Line(out, "sessions:%zu", sessions.size());
  Line(out, "sessions_attached:%zu", sessions.attached());
  Line(out, "sessions_detached:%zu", sessions.detached());
  Line(out, "watching_clients:%zu", s.watches().client_count());
  Line(out, "watches:%zu", s.watches().watch_count());
  Line(out, "bsettp_waiters:%zu", s.blocking().CountWaiters(s.bsettp_kind()));
  Line(out, "bsettp_queues:%zu", s.blocking().CountQueues(s.bsettp_kind()));
  Line(out, "handoffs:%llu", U(st.handoffs));
  Line(out, "released_by_disconnect:%llu", U(st.released(ReleaseCause::kDisconnect)));
  Line(out, "released_by_lease:%llu", U(st.released(ReleaseCause::kLease)));
  Line(out, "released_by_reset:%llu", U(st.released(ReleaseCause::kReset)));
  Line(out, "released_by_session_close:%llu", U(n.released_by_close));
  Line(out, "released_by_session_expiry:%llu", U(n.released_by_expiry));
  Line(out, "released_by_deltp:%llu", U(st.released_by_deltp));
  Line(out, "released_by_failover:%llu", U(st.released(ReleaseCause::kFailover)));
  Line(out, "sessions_opened:%llu", U(n.opened));
  Line(out, "sessions_resumed:%llu", U(n.resumed));
  Line(out, "sessions_expired:%llu", U(n.expired));
  Line(out, "fence_last:%llu", U(owners.last_fence()));
}

struct Section {
  const char* name;   // lower case, as INFO accepts it
  const char* title;  // the "# Title" header
  bool in_default;
  void (*fill)(Server&, std::string*);
};

// Redis 7.0's order. "modules" also answers to Redis's internal name "module_list".
constexpr Section kSections[] = {
    {"server", "Server", true, ServerSection},
    {"clients", "Clients", true, ClientsSection},
    {"memory", "Memory", true, MemorySection},
    {"persistence", "Persistence", true, PersistenceSection},
    {"stats", "Stats", true, StatsSection},
    {"replication", "Replication", true, ReplicationSection},
    {"cpu", "CPU", true, CpuSection},
    {"modules", "Modules", true, ModulesSection},
    {"commandstats", "Commandstats", false, CommandStatsSection},
    {"errorstats", "Errorstats", true, ErrorStatsSection},
    {"latencystats", "Latencystats", false, LatencyStatsSection},
    {"cluster", "Cluster", true, ClusterSection},
    {"keyspace", "Keyspace", true, KeyspaceSection},
    {"coordination", "Coordination", false, CoordinationSection},
};

std::string InfoSections(Server& s, bool all, bool defaults, const std::set<std::string>& named);

void InfoCommand(CommandContext& c) {
  bool all = false, defaults = c.args.size() == 1;
  std::set<std::string> named;
  for (size_t i = 1; i < c.args.size(); ++i) {
    std::string arg = ToLower(c.args[i]);
    if (arg == "all" || arg == "everything") {
      all = true;
    } else if (arg == "default") {
      defaults = true;
    } else {
      named.insert(arg == "module_list" ? "modules" : arg);
    }
  }
  c.reply.Verbatim(InfoSections(c.server, all, defaults, named));
}

std::string InfoSections(Server& s, bool all, bool defaults, const std::set<std::string>& named) {
  std::string text;
  for (const Section& sec : kSections) {
    if (!all && !(defaults && sec.in_default) && named.count(sec.name) == 0) continue;
    if (!text.empty()) text.append("\r\n");
    text.append("# ").append(sec.title).append("\r\n");
    sec.fill(s, &text);
  }
  return text;
}

}  // namespace

MemoryOverview ComputeMemoryOverview(Server& s) {
  MemoryOverview m;
  MemoryStats ms = s.ReadMemoryStats();
  // Lua's heap is reported apart (used_memory_lua), as in Redis, whose allocator never sees it.
  m.used = ms.allocated > s.script_heap_bytes() ? ms.allocated - s.script_heap_bytes() : 0;
  m.peak = std::max(s.used_memory_peak(), m.used);
  m.startup = std::min(s.used_memory_startup(), m.used);
  m.rss = ms.rss;
  m.allocator_allocated = ms.allocated;
  m.allocator_active = ms.active;
  m.allocator_resident = ms.resident;

  Replication* repl = s.subsystem<Replication>();
  for (const auto& [id, c] : s.clients()) {
    const size_t bytes = s.ClientMemory(*c);
    if (c->kind() == ClientKind::kReplica) {
      m.clients_replicas += bytes;
    } else {
      m.clients_normal += bytes;
    }
  }
  if (repl != nullptr) m.repl_backlog = repl->master().backlog_memory();
  if (Persistence* p = s.subsystem<Persistence>()) m.aof_buffer = p->aof().buffer_bytes();
  // Each bus link's struct and send buffer, as Redis 7.0 counts its links' memory.
  if (Cluster* cluster = Cluster::Of(s)) {
    for (const auto& link : cluster->bus().net().links()) {
      m.cluster_links += sizeof(BusLink) + link->send_buffer_allocated();
    }
  }
  m.lua_caches = ScriptEngine::Of(s).cache_memory();
  m.functions_caches = FunctionEngine::Of(s).memory();
  m.overhead_total = m.startup + m.clients_normal + m.clients_replicas + m.repl_backlog +
                     m.aof_buffer + m.cluster_links + m.lua_caches + m.functions_caches;
  for (int i = 0; i < s.db_count(); ++i) {
    Database& db = s.db(i);
    if (db.size() == 0) continue;
    const SlotIndex* slots = db.slot_index();
    MemoryOverview::DbOverhead d{i, db.dict().BucketBytes() + db.size() * sizeof(Entry),
                                 db.volatile_size() * sizeof(Entry*),
                                 slots == nullptr ? 0 : slots->MemoryBytes()};
    m.overhead_total += d.main + d.expires + d.slot_to_keys;
    m.total_keys += db.size();
    m.dbs.push_back(d);
  }
  m.dataset = m.used > m.overhead_total ? m.used - m.overhead_total : 0;
  size_t net = m.used > m.startup ? m.used - m.startup : 0;
  m.bytes_per_key = m.total_keys == 0 ? 0 : net / m.total_keys;
  m.dataset_perc = net == 0 ? 0.0f : static_cast<float>(m.dataset * 100.0 / net);
  m.peak_perc = m.peak == 0 ? 0.0f : static_cast<float>(m.used * 100.0 / m.peak);

  auto ratio = [](size_t a, size_t b) {
    return b == 0 ? 0.0f : static_cast<float>(static_cast<double>(a) / static_cast<double>(b));
  };
  auto diff = [](size_t a, size_t b) { return static_cast<int64_t>(a) - static_cast<int64_t>(b); };
  m.allocator_frag = ratio(m.allocator_active, m.allocator_allocated);
  m.allocator_frag_bytes = diff(m.allocator_active, m.allocator_allocated);
  m.allocator_rss = ratio(m.allocator_resident, m.allocator_active);
  m.allocator_rss_bytes = diff(m.allocator_resident, m.allocator_active);
  m.rss_extra = ratio(m.rss, m.allocator_resident);
  m.rss_extra_bytes = diff(m.rss, m.allocator_resident);
  m.total_frag = ratio(m.rss, m.used);
  m.total_frag_bytes = diff(m.rss, m.used);
  return m;
}

std::string InfoAllText(Server& s) { return InfoSections(s, /*all=*/true, false, {}); }

using docs::String;

void RegisterInfoCommand(CommandTable& t) {
  t.Register({.name = "info",
              .arity = -1,
              .flags = kCmdLoading | kCmdStale,
              .acl = kAclSlow | kAclDangerous,
              .doc = {.summary = "Reports server information and statistics, section by section",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .history = {{"7.0.0", "Several sections may be named in one call."}},
                      .tips = {"nondeterministic_output", "request_policy:all_shards",
                               "response_policy:special"},
                      .args = {String("section").Optional().Multiple()}},
              .handler = InfoCommand});
}

}  // namespace redistp
