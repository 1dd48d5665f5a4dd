// Shared by the server-introspection commands (INFO, MEMORY, DEBUG, CONFIG). INFO (info.cc) and
// MEMORY STATS / MEMORY DOCTOR (server_cmds.cc) describe memory with the same accounting, so both
// read one MemoryOverview computed in info.cc rather than each adding up the parts its own way.
//
// Accounting model. `used` is what the allocator has handed out (jemalloc's stats.allocated).
// It splits into overhead and dataset: overhead is the memory the server had right after
// startup, plus client buffers (the replicas' apart), the replication backlog, the AOF buffer,
// the cluster bus's links, the script and function caches, plus each database's table structure
// (bucket arrays, the fixed-size entry headers, the TTL index, the slot index); the dataset is
// everything else, i.e. the key bytes and the values.
// The split is an estimate in the same sense as Redis's: allocations the server makes for its
// own bookkeeping after startup count as dataset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace redistp {

class Client;
class CommandTable;
class Server;

struct MemoryOverview {
  size_t used = 0;     // used_memory
  size_t peak = 0;     // used_memory_peak
  size_t startup = 0;  // used_memory_startup
  size_t rss = 0;      // used_memory_rss
  size_t allocator_allocated = 0;
  size_t allocator_active = 0;
  size_t allocator_resident = 0;
  size_t clients_normal = 0;    // query and reply buffers plus the Client objects
  size_t clients_replicas = 0;  // the same for the replicas' links (mem_clients_slaves)
  size_t repl_backlog = 0;      // the backlog's ring (mem_replication_backlog)
  size_t aof_buffer = 0;        // the AOF's write buffer (mem_aof_buffer, aof.buffer)
  size_t cluster_links = 0;     // the bus links and their send buffers (mem_cluster_links)
  size_t lua_caches = 0;        // EVAL's script cache (used_memory_scripts_eval)
  size_t functions_caches = 0;  // the function libraries' bookkeeping (used_memory_functions)

  struct DbOverhead {
    int index;
    size_t main;          // bucket array + entry headers
    size_t expires;       // TTL index
    size_t slot_to_keys;  // the per-slot key index (cluster mode, database 0)
  };
  std::vector<DbOverhead> dbs;  // only databases holding keys

  size_t overhead_total = 0;
  size_t dataset = 0;
  size_t total_keys = 0;
  size_t bytes_per_key = 0;
  // Ratios are single precision, as MEMORY STATS reports them.
  float dataset_perc = 0;
  float peak_perc = 0;
  float allocator_frag = 0;  // active / allocated
  float allocator_rss = 0;   // resident / active
  float rss_extra = 0;       // rss / resident
  float total_frag = 0;      // rss / used
  int64_t allocator_frag_bytes = 0;
  int64_t allocator_rss_bytes = 0;
  int64_t rss_extra_bytes = 0;
  int64_t total_frag_bytes = 0;
};

// Reads the allocator and walks the databases and clients (O(databases + clients)).
MemoryOverview ComputeMemoryOverview(Server& server);

// The text of INFO ALL (every section), as the crash report logs it.
std::string InfoAllText(Server& server);

// MIGRATE's cached connections open now (INFO migrate_cached_sockets; migrate.cc).
size_t MigrateCachedSockets(Server& server);

// DEBUG lives in debug_cmd.cc; RegisterServerCommands registers it.
void RegisterDebugCommand(CommandTable& table);

}  // namespace redistp
