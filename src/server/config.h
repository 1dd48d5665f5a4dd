// Configuration: every Redis 7.0 parameter, its typed value, and the four ways a value changes
// hands — redis.conf, the command line, CONFIG SET and CONFIG REWRITE.
//
// Model. One static table (config_table.cc) has a row per parameter: name, Redis 7.0 alias,
// type, bounds or allowed words, default, flags, and whether redis-tp implements it. A Config
// holds, for each row, the value in *canonical text* (the exact bytes CONFIG GET shows, give or
// take a display step for notify-keyspace-events) and mirrors the rows the server reads on hot
// paths into plain public members (`config.port`, `config.maxclients`, ...). The text is the
// source of truth: a typed member is always re-derived from it, so restoring a row's text restores
// its member, which is what makes multi-parameter CONFIG SET all-or-nothing. Rows without a
// member still hold their text, so they round-trip through GET/SET/REWRITE.
//
// Invariants:
//  * every stored text parses back to itself (defaults included: checked by the unit tests);
//  * a typed member equals the parse of its row's text at every return from a public method;
//  * CONFIG SET either applies every pair and runs the change hooks once each, or leaves the
//    texts, the members and (as far as the hooks can undo themselves) the server as they were.
//
// Threads: none. Config belongs to the event-loop thread; nothing here locks.
//
// What Config does not do: it never binds sockets, opens the log or writes the pid file. The
// server registers change hooks (OnChange) for the parameters whose new value needs work. Two
// side effects are Redis's own and live here: `dir` chdir()s when loaded or set, and `logfile`
// is opened for append at load time to report a bad path the way Redis does.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iostream>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "db/keyspace_events.h"
#include "util/status.h"

namespace redistp {

class Config;

// ---- The table ----------------------------------------------------------------------------------

enum class ConfigType : uint8_t {
  kBool,     // yes / no
  kInt,      // decimal integer with [min, max]
  kMemory,   // byte count with units (1k 1kb 1m 1mb 1g 1gb), [min, max]
  kString,   // free text (optionally checked by the row's check function)
  kEnum,     // one word out of a fixed list
  kSpecial,  // own grammar: save, bind, client-output-buffer-limit, notify-keyspace-events, ...
};

// Row flags.
inline constexpr uint32_t kConfigImmutable = 1u << 0;  // CONFIG SET refuses it
inline constexpr uint32_t kConfigProtected = 1u << 1;  // settable only per enable-protected-configs
inline constexpr uint32_t kConfigSensitive = 1u << 2;  // value is a secret (redact in logs)
inline constexpr uint32_t kConfigHidden = 1u << 3;     // debug knob: GET needs its exact name
inline constexpr uint32_t kConfigMultiArg = 1u << 4;   // value is a list of words
inline constexpr uint32_t kConfigUnsigned = 1u << 5;   // memory row spanning 0..UINT64_MAX
inline constexpr uint32_t kConfigAlwaysRewrite = 1u << 6;  // REWRITE writes it even at default
inline constexpr uint32_t kConfigEmptyIsUnset = 1u << 7;   // "" means unset: REWRITE drops it
// CONFIG SET takes the value's every byte. Without it a value (each word of a list) ends at its
// first NUL byte, as Redis reads its parameters as C strings -- all but two binary-safe ones and
// the plain integers (kInt), which it reads with their length, so a NUL byte is refused.
inline constexpr uint32_t kConfigBinary = 1u << 8;
// CONFIG SET refuses it with LOADING while a dataset loads (the AOF switch, the replica's load
// mode), as Redis 7.0; that refusal wins over any other error of the same command.
inline constexpr uint32_t kConfigDenyLoading = 1u << 9;

struct EnumOption {
  std::string_view name;
  int value;  // several names may share a value (oom-score-adj: yes == relative)
};

// Turns argument words into canonical text. `current` is the row's present text (for parameters
// that update part of their value, like client-output-buffer-limit); `loading` is true while a
// config file or command line is read (a few checks and fixups differ, as in Redis).
using ConfigParseFn = Status (*)(std::span<const std::string> args, std::string_view current,
                                 bool loading, std::string* canonical);
// Extra check or fixup on a value already valid for its type (hz clamping, file-name checks).
using ConfigCheckFn = Status (*)(bool loading, std::string* canonical);
// Copies canonical text (always valid) into the row's typed member.
using ConfigStoreFn = void (*)(Config& config, std::string_view canonical);
// Canonical text -> CONFIG GET text, when they differ.
using ConfigDisplayFn = std::string (*)(std::string_view canonical);

// One line CONFIG REWRITE wants in the file; `force` means "write it even if the file never
// mentioned this parameter" (the value differs from the default, or the row always rewrites).
struct RewriteLine {
  std::string text;
  bool force;
};
struct ConfigDef;
using ConfigRewriteFn = void (*)(const ConfigDef& def, std::string_view canonical,
                                 std::vector<RewriteLine>* out);

struct ConfigDef {
  std::string_view name;
  std::string_view alias;  // the Redis 7.0 second name ("slaveof"), or empty
  ConfigType type;
  uint32_t flags;
  std::string_view default_value;  // canonical text
  int64_t min;                     // kInt / kMemory bounds (kConfigUnsigned: 0..UINT64_MAX)
  int64_t max;
  std::span<const EnumOption> options;  // kEnum words, in Redis's order
  ConfigParseFn parse;                  // kSpecial only
  ConfigCheckFn check;                  // optional
  ConfigStoreFn store;                  // optional: rows with a typed member
  ConfigDisplayFn display;              // optional
  ConfigRewriteFn rewrite;              // optional: multi-line or specially quoted rows
  bool has_effect;                      // redis-tp implements what this parameter does
};

// The whole table, in a stable order (the order CONFIG GET * and REWRITE use).
std::span<const ConfigDef> ConfigTable();
// Row for a name or alias, case-insensitive; nullptr if unknown.
const ConfigDef* FindConfig(std::string_view name);
// Names Redis 7.0 still accepts in a config file (one argument) and ignores.
bool IsDeprecatedConfig(std::string_view name);

// Whether a `user` directive (name, rules) leaves the user enabled: the last of its on / off /
// reset rules is "on" (config_user.cc).
bool UserDirectiveEnabled(const std::vector<std::string>& args);

// ---- Typed values ----------------------------------------------------------------------------

// Values follow log.h's LogLevel so the server can static_cast between them.
enum class LogVerbosity : int { kDebug = 0, kVerbose = 1, kNotice = 2, kWarning = 3 };

enum class MaxmemoryPolicy : int {
  kVolatileLru,
  kVolatileLfu,
  kVolatileRandom,
  kVolatileTtl,
  kAllkeysLru,
  kAllkeysLfu,
  kAllkeysRandom,
  kNoEviction,
};

enum class OomScoreAdj : int { kNo = 0, kRelative = 1, kAbsolute = 2 };

// shutdown-on-sigint / shutdown-on-sigterm bits; 0 is "default".
inline constexpr int kShutdownSave = 1;
inline constexpr int kShutdownNoSave = 2;
inline constexpr int kShutdownNow = 4;
inline constexpr int kShutdownForce = 8;

// notify-keyspace-events bits (kNotify*) live with the key events: db/keyspace_events.h.

// client-output-buffer-limit, one per client class. Zero disables a limit.
struct OutputBufferLimit {
  int64_t hard = 0;          // bytes
  int64_t soft = 0;          // bytes
  int64_t soft_seconds = 0;  // how long the soft limit may be exceeded
};
enum ClientClass : int { kClientClassNormal = 0, kClientClassReplica = 1, kClientClassPubsub = 2 };

struct SaveParam {
  int64_t seconds;
  int changes;
};

// ---- Config ------------------------------------------------------------------------------------

class Config {
 public:
  using Hook = std::function<Status()>;
  using DirectiveHandler = std::function<Status(const std::vector<std::string>& args)>;
  using LinesProvider = std::function<std::vector<std::string>()>;

  // Every row at its default; `dir` is the current working directory.
  Config();

  // Reads redis.conf text. One directive per line; blank lines and lines starting with '#'
  // are skipped; arguments split like Redis (double quotes with \n \r \t \b \a \xHH escapes,
  // single quotes with \' only). Names are case-insensitive and aliases are accepted. A
  // repeated directive replaces the earlier value, except `save` (lines accumulate within one
  // load until an include has been read; `save ""` clears; a bare `save` line adds nothing
  // and so clears only the defaults), `client-output-buffer-limit` (per class), and the
  // recorded directives `rename-command`, `user` (a name defined twice is an error),
  // `loadmodule`. A list-valued parameter with no value at all is given an empty list, as
  // in Redis (a bare `bind` line means no address). `include PATH`
  // (glob allowed, relative to the working directory) reads more files at that point.
  // Redis 7.0's deprecated names are accepted and ignored. Once everything is read, a
  // non-empty `logfile` is opened for append to check it.
  // On error returns the text Redis prints before exiting (main prints it to stderr, exit 1):
  //   "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nReading the configuration file, at
  //    line N\n>>> 'LINE'\nMESSAGE"
  // or "\n*** FATAL CONFIG FILE ERROR (Redis 7.0.15) ***\nCan't open the log file: REASON",
  // or, for an unreadable file, "Fatal error, can't open config file 'PATH': REASON" (Redis
  // logs that one as a log line), or for a "module.option value" line Redis's abort message.
  // Values read before the bad line stay set.
  Status LoadFromString(std::string_view text);

  // Reads redis-server's command line (argv[0] is the program): an optional first argument
  // naming the config file (or "-" for stdin), then `--name value...` options, and an optional
  // final "-" for stdin. The file, then stdin, then the options are read as one text, as
  // Redis does, so line numbers in errors count through all three. The option value right
  // after a bare `--name` is taken whatever it looks like; once an option has a value, a word
  // starting with "--" begins a new option; one argument may hold a name and its values
  // ("--maxmemory 700mb"); `--save` followed by another option or by nothing means
  // `save ""`. The file's absolute path is kept for Rewrite(). Does not handle
  // -v/-h/--test-memory (main does).
  Status LoadFromArgs(int argc, char** argv, std::istream& in = std::cin);

  // CONFIG GET: each pattern is either an exact name or alias (hidden rows included, answered
  // under the spelling asked) or a glob (case-insensitive, skips hidden rows, matches
  // aliases as their own names). A name is answered once across all patterns. Pairs come in
  // match order: (name, value).
  Result<std::vector<std::pair<std::string, std::string>>> Get(
      const std::vector<std::string_view>& patterns) const;
  // Value of one parameter as CONFIG GET shows it; false if the name is unknown.
  bool GetValue(std::string_view name, std::string* value) const;

  // CONFIG SET with several pairs, all or nothing, with Redis 7.0's exact errors: unknown
  // name, immutable, protected, duplicate (checked pair by pair), then each value parsed in
  // order, then the change hooks of every parameter whose text changed. If a hook fails, all
  // texts and members are restored, the hooks that already ran are run again on the old
  // values, and the error names the pair that triggered the failing hook. `local_client`
  // says whether the caller came over a local connection (for enable-protected-configs local).
  Status Set(const std::vector<std::pair<std::string_view, std::string_view>>& pairs,
             bool local_client = false);

  // A value the server itself changed (REPLICAOF moves `replicaof`, immutable for CONFIG SET):
  // stored as if loaded, so CONFIG GET and CONFIG REWRITE show it; no hook runs. `canonical`
  // must be a value the row's parser would produce. An unknown name is a programming error.
  void SetFromServer(std::string_view name, std::string canonical);

  // Registers `hook` to run after a CONFIG SET changed `name` (or any of `names`; a hook
  // registered for several names runs once per SET). It returns OK or the bare error text
  // ("Unable to listen on this port. Check server logs."). Hooks never run while loading.
  // An unknown name is a programming error and aborts.
  void OnChange(std::string_view name, Hook hook);
  void OnChange(std::initializer_list<std::string_view> names, Hook hook);
  // Told the parameter's name when a hook fails in CONFIG SET, before the old values return
  // (the server logs Redis's "Failed applying new configuration..." line).
  void OnApplyFailure(std::function<void(std::string_view name)> report) {
    apply_failure_ = std::move(report);
  }

  // Called for each `rename-command`, `user` or `loadmodule` directive while loading, with
  // the words after the directive name; an error stops the load with the FATAL text. Without
  // a handler the directive is only recorded (rename_commands, users, loadmodules below).
  void OnDirective(std::string_view directive, DirectiveHandler handler);

  // For CONFIG REWRITE of directives owned by other subsystems ("user" for ACL users): the
  // provider returns the complete lines to write, replacing that directive's old lines.
  // Without a provider such lines are kept as they are.
  void SetRewriteLines(std::string_view directive, LinesProvider provider);

  // CONFIG REWRITE: rewrites the config file in place, keeping comments, blank lines and the
  // order of lines; each parameter takes the place of its first old line (its other old lines
  // are blanked), a parameter not in the file is appended after a "# Generated by CONFIG
  // REWRITE" line only if it differs from its default, unknown lines are commented out with
  // "# ??? ", runs of blank lines shrink to one. Written to a temporary file, then renamed.
  // Errors: "ERR The server is running without a config file",
  // "ERR Rewriting config file: <strerror>". With force_all (DEBUG CONFIG-REWRITE-FORCE-ALL)
  // every parameter is written, at its default too, so the file states the whole configuration.
  Status Rewrite(bool force_all = false);

  // Absolute path of the config file given on the command line ("" when none); REWRITE
  // writes there. LoadFromArgs sets it; tests may set it directly.
  std::string config_file;

  // ---- Typed members, read directly by the server. Written only through this class. ----
  // Network
  int port = 6379;
  std::vector<std::string> bind;  // "-" prefixed entries are optional addresses
  bool protected_mode = true;
  int tcp_backlog = 511;
  int tcp_keepalive = 300;
  std::string unixsocket;
  int unixsocketperm = 0;  // octal mode bits; 0 = leave as created
  int64_t maxclients = 10000;
  int timeout = 0;  // seconds; 0 = never close idle clients
  int tls_port = 0;
  // TLS (server/tls.cc builds the contexts from these; empty strings are unset).
  std::string tls_cert_file, tls_key_file, tls_key_file_pass;
  std::string tls_client_cert_file, tls_client_key_file, tls_client_key_file_pass;
  std::string tls_dh_params_file, tls_ca_cert_file, tls_ca_cert_dir;
  std::string tls_protocols, tls_ciphers, tls_ciphersuites;
  int tls_auth_clients = 1;  // 0 no, 1 yes, 2 optional
  bool tls_prefer_server_ciphers = false;
  bool tls_session_caching = true;
  int tls_session_cache_size = 20480;
  int tls_session_cache_timeout = 300;
  bool tls_replication = false;
  bool tls_cluster = false;
  // Cluster (src/cluster/cluster.h reads them; the other cluster-* parameters are only kept).
  bool cluster_enabled = false;
  std::string cluster_config_file = "nodes.conf";
  int cluster_port = 0;  // 0: port + 10000
  int64_t cluster_node_timeout = 15000;
  bool cluster_require_full_coverage = true;
  bool cluster_allow_reads_when_down = false;
  bool cluster_allow_pubsubshard_when_down = true;
  std::string cluster_announce_ip;        // "" = unset: peers use the address they see
  std::string cluster_announce_hostname;  // "" = unset: no hostname extension
  int cluster_announce_port = 0;          // 0 = the client port
  int cluster_announce_bus_port = 0;      // 0 = the bus port
  int cluster_announce_tls_port = 0;
  uint64_t cluster_link_sendbuf_limit = 0;  // bytes, 0 = none
  bool cluster_allow_replica_migration = true;
  int cluster_migration_barrier = 1;
  bool cluster_replica_no_failover = false;
  int cluster_replica_validity_factor = 10;
  // Process
  bool daemonize = false;
  std::string pidfile;
  std::string logfile;  // "" = stdout
  LogVerbosity loglevel = LogVerbosity::kNotice;
  bool syslog_enabled = false;
  bool set_proc_title = true;
  std::string proc_title_template;
  bool always_show_logo = false;
  bool crash_log_enabled = true;  // fatal signals leave a crash report (crash_report.h)
  std::string dir;                // absolute working directory
  int io_threads = 1;
  bool io_threads_do_reads = false;
  int shutdown_on_sigint = 0;   // kShutdown* bits
  int shutdown_on_sigterm = 0;  // kShutdown* bits
  int shutdown_timeout = 10;
  OomScoreAdj oom_score_adj = OomScoreAdj::kNo;
  int oom_score_adj_values[3] = {0, 200, 800};
  // Keyspace and cron
  int databases = 16;
  int hz = 10;  // already clamped to 1..500
  bool dynamic_hz = true;
  int active_expire_effort = 1;
  bool activerehashing = true;
  // Loading (server/loading.cc): debug knobs Redis has for its tests.
  int key_load_delay = 0;  // µs of sleep per key loaded; -N: 1 µs with a chance of 1 in N
  int64_t loading_process_events_interval_bytes = 2 * 1024 * 1024;
  // Limits
  int64_t proto_max_bulk_len = 512LL << 20;
  int64_t client_query_buffer_limit = 1LL << 30;
  OutputBufferLimit client_output_buffer_limits[3];  // indexed by ClientClass
  int64_t busy_reply_threshold = 5000;               // ms (alias lua-time-limit)
  int64_t tracking_table_max_keys = 1000000;
  // Security
  std::string requirepass;
  std::string masterauth;
  std::string masteruser;
  std::string aclfile;
  int64_t acllog_max_len = 128;
  bool acl_pubsub_default_allchannels = false;
  std::string enable_protected_configs = "no";  // "no", "yes" or "local"
  std::string enable_debug_command = "no";      // "no", "yes" or "local"
  std::string enable_module_command = "no";     // "no", "yes" or "local"
  // Monitoring
  int64_t slowlog_log_slower_than = 10000;  // microseconds; -1 disables, 0 logs everything
  int64_t slowlog_max_len = 128;
  int64_t latency_monitor_threshold = 0;  // milliseconds; 0 disables
  bool latency_tracking = true;
  std::vector<double> latency_tracking_info_percentiles;
  // Memory
  uint64_t maxmemory = 0;
  std::string maxmemory_policy = "noeviction";  // the word, as CONFIG GET shows it
  MaxmemoryPolicy maxmemory_policy_kind = MaxmemoryPolicy::kNoEviction;
  int maxmemory_samples = 5;
  int maxmemory_eviction_tenacity = 10;
  int64_t maxmemory_clients = 0;  // bytes, or -N meaning N percent of maxmemory
  int lfu_log_factor = 10;
  int lfu_decay_time = 1;
  bool lazyfree_lazy_eviction = false;
  bool lazyfree_lazy_expire = false;
  bool lazyfree_lazy_server_del = false;
  bool lazyfree_lazy_user_del = false;
  bool lazyfree_lazy_user_flush = false;
  // Notifications
  uint32_t notify_keyspace_events = 0;  // kNotify* bits
  // Encodings
  int64_t hash_max_listpack_entries = 512;
  int64_t hash_max_listpack_value = 64;
  int64_t set_max_intset_entries = 512;
  int64_t zset_max_listpack_entries = 128;
  int64_t zset_max_listpack_value = 64;
  int list_max_listpack_size = -2;
  int list_compress_depth = 0;
  int64_t stream_node_max_bytes = 4096;
  int64_t stream_node_max_entries = 100;
  int64_t hll_sparse_max_bytes = 3000;
  // Persistence
  std::vector<SaveParam> save_params;
  bool appendonly = false;
  std::string dbfilename;
  // cluster: existence events sent to other shards by the bus (cluster/watchex_forward.h)
  bool tp_watchex_shard_forward = false;
  int64_t tp_failover_grace_ms = 10000;  // promoted replica: plain owners' keys kept this long
  std::string tp_fence_file;  // fencing tokens' reservation file in `dir` (watch/fence.h)
  std::string appendfilename;
  std::string appenddirname;
  bool stop_writes_on_bgsave_error = true;
  bool rdbcompression = true;
  bool rdbchecksum = true;
  // compat-version (server/version.h): the Redis version reported (INFO, HELLO), and the RDB
  // format version written (files, DUMP, FUNCTION DUMP) and the newest RESTORE accepts.
  std::string compat_version = "7.0.15";
  int compat_version_num = 0x07000f;
  int rdb_version = 10;
  // Replication
  std::string replicaof_host;  // "" = not a replica
  int replicaof_port = 0;
  bool replica_read_only = true;
  bool replica_serve_stale_data = true;

  // Recorded directives, in file order: rename-command (from, to), user and loadmodule args,
  // and "module.option value" lines (whole line; their presence fails the load, as in Redis
  // without the module).
  std::vector<std::pair<std::string, std::string>> rename_commands;
  std::vector<std::vector<std::string>> users;
  std::vector<std::vector<std::string>> loadmodules;
  std::vector<std::vector<std::string>> module_configs;

 private:
  struct HookEntry {
    std::vector<size_t> rows;
    Hook hook;
  };
  struct LoadState;

  Status LoadText(std::string_view text, LoadState* state);
  Status LoadDirective(const std::vector<std::string>& argv, LoadState* state);
  Status LoadInclude(const std::string& pattern, LoadState* state);
  void StoreRow(size_t row, std::string text);
  std::string DisplayRow(size_t row) const;

  std::vector<std::string> values_;  // canonical text per table row
  std::vector<HookEntry> hooks_;
  std::function<void(std::string_view)> apply_failure_;
  std::vector<std::pair<std::string, DirectiveHandler>> directive_handlers_;
  std::vector<std::pair<std::string, LinesProvider>> rewrite_providers_;
};

}  // namespace redistp
