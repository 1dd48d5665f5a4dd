// The records the server keeps about itself, apart from the Server class that fills them:
// the counters behind INFO stats and INFO coordination, the slowlog's entries, the latency
// monitor's events, the figures of a load in progress (INFO persistence's loading_*), the
// allocator's memory figures, and the record of a command that blocked until its block ends.
//
// They are plain data, kept apart so that server.h holds the server's behaviour and this file
// its bookkeeping: the server updates them on its main thread (the command path, the cron, the
// loaders) and the introspection commands (INFO, SLOWLOG, LATENCY) read them through Server's
// accessors.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

namespace redistp {

struct CommandSpec;

struct SlowlogEntry {
  uint64_t id;
  int64_t time_sec;
  int64_t duration_us;
  std::vector<std::string> args;
  std::string peer;
  std::string name;
};

struct LatencySample {
  int64_t time_sec;
  uint32_t latency_ms;
};

struct LatencyEvent {
  std::deque<LatencySample> history;  // at most 160 samples, one per second
  uint32_t max_ms = 0;
};

struct ServerStats {
  uint64_t total_connections_received = 0;
  uint64_t total_commands_processed = 0;
  uint64_t rejected_connections = 0;
  uint64_t net_input_bytes = 0;
  uint64_t net_output_bytes = 0;
  uint64_t total_error_replies = 0;
  uint64_t evicted_keys = 0;
  uint64_t client_qbuf_limit_disconnections = 0;
  uint64_t client_outbuf_limit_disconnections = 0;
  uint64_t evicted_clients = 0;  // closed by client eviction (maxmemory-clients)
  uint64_t unexpected_error_replies = 0;
  uint64_t total_reads_processed = 0;            // reads from client connections
  uint64_t total_writes_processed = 0;           // writes to client connections
  uint64_t io_threaded_reads_processed = 0;      // of which on the I/O threads' pass
  uint64_t io_threaded_writes_processed = 0;     // of which on the I/O threads' pass
  std::map<std::string, uint64_t> error_counts;  // errorstats by prefix
  // Instantaneous metrics: samples taken every 100ms by cron.
  static constexpr int kSamples = 16;
  uint64_t ops_samples[kSamples] = {};
  uint64_t in_samples[kSamples] = {};
  uint64_t out_samples[kSamples] = {};
  int sample_idx = 0;
  int64_t last_sample_ms = 0;
  uint64_t last_sample_ops = 0, last_sample_in = 0, last_sample_out = 0;
};

// Why an owner's temporary keys were released all at once (INFO coordination released_by_*).
// A DELTP is counted apart (released_by_deltp): it releases single keys, not an owner.
enum class ReleaseCause : uint8_t {
  kDisconnect,     // the connection ended (close, QUIT, CLIENT KILL, timeout, limits)
  kLease,          // CLIENT LEASE ran out
  kReset,          // RESET
  kSessionClose,   // SESSION CLOSE
  kSessionExpiry,  // a detached session's grace ended
  kFailover,       // a promoted replica's tp-failover-grace-ms ended (replication/promotion.cc)
  kCount
};

// Counters of INFO coordination that are events rather than states.
struct CoordinationStats {
  uint64_t handoffs = 0;  // keys handed to a BSETTP waiter
  uint64_t released_by[static_cast<size_t>(ReleaseCause::kCount)] = {};
  uint64_t released_by_deltp = 0;
  void CountRelease(ReleaseCause cause, uint64_t keys) {
    released_by[static_cast<size_t>(cause)] += keys;
  }
  uint64_t released(ReleaseCause cause) const { return released_by[static_cast<size_t>(cause)]; }
};

// INFO persistence's loading_* figures of the load in progress (server/loading.cc).
struct LoadingStats {
  int64_t start_time = 0;  // unix seconds
  uint64_t total_bytes = 0;
  uint64_t loaded_bytes = 0;
  uint64_t rdb_used_mem = 0;
};

// Memory figures from jemalloc (Server::ReadMemoryStats: INFO memory, MEMORY STATS).
struct MemoryStats {
  size_t allocated = 0, active = 0, resident = 0, mapped = 0, retained = 0;
  size_t rss = 0;
};

// The accounting of a command that blocked (BLPOP waiting, WAIT ...) happens when its block
// ends, as in Redis 7.0: calls, time, latency histogram and SLOWLOG entry, so SLOWLOG shows
// it in the order commands completed. Held per blocked client until FinishBlock (or dropped
// when the client closes while blocked).
struct BlockedCall {
  const CommandSpec* spec = nullptr;
  int64_t duration_us = 0;
  std::vector<std::string> args;
};

}  // namespace redistp
