// The configuration table: one row per Redis 7.0 parameter (as Debian's redis-server 7.0.15
// lists them with CONFIG GET *, plus its six hidden debug knobs), with the alias Redis 7.0
// still answers to. Rows are alphabetical by canonical name; CONFIG GET * and REWRITE follow
// this order. Bounds, defaults and word lists were read off the real server.
//
// Reading a row: `Int("hz", 0, kIntMax, "10").Check(CheckHz).Store(M(hz)).Effect()` is an
// integer parameter named hz, 0..INT_MAX, default 10, clamped by CheckHz and mirrored into
// Config::hz. Store() is how a value reaches the server: a row without it keeps only its text
// (CONFIG GET answers it, nothing acts on it). Effect() sets ConfigDef::has_effect, which
// nothing in the server reads: it marks the parameters wired by the first configuration work
// (ConfigTable.HasEffectMarksTheWiredParameters pins that list), and parameters wired since
// (appendonly, save, lazyfree-*, slowlog-*, ...) do not carry it.
#include <unistd.h>

#include <cstdint>
#include <string>
#include <type_traits>
#include <unordered_map>

#include "server/config.h"
#include "server/config_parse.h"
#include "server/version.h"
#include "util/numbers.h"

namespace redistp {

namespace {

constexpr int64_t kIntMin = INT32_MIN;
constexpr int64_t kIntMax = INT32_MAX;
constexpr int64_t kUintMax = UINT32_MAX;
constexpr int64_t kLongMax = INT64_MAX;

// ---- Typed-member stores --------------------------------------------------------------------

template <auto Member>
void StoreMember(Config& c, std::string_view text) {
  using T = std::remove_reference_t<decltype(c.*Member)>;
  if constexpr (std::is_same_v<T, bool>) {
    c.*Member = text == "yes";
  } else if constexpr (std::is_same_v<T, std::string>) {
    c.*Member = std::string(text);
  } else if constexpr (std::is_same_v<T, uint64_t>) {
    uint64_t v = 0;
    ParseUint64(text, &v);
    c.*Member = v;
  } else {
    static_assert(std::is_integral_v<T>);
    int64_t v = 0;
    ParseInt64(text, &v);
    c.*Member = static_cast<T>(v);
  }
}

template <auto Member, const auto& Options>
void StoreEnum(Config& c, std::string_view text) {
  using T = std::remove_reference_t<decltype(c.*Member)>;
  for (const EnumOption& o : Options) {
    if (o.name == text) {
      c.*Member = static_cast<T>(o.value);
      return;
    }
  }
}

void StoreBind(Config& c, std::string_view t) { c.bind = SplitOnSpaces(t); }
void StoreSave(Config& c, std::string_view t) { c.save_params = DecodeSaveParams(t); }
void StoreNotify(Config& c, std::string_view t) {
  c.notify_keyspace_events = DecodeNotifyEvents(t);
}
void StoreSigint(Config& c, std::string_view t) { c.shutdown_on_sigint = DecodeShutdownFlags(t); }
void StoreSigterm(Config& c, std::string_view t) { c.shutdown_on_sigterm = DecodeShutdownFlags(t); }
void StorePubsubDefault(Config& c, std::string_view t) {
  c.acl_pubsub_default_allchannels = t == "allchannels";
}
void StoreOutputLimits(Config& c, std::string_view t) {
  DecodeOutputBufferLimits(t, c.client_output_buffer_limits);
}
void StoreOomValues(Config& c, std::string_view t) {
  std::vector<std::string> w = SplitOnSpaces(t);
  for (size_t i = 0; i < 3 && i < w.size(); ++i) {
    int64_t v = 0;
    ParseInt64(w[i], &v);
    c.oom_score_adj_values[i] = static_cast<int>(v);
  }
}
void StorePercentiles(Config& c, std::string_view t) {
  c.latency_tracking_info_percentiles.clear();
  for (const std::string& w : SplitOnSpaces(t)) {
    double v = 0;
    ParseDouble(w, &v);
    c.latency_tracking_info_percentiles.push_back(v);
  }
}
void StoreUnixSocketPerm(Config& c, std::string_view t) {
  int v = 0;
  for (char ch : t) v = v * 8 + (ch - '0');
  c.unixsocketperm = v;
}
void StoreMaxmemoryClients(Config& c, std::string_view t) {
  int64_t v = 0;
  if (!t.empty() && t.back() == '%') {
    ParseInt64(t.substr(0, t.size() - 1), &v);
    v = -v;
  } else {
    ParseInt64(t, &v);
  }
  c.maxmemory_clients = v;
}
void StoreReplicaOf(Config& c, std::string_view t) {
  size_t sp = t.rfind(' ');
  if (t.empty() || sp == std::string_view::npos) {
    c.replicaof_host.clear();
    c.replicaof_port = 0;
    return;
  }
  int64_t port = 0;
  ParseInt64(t.substr(sp + 1), &port);
  c.replicaof_host = std::string(t.substr(0, sp));
  c.replicaof_port = static_cast<int>(port);
}
void StoreCompatVersion(Config& c, std::string_view t) {
  CompatVersion v;
  std::string_view why;
  ParseCompatVersion(t, &v, &why);  // the text passed CheckCompatVersion
  c.compat_version = std::string(t);
  c.compat_version_num = v.num;
  c.rdb_version = v.rdb_version;
}
void StoreDir(Config& c, std::string_view t) {
  c.dir = std::string(t);
  // Also what restores the working directory when a CONFIG SET is rolled back. A directory
  // that vanished meanwhile leaves the process where it is, as in Redis.
  if (!c.dir.empty() && chdir(c.dir.c_str()) != 0) {
    c.dir = std::string(t);
  }
}

// ---- Enum word lists, in the order Redis lists them in its error text ----------------------

constexpr EnumOption kNoYesLocal[] = {{"no", 0}, {"yes", 1}, {"local", 2}};
constexpr EnumOption kPubsubDefault[] = {{"allchannels", 1}, {"resetchannels", 0}};
constexpr EnumOption kAppendFsync[] = {{"everysec", 0}, {"always", 1}, {"no", 2}};
constexpr EnumOption kEndpointType[] = {{"ip", 0}, {"hostname", 1}, {"unknown-endpoint", 2}};
constexpr EnumOption kLogLevels[] = {{"debug", 0}, {"verbose", 1}, {"notice", 2}, {"warning", 3}};
constexpr EnumOption kMaxmemoryPolicies[] = {
    {"volatile-lru", 0}, {"volatile-lfu", 1}, {"volatile-random", 2}, {"volatile-ttl", 3},
    {"allkeys-lru", 4},  {"allkeys-lfu", 5},  {"allkeys-random", 6},  {"noeviction", 7}};
constexpr EnumOption kOomScoreAdj[] = {{"no", 0}, {"yes", 1}, {"relative", 1}, {"absolute", 2}};
constexpr EnumOption kPropagationError[] = {{"ignore", 0}, {"panic", 1}, {"panic-on-replicas", 2}};
constexpr EnumOption kDisklessLoad[] = {{"disabled", 0}, {"on-empty-db", 1}, {"swapdb", 2}};
constexpr EnumOption kSanitizePayload[] = {{"no", 0}, {"yes", 1}, {"clients", 2}};
constexpr EnumOption kSupervised[] = {{"upstart", 1}, {"systemd", 2}, {"auto", 3}, {"no", 0}};
constexpr EnumOption kSyslogFacility[] = {{"user", 0},   {"local0", 1}, {"local1", 2},
                                          {"local2", 3}, {"local3", 4}, {"local4", 5},
                                          {"local5", 6}, {"local6", 7}, {"local7", 8}};
constexpr EnumOption kTlsAuthClients[] = {{"no", 0}, {"yes", 1}, {"optional", 2}};

void StoreMaxmemoryPolicy(Config& c, std::string_view t) {
  c.maxmemory_policy = std::string(t);
  StoreEnum<&Config::maxmemory_policy_kind, kMaxmemoryPolicies>(c, t);
}

// ---- Row builders ---------------------------------------------------------------------------

struct Row {
  ConfigDef d;
  constexpr Row Alias(std::string_view a) const {
    Row r = *this;
    r.d.alias = a;
    return r;
  }
  constexpr Row Flags(uint32_t f) const {
    Row r = *this;
    r.d.flags |= f;
    return r;
  }
  constexpr Row Check(ConfigCheckFn f) const {
    Row r = *this;
    r.d.check = f;
    return r;
  }
  constexpr Row Store(ConfigStoreFn f) const {
    Row r = *this;
    r.d.store = f;
    return r;
  }
  constexpr Row Display(ConfigDisplayFn f) const {
    Row r = *this;
    r.d.display = f;
    return r;
  }
  constexpr Row Rewrite(ConfigRewriteFn f) const {
    Row r = *this;
    r.d.rewrite = f;
    return r;
  }
  constexpr Row Effect() const {
    Row r = *this;
    r.d.has_effect = true;
    return r;
  }
  constexpr operator ConfigDef() const { return d; }  // NOLINT: rows convert into the table
};

constexpr Row MakeRow(std::string_view name, ConfigType type, std::string_view dflt) {
  Row r{};
  r.d.name = name;
  r.d.type = type;
  r.d.default_value = dflt;
  return r;
}
constexpr Row Bool(std::string_view name, std::string_view dflt) {
  return MakeRow(name, ConfigType::kBool, dflt);
}
constexpr Row Int(std::string_view name, int64_t min, int64_t max, std::string_view dflt) {
  Row r = MakeRow(name, ConfigType::kInt, dflt);
  r.d.min = min;
  r.d.max = max;
  return r;
}
constexpr Row Memory(std::string_view name, int64_t min, int64_t max, std::string_view dflt) {
  Row r = MakeRow(name, ConfigType::kMemory, dflt);
  r.d.min = min;
  r.d.max = max;
  return r;
}
constexpr Row UnsignedMemory(std::string_view name, std::string_view dflt) {
  return Memory(name, 0, kLongMax, dflt).Flags(kConfigUnsigned);
}
constexpr Row String(std::string_view name, std::string_view dflt) {
  return MakeRow(name, ConfigType::kString, dflt);
}
// A string parameter whose empty value means "not set" (REWRITE then writes no line).
constexpr Row Unset(std::string_view name) { return String(name, "").Flags(kConfigEmptyIsUnset); }
constexpr Row Enum(std::string_view name, std::span<const EnumOption> options,
                   std::string_view dflt) {
  Row r = MakeRow(name, ConfigType::kEnum, dflt);
  r.d.options = options;
  return r;
}
constexpr Row Special(std::string_view name, std::string_view dflt, ConfigParseFn parse) {
  Row r = MakeRow(name, ConfigType::kSpecial, dflt);
  r.d.parse = parse;
  return r;
}

constexpr uint32_t kImm = kConfigImmutable;

#define M(member) StoreMember<&Config::member>
#define E(member, options) StoreEnum<&Config::member, options>

// clang-format off
constexpr ConfigDef kTable[] = {
  Enum("acl-pubsub-default", kPubsubDefault, "resetchannels").Store(StorePubsubDefault),
  String("aclfile", "").Flags(kImm).Store(M(aclfile)),
  Int("acllog-max-len", 0, kLongMax, "128").Store(M(acllog_max_len)),
  Int("active-defrag-cycle-max", 1, 99, "25"),
  Int("active-defrag-cycle-min", 1, 99, "1"),
  Memory("active-defrag-ignore-bytes", 1, kLongMax, "104857600"),
  Int("active-defrag-max-scan-fields", 1, kLongMax, "1000"),
  Int("active-defrag-threshold-lower", 0, 1000, "10"),
  Int("active-defrag-threshold-upper", 0, 1000, "100"),
  Int("active-expire-effort", 1, 10, "1").Store(M(active_expire_effort)).Effect(),
  Bool("activedefrag", "no").Check(CheckActiveDefrag),
  Bool("activerehashing", "yes").Store(M(activerehashing)),
  Bool("always-show-logo", "no").Flags(kImm).Store(M(always_show_logo)).Effect(),
  Bool("aof-disable-auto-gc", "no"),
  Bool("aof-load-truncated", "yes"),
  Bool("aof-rewrite-incremental-fsync", "yes"),
  Bool("aof-timestamp-enabled", "no"),
  Bool("aof-use-rdb-preamble", "yes"),
  Unset("aof_rewrite_cpulist").Flags(kImm),
  String("appenddirname", "appendonlydir").Flags(kImm).Check(CheckAppendDirname)
      .Store(M(appenddirname)),
  String("appendfilename", "appendonly.aof").Flags(kImm).Check(CheckAppendFilename)
      .Store(M(appendfilename)),
  Enum("appendfsync", kAppendFsync, "everysec"),
  Bool("appendonly", "no").Flags(kConfigDenyLoading).Store(M(appendonly)),
  Memory("auto-aof-rewrite-min-size", 0, kLongMax, "67108864"),
  Int("auto-aof-rewrite-percentage", 0, kIntMax, "100"),
  Unset("bgsave_cpulist").Flags(kImm),
  Special("bind", "* -::*", ParseBindAddrs).Flags(kConfigMultiArg).Store(StoreBind)
      .Rewrite(RewriteBindAddrs).Effect(),
  Unset("bind-source-addr"),
  Unset("bio_cpulist").Flags(kImm),
  Int("busy-reply-threshold", 0, kLongMax, "5000").Alias("lua-time-limit")
      .Store(M(busy_reply_threshold)),
  Special("client-output-buffer-limit",
          "normal 0 0 0 slave 268435456 67108864 60 pubsub 33554432 8388608 60",
          ParseOutputBufferLimits).Flags(kConfigMultiArg).Store(StoreOutputLimits)
      .Rewrite(RewriteOutputBufferLimits).Effect(),
  Memory("client-query-buffer-limit", 1024 * 1024, kLongMax, "1073741824")
      .Store(M(client_query_buffer_limit)).Effect(),
  Bool("cluster-allow-pubsubshard-when-down", "yes").Store(M(cluster_allow_pubsubshard_when_down)),
  Bool("cluster-allow-reads-when-down", "no").Store(M(cluster_allow_reads_when_down)),
  Bool("cluster-allow-replica-migration", "yes").Store(M(cluster_allow_replica_migration)),
  Int("cluster-announce-bus-port", 0, 65535, "0").Store(M(cluster_announce_bus_port)),
  Unset("cluster-announce-hostname").Check(CheckAnnounceHostname)
      .Store(M(cluster_announce_hostname)),
  Unset("cluster-announce-ip").Store(M(cluster_announce_ip)),
  Int("cluster-announce-port", 0, 65535, "0").Store(M(cluster_announce_port)),
  Int("cluster-announce-tls-port", 0, 65535, "0").Store(M(cluster_announce_tls_port)),
  String("cluster-config-file", "nodes.conf").Flags(kImm).Store(M(cluster_config_file)),
  Bool("cluster-enabled", "no").Flags(kImm).Store(M(cluster_enabled)),
  UnsignedMemory("cluster-link-sendbuf-limit", "0").Store(M(cluster_link_sendbuf_limit)),
  Int("cluster-migration-barrier", 0, kIntMax, "1").Store(M(cluster_migration_barrier)),
  Int("cluster-node-timeout", 0, kLongMax, "15000").Store(M(cluster_node_timeout)),
  Int("cluster-port", 0, 65535, "0").Flags(kImm).Store(M(cluster_port)),
  Enum("cluster-preferred-endpoint-type", kEndpointType, "ip"),
  Bool("cluster-replica-no-failover", "no")
      .Alias("cluster-slave-no-failover")
      .Store(M(cluster_replica_no_failover)),
  Int("cluster-replica-validity-factor", 0, kIntMax, "10")
      .Alias("cluster-slave-validity-factor")
      .Store(M(cluster_replica_validity_factor)),
  Bool("cluster-require-full-coverage", "yes").Store(M(cluster_require_full_coverage)),
  // redis-tp: the Redis version reported and the RDB format written (server/version.h).
  String("compat-version", "7.0.15").Check(CheckCompatVersion).Store(StoreCompatVersion),
  Bool("crash-log-enabled", "yes").Store(M(crash_log_enabled)).Effect(),
  Bool("crash-memcheck-enabled", "yes"),
  Bool("daemonize", "no").Flags(kImm).Store(M(daemonize)).Effect(),
  Int("databases", 1, kIntMax, "16").Flags(kImm).Store(M(databases)).Effect(),
  String("dbfilename", "dump.rdb").Flags(kConfigProtected).Check(CheckDbFilename)
      .Store(M(dbfilename)),
  String("dir", "").Flags(kConfigProtected | kConfigAlwaysRewrite | kConfigDenyLoading).Check(CheckDir)
      .Store(StoreDir).Effect(),
  Bool("disable-thp", "yes").Flags(kImm),
  Bool("dynamic-hz", "yes").Store(M(dynamic_hz)),
  Enum("enable-debug-command", kNoYesLocal, "no")
      .Flags(kImm)
      .Store(M(enable_debug_command))
      .Effect(),
  Enum("enable-module-command", kNoYesLocal, "no").Flags(kImm).Store(M(enable_module_command)),
  Enum("enable-protected-configs", kNoYesLocal, "no").Flags(kImm)
      .Store(M(enable_protected_configs)),
  Int("hash-max-listpack-entries", 0, kLongMax, "512").Alias("hash-max-ziplist-entries")
      .Store(M(hash_max_listpack_entries)),
  Memory("hash-max-listpack-value", 0, kLongMax, "64").Alias("hash-max-ziplist-value")
      .Store(M(hash_max_listpack_value)),
  Memory("hll-sparse-max-bytes", 0, kLongMax, "3000").Store(M(hll_sparse_max_bytes)),
  Int("hz", 0, kIntMax, "10").Check(CheckHz).Store(M(hz)).Effect(),
  String("ignore-warnings", ""),
  Int("io-threads", 1, 128, "1").Flags(kImm).Store(M(io_threads)),
  Bool("io-threads-do-reads", "no").Flags(kImm).Store(M(io_threads_do_reads)),
  Bool("jemalloc-bg-thread", "yes"),
  Int("key-load-delay", kIntMin, kIntMax, "0").Flags(kConfigHidden).Store(M(key_load_delay)),
  Int("latency-monitor-threshold", 0, kLongMax, "0").Store(M(latency_monitor_threshold))
      .Effect(),
  Bool("latency-tracking", "yes").Store(M(latency_tracking)),
  Special("latency-tracking-info-percentiles", "50 99 99.9", ParseLatencyPercentiles)
      .Flags(kConfigMultiArg | kConfigAlwaysRewrite).Store(StorePercentiles),
  Bool("lazyfree-lazy-eviction", "no").Store(M(lazyfree_lazy_eviction)),
  Bool("lazyfree-lazy-expire", "no").Store(M(lazyfree_lazy_expire)),
  Bool("lazyfree-lazy-server-del", "no").Store(M(lazyfree_lazy_server_del)),
  Bool("lazyfree-lazy-user-del", "no").Store(M(lazyfree_lazy_user_del)),
  Bool("lazyfree-lazy-user-flush", "no").Store(M(lazyfree_lazy_user_flush)).Effect(),
  Int("lfu-decay-time", 0, kIntMax, "1").Store(M(lfu_decay_time)).Effect(),
  Int("lfu-log-factor", 0, kIntMax, "10").Store(M(lfu_log_factor)).Effect(),
  Int("list-compress-depth", 0, kIntMax, "0").Store(M(list_compress_depth)),
  Int("list-max-listpack-size", kIntMin, kIntMax, "-2").Alias("list-max-ziplist-size")
      .Store(M(list_max_listpack_size)),
  Int("loading-process-events-interval-bytes", 1024, kIntMax, "2097152").Flags(kConfigHidden)
      .Store(M(loading_process_events_interval_bytes)),
  String("logfile", "").Flags(kImm).Store(M(logfile)).Effect(),
  Enum("loglevel", kLogLevels, "notice").Store(E(loglevel, kLogLevels)).Effect(),
  Bool("lua-enable-deprecated-api", "no").Flags(kImm | kConfigHidden),
  Unset("masterauth").Flags(kConfigSensitive | kConfigBinary).Store(M(masterauth)),
  Unset("masteruser").Flags(kConfigSensitive).Store(M(masteruser)),
  Int("maxclients", 1, kUintMax, "10000").Store(M(maxclients)).Effect(),
  UnsignedMemory("maxmemory", "0").Store(M(maxmemory)).Effect(),
  Special("maxmemory-clients", "0", ParseMaxmemoryClients).Store(StoreMaxmemoryClients)
      .Rewrite(RewriteMaxmemoryClients),
  Int("maxmemory-eviction-tenacity", 0, 100, "10").Store(M(maxmemory_eviction_tenacity)),
  Enum("maxmemory-policy", kMaxmemoryPolicies, "noeviction").Store(StoreMaxmemoryPolicy)
      .Effect(),
  Int("maxmemory-samples", 1, kIntMax, "5").Store(M(maxmemory_samples)),
  Int("min-replicas-max-lag", 0, kIntMax, "10").Alias("min-slaves-max-lag"),
  Int("min-replicas-to-write", 0, kIntMax, "0").Alias("min-slaves-to-write"),
  Bool("no-appendfsync-on-rewrite", "no"),
  Special("notify-keyspace-events", "", ParseNotifyEvents).Store(StoreNotify)
      .Display(DisplayNotifyEvents).Rewrite(RewriteNotifyEvents),
  Enum("oom-score-adj", kOomScoreAdj, "no").Store(E(oom_score_adj, kOomScoreAdj)),
  Special("oom-score-adj-values", "0 200 800", ParseOomScoreAdjValues).Flags(kConfigMultiArg)
      .Store(StoreOomValues),
  Unset("pidfile").Flags(kImm).Store(M(pidfile)).Effect(),
  Int("port", 0, 65535, "6379").Store(M(port)).Effect(),
  String("proc-title-template", "{title} {listen-addr} {server-mode}")
      .Check(CheckProcTitleTemplate).Store(M(proc_title_template)),
  Enum("propagation-error-behavior", kPropagationError, "ignore"),
  Bool("protected-mode", "yes").Store(M(protected_mode)).Effect(),
  Memory("proto-max-bulk-len", 1024 * 1024, kLongMax, "536870912").Store(M(proto_max_bulk_len))
      .Effect(),
  Bool("rdb-del-sync-files", "no"),
  Int("rdb-key-save-delay", kIntMin, kIntMax, "0").Flags(kConfigHidden),
  Bool("rdb-save-incremental-fsync", "yes"),
  Bool("rdbchecksum", "yes").Flags(kImm).Store(M(rdbchecksum)),
  Bool("rdbcompression", "yes").Store(M(rdbcompression)),
  Memory("repl-backlog-size", 1, kLongMax, "1048576").Check(CheckReplBacklogSize),
  Int("repl-backlog-ttl", 0, kLongMax, "3600"),
  Bool("repl-disable-tcp-nodelay", "no"),
  Enum("repl-diskless-load", kDisklessLoad, "disabled").Flags(kConfigDenyLoading),
  Bool("repl-diskless-sync", "yes"),
  Int("repl-diskless-sync-delay", 0, kIntMax, "5"),
  Int("repl-diskless-sync-max-replicas", 0, kIntMax, "0"),
  Int("repl-ping-replica-period", 1, kIntMax, "10").Alias("repl-ping-slave-period"),
  Int("repl-timeout", 1, kIntMax, "60"),
  Unset("replica-announce-ip").Alias("slave-announce-ip"),
  Int("replica-announce-port", 0, 65535, "0").Alias("slave-announce-port"),
  Bool("replica-announced", "yes"),
  Bool("replica-ignore-disk-write-errors", "no"),
  Bool("replica-ignore-maxmemory", "yes").Alias("slave-ignore-maxmemory"),
  Bool("replica-lazy-flush", "no").Alias("slave-lazy-flush"),
  Int("replica-priority", 0, kIntMax, "100").Alias("slave-priority"),
  Bool("replica-read-only", "yes").Alias("slave-read-only").Store(M(replica_read_only)),
  Bool("replica-serve-stale-data", "yes").Alias("slave-serve-stale-data")
      .Store(M(replica_serve_stale_data)),
  Special("replicaof", "", ParseReplicaOf).Alias("slaveof").Flags(kImm | kConfigMultiArg)
      .Store(StoreReplicaOf).Rewrite(RewriteReplicaOf),
  Unset("requirepass").Flags(kConfigSensitive | kConfigBinary).Store(M(requirepass)).Effect(),
  Enum("sanitize-dump-payload", kSanitizePayload, "no"),
  Special("save", "3600 1 300 100 60 10000", ParseSaveParams).Flags(kConfigMultiArg)
      .Store(StoreSave).Rewrite(RewriteSaveParams),
  Unset("server_cpulist").Flags(kImm),
  Int("set-max-intset-entries", 0, kLongMax, "512").Store(M(set_max_intset_entries)),
  Bool("set-proc-title", "yes").Flags(kImm).Store(M(set_proc_title)),
  Special("shutdown-on-sigint", "default", ParseShutdownFlags).Flags(kConfigMultiArg)
      .Store(StoreSigint),
  Special("shutdown-on-sigterm", "default", ParseShutdownFlags).Flags(kConfigMultiArg)
      .Store(StoreSigterm),
  Int("shutdown-timeout", 0, kIntMax, "10").Store(M(shutdown_timeout)),
  Int("slowlog-log-slower-than", -1, kLongMax, "10000").Store(M(slowlog_log_slower_than))
      .Effect(),
  Int("slowlog-max-len", 0, kLongMax, "128").Store(M(slowlog_max_len)).Effect(),
  Int("socket-mark-id", 0, kUintMax, "0").Flags(kImm),
  Bool("stop-writes-on-bgsave-error", "yes").Store(M(stop_writes_on_bgsave_error)),
  Memory("stream-node-max-bytes", 0, kLongMax, "4096").Store(M(stream_node_max_bytes)),
  Int("stream-node-max-entries", 0, kLongMax, "100").Store(M(stream_node_max_entries)),
  Enum("supervised", kSupervised, "no").Flags(kImm),
  Bool("syslog-enabled", "no").Flags(kImm).Store(M(syslog_enabled)),
  Enum("syslog-facility", kSyslogFacility, "local0").Flags(kImm),
  String("syslog-ident", "redis").Flags(kImm),
  Int("tcp-backlog", 0, kIntMax, "511").Flags(kImm).Store(M(tcp_backlog)).Effect(),
  Int("tcp-keepalive", 0, kIntMax, "300").Store(M(tcp_keepalive)).Effect(),
  Int("timeout", 0, kIntMax, "0").Store(M(timeout)).Effect(),
  // redis-tp: how long a promoted replica keeps a temporary key whose owner was a plain
  // connection of the old master before releasing it (replication/promotion.cc).
  Int("tp-failover-grace-ms", 0, kLongMax, "10000").Store(M(tp_failover_grace_ms)),
  // redis-tp: a cluster node sends the existence events of its keys over the bus to the shard
  // that serves their `__watchex@` shard channel (cluster/watchex_forward.h).
  Bool("tp-watchex-shard-forward", "no").Store(M(tp_watchex_shard_forward)),
  // redis-tp: the file in `dir` that holds the fencing tokens' reservation (watch/fence.h).
  String("tp-fence-file", "redistp-fence").Flags(kConfigProtected).Check(CheckTpFenceFile)
      .Store(M(tp_fence_file)).Effect(),
  Enum("tls-auth-clients", kTlsAuthClients, "yes").Store(E(tls_auth_clients, kTlsAuthClients)),
  Unset("tls-ca-cert-dir").Store(M(tls_ca_cert_dir)),
  Unset("tls-ca-cert-file").Store(M(tls_ca_cert_file)),
  Unset("tls-cert-file").Store(M(tls_cert_file)),
  Unset("tls-ciphers").Store(M(tls_ciphers)),
  Unset("tls-ciphersuites").Store(M(tls_ciphersuites)),
  Unset("tls-client-cert-file").Store(M(tls_client_cert_file)),
  Unset("tls-client-key-file").Store(M(tls_client_key_file)),
  Unset("tls-client-key-file-pass").Flags(kConfigSensitive).Store(M(tls_client_key_file_pass)),
  Bool("tls-cluster", "no").Store(M(tls_cluster)),
  Unset("tls-dh-params-file").Store(M(tls_dh_params_file)),
  Unset("tls-key-file").Store(M(tls_key_file)),
  Unset("tls-key-file-pass").Flags(kConfigSensitive).Store(M(tls_key_file_pass)),
  Int("tls-port", 0, 65535, "0").Store(M(tls_port)),
  Bool("tls-prefer-server-ciphers", "no").Store(M(tls_prefer_server_ciphers)),
  Unset("tls-protocols").Store(M(tls_protocols)),
  Bool("tls-replication", "no").Store(M(tls_replication)),
  Int("tls-session-cache-size", 0, kIntMax, "20480").Store(M(tls_session_cache_size)),
  Int("tls-session-cache-timeout", 0, kIntMax, "300").Store(M(tls_session_cache_timeout)),
  Bool("tls-session-caching", "yes").Store(M(tls_session_caching)),
  Int("tracking-table-max-keys", 0, kLongMax, "1000000").Store(M(tracking_table_max_keys)),
  Unset("unixsocket").Flags(kImm).Store(M(unixsocket)).Effect(),
  Special("unixsocketperm", "0", ParseUnixSocketPerm).Flags(kImm).Store(StoreUnixSocketPerm)
      .Effect(),
  Bool("use-exit-on-panic", "no").Flags(kConfigHidden),
  Int("watchdog-period", 0, kIntMax, "0").Flags(kConfigHidden),
  Int("zset-max-listpack-entries", 0, kLongMax, "128").Alias("zset-max-ziplist-entries")
      .Store(M(zset_max_listpack_entries)),
  Memory("zset-max-listpack-value", 0, kLongMax, "64").Alias("zset-max-ziplist-value")
      .Store(M(zset_max_listpack_value)),
};
// clang-format on

#undef M
#undef E

constexpr std::string_view kDeprecated[] = {"list-max-ziplist-entries", "list-max-ziplist-value",
                                            "lua-replicate-commands"};

}  // namespace

std::span<const ConfigDef> ConfigTable() { return kTable; }

const ConfigDef* FindConfig(std::string_view name) {
  // Built once on first use and never changed afterwards.
  static const std::unordered_map<std::string, const ConfigDef*> kIndex = [] {
    std::unordered_map<std::string, const ConfigDef*> index;
    for (const ConfigDef& def : kTable) {
      index.emplace(std::string(def.name), &def);
      if (!def.alias.empty()) index.emplace(std::string(def.alias), &def);
    }
    return index;
  }();
  auto it = kIndex.find(ToLower(name));
  return it == kIndex.end() ? nullptr : it->second;
}

bool IsDeprecatedConfig(std::string_view name) {
  for (std::string_view d : kDeprecated) {
    if (EqualsIgnoreCase(d, name)) return true;
  }
  return false;
}

}  // namespace redistp
