// Server-level commands: TIME, LASTSAVE, SHUTDOWN, MEMORY (DEBUG is in debug_cmd.cc, INFO in
// info.cc, CONFIG in config_cmd.cc, FUNCTION in functions.cc).
//
// SHUTDOWN and persistence. With save points configured (or SAVE given, and NOSAVE not) the
// final RDB snapshot is written first (Server::PrepareShutdown asks persistence); if it cannot be,
// the reply is "ERR Errors trying to SHUTDOWN. Check logs." with the reason in the log and the
// server keeps running, unless FORCE is given, which exits anyway. With replicas attached the
// server first waits for them (server/shutdown.cc): NOW skips that wait, ABORT cancels it.
//
// MEMORY. STATS and DOCTOR read the accounting of server_info.h; MALLOC-STATS and PURGE talk to
// the allocator; USAGE is the key family's row (MemoryUsageSubcommand, keys_inspect.cc).
#ifdef USE_JEMALLOC
#include <jemalloc/jemalloc.h>
#else
#include <malloc.h>
#endif

#include <cstdio>
#include <string>

#include "commands/help_reply.h"
#include "commands/register.h"
#include "commands/server_info.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/memory.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// --- TIME, LASTSAVE --------------------------------------------------------------------------

void TimeCommand(CommandContext& c) {
  int64_t us = c.server.NowUs();
  c.reply.Array(2);
  c.reply.Bulk(Int64ToString(us / 1000000));
  c.reply.Bulk(Int64ToString(us % 1000000));
}

void LastSaveCommand(CommandContext& c) { c.reply.Int(c.server.last_save_time()); }

// --- SHUTDOWN --------------------------------------------------------------------------------

void ShutdownCommand(CommandContext& c) {
  bool nosave = false, save = false, now = false, force = false, abort = false;
  for (size_t i = 1; i < c.args.size(); ++i) {
    std::string_view a = c.args[i];
    if (EqualsIgnoreCase(a, "nosave")) {
      nosave = true;
    } else if (EqualsIgnoreCase(a, "save")) {
      save = true;
    } else if (EqualsIgnoreCase(a, "now")) {
      now = true;
    } else if (EqualsIgnoreCase(a, "force")) {
      force = true;
    } else if (EqualsIgnoreCase(a, "abort")) {
      abort = true;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  if ((abort && (nosave || save || now || force)) || (nosave && save)) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (abort) {
    if (c.server.AbortShutdown()) {
      c.reply.Ok();
    } else {
      c.reply.Error(err::kNoShutdownInProgress);
    }
    return;
  }
  // Half a dataset is never saved: while loading every SHUTDOWN is NOSAVE (server/loading.cc
  // ends the process after the pass that ran it), as in Redis.
  if (c.server.loading()) {
    nosave = true;
    save = false;
  }
  if (!nosave && c.server.busy_script()) {
    // While a script is busy only SHUTDOWN NOSAVE may end the server (a save would write the
    // script's half-done effects): the others get the BUSY error, as in Redis.
    c.reply.Error(c.server.BusyError());
    return;
  }
  Logger& log = c.server.log();
  // A SHUTDOWN that joins one already waiting for the replicas is not a new request: the log
  // says it once, as Redis does.
  if (!c.server.shutdown_waiting()) log.Log(LogLevel::kWarning, "User requested shutdown...");
  // Inside MULTI or a script the caller cannot block: SHUTDOWN does not wait for replicas.
  if (c.origin != ExecOrigin::kClient) now = true;
  const int flags = (nosave ? kShutdownNoSave : 0) | (save ? kShutdownSave : 0) |
                    (now ? kShutdownNow : 0) | (force ? kShutdownForce : 0);
  switch (c.server.BeginShutdown(flags, &c.client, false)) {
    case Server::ShutdownStart::kRefused:
      log.Log(LogLevel::kWarning,
              "Errors trying to shut down the server. Check the logs for more information.");
      c.reply.Error(err::kShutdownFailed);
      return;
    case Server::ShutdownStart::kWaiting:
      // Blocked without a reply until the replicas caught up (then the process exits) or the
      // shutdown is aborted (then the error).
      return;
    case Server::ShutdownStart::kExiting:
      // No reply: the connection ends with the process. Nothing after SHUTDOWN in this
      // client's pipeline runs.
      c.client.set_flag(kClientCloseAfterReply, true);
      return;
  }
}

// --- MEMORY ----------------------------------------------------------------------------------

void MemoryStatsCommand(CommandContext& c) {
  MemoryOverview m = ComputeMemoryOverview(c.server);
  ReplyBuilder& r = c.reply;
  auto num = [&](const char* name, int64_t v) {
    r.Bulk(name);
    r.Int(v);
  };
  auto ratio = [&](const char* name, float v) {
    r.Bulk(name);
    r.Double(v);
  };
  auto u = [](size_t v) { return static_cast<int64_t>(v); };
  r.Map(27 + m.dbs.size());
  num("peak.allocated", u(m.peak));
  num("total.allocated", u(m.used));
  num("startup.allocated", u(m.startup));
  num("replication.backlog", u(m.repl_backlog));
  num("clients.slaves", u(m.clients_replicas));
  num("clients.normal", u(m.clients_normal));
  num("cluster.links", u(m.cluster_links));
  num("aof.buffer", u(m.aof_buffer));
  num("lua.caches", u(m.lua_caches));
  num("functions.caches", u(m.functions_caches));
  for (const MemoryOverview::DbOverhead& d : m.dbs) {
    r.Bulk("db." + std::to_string(d.index));
    r.Map(3);
    num("overhead.hashtable.main", u(d.main));
    num("overhead.hashtable.expires", u(d.expires));
    num("overhead.hashtable.slot-to-keys", u(d.slot_to_keys));
  }
  num("overhead.total", u(m.overhead_total));
  num("keys.count", u(m.total_keys));
  num("keys.bytes-per-key", u(m.bytes_per_key));
  num("dataset.bytes", u(m.dataset));
  ratio("dataset.percentage", m.dataset_perc);
  ratio("peak.percentage", m.peak_perc);
  num("allocator.allocated", u(m.allocator_allocated));
  num("allocator.active", u(m.allocator_active));
  num("allocator.resident", u(m.allocator_resident));
  ratio("allocator-fragmentation.ratio", m.allocator_frag);
  num("allocator-fragmentation.bytes", m.allocator_frag_bytes);
  ratio("allocator-rss.ratio", m.allocator_rss);
  num("allocator-rss.bytes", m.allocator_rss_bytes);
  ratio("rss-overhead.ratio", m.rss_extra);
  num("rss-overhead.bytes", m.rss_extra_bytes);
  ratio("fragmentation", m.total_frag);
  num("fragmentation.bytes", m.total_frag_bytes);
}

// A plain-language reading of the memory figures. Same thresholds as Redis's doctor: below 5MB
// there is too little data to judge; otherwise it looks for a past peak well above today's use,
// RSS or allocator overhead that is both large in ratio and over 10MB, and fat client buffers.
void MemoryDoctorCommand(CommandContext& c) {
  MemoryOverview m = ComputeMemoryOverview(c.server);
  constexpr size_t kMb = 1024 * 1024;
  std::string report;
  if (m.used < 5 * kMb) {
    report =
        "This instance holds less than 5MB, too little for a memory diagnosis to mean anything. "
        "Put some data in it and ask again.\n";
    c.reply.Verbatim(report);
    return;
  }
  std::string issues;
  if (m.used > 0 && static_cast<double>(m.peak) / static_cast<double>(m.used) > 1.5) {
    issues += " * Peak memory: the instance once used " + BytesToHuman(m.peak) +
              ", more than 150% of "
              "the " +
              BytesToHuman(m.used) +
              " it uses now. Memory figures taken since then, the RSS "
              "especially, may still reflect that peak.\n\n";
  }
  if (m.total_frag > 1.4f && m.total_frag_bytes > static_cast<int64_t>(10 * kMb)) {
    issues += " * High total RSS: the process's RSS is " + FormatDouble(m.total_frag).substr(0, 4) +
              " times the memory in use. Part of it may be a past peak the allocator has not "
              "returned; MEMORY PURGE may help, and MEMORY MALLOC-STATS shows the details.\n\n";
  }
  if (m.allocator_frag > 1.1f && m.allocator_frag_bytes > static_cast<int64_t>(10 * kMb)) {
    issues += " * Allocator fragmentation: the allocator keeps " +
              BytesToHuman(static_cast<uint64_t>(m.allocator_frag_bytes)) +
              " of partly used pages beyond what is allocated.\n\n";
  }
  if (m.rss_extra > 1.1f && m.rss_extra_bytes > static_cast<int64_t>(10 * kMb)) {
    issues += " * Non-allocator RSS: " + BytesToHuman(static_cast<uint64_t>(m.rss_extra_bytes)) +
              " of the RSS is outside the allocator's pages (code, stacks, other mappings).\n\n";
  }
  size_t nclients = c.server.clients().size();
  if (nclients > 0 && m.clients_normal / nclients > 200 * 1024) {
    issues += " * Client buffers: connected clients use " +
              BytesToHuman(m.clients_normal / nclients) +
              " each on average; CLIENT LIST shows which query or output buffers are large.\n\n";
  }
  if (issues.empty()) {
    report = "No memory problem found in this instance's figures.\n";
  } else {
    report = "Memory issues found in this instance:\n\n" + issues +
             "Ask again after acting on these to see whether they are gone.\n";
  }
  c.reply.Verbatim(report);
}

void MemoryMallocStatsCommand(CommandContext& c) {
#ifdef USE_JEMALLOC
  std::string text;
  malloc_stats_print([](void* out, const char* s) { static_cast<std::string*>(out)->append(s); },
                     &text, nullptr);
  c.reply.Verbatim(text);
#else
  c.reply.Verbatim("Stats not supported for the current allocator");
#endif
}

void MemoryPurgeCommand(CommandContext& c) {
#ifdef USE_JEMALLOC
  std::string ctl = "arena." + std::to_string(MALLCTL_ARENAS_ALL) + ".purge";
  if (mallctl(ctl.c_str(), nullptr, nullptr, nullptr, 0) != 0) {
    c.reply.Error(err::kPurgeFailed);
    return;
  }
#else
  malloc_trim(0);
#endif
  c.reply.Ok();
}

void MemoryHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "MEMORY",
            {
                "DOCTOR",
                "    Return a report on memory problems, if any.",
                "MALLOC-STATS",
                "    Return the memory allocator's internal statistics.",
                "PURGE",
                "    Ask the allocator to return unused dirty pages to the system.",
                "STATS",
                "    Return the server's memory usage figures.",
                "USAGE <key> [SAMPLES <count>]",
                "    Return the bytes used by <key> and its value. Nested values are sampled",
                "    <count> times (default 5, 0 for all).",
            });
}

}  // namespace

using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterServerCommands(CommandTable& t) {
  t.Register({.name = "time",
              .arity = 1,
              .flags = kCmdLoading | kCmdStale | kCmdFast,
              .acl = kAclFast,
              .doc = {.summary = "Returns the server clock as seconds and microseconds",
                      .since = "2.6.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .tips = {"nondeterministic_output"}},
              .handler = TimeCommand});
  t.Register({.name = "lastsave",
              .arity = 1,
              .flags = kCmdLoading | kCmdStale | kCmdFast,
              .acl = kAclAdmin | kAclFast | kAclDangerous,
              .doc = {.summary = "Returns when the dataset was last saved to disk, as a Unix time",
                      .since = "1.0.0",
                      .group = "server",
                      .complexity = "O(1)",
                      .tips = {"nondeterministic_output"}},
              .handler = LastSaveCommand});
  t.Register(
      {.name = "shutdown",
       .arity = -1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale | kCmdNoMulti | kCmdAllowBusy,
       .acl = kAclAdmin | kAclSlow | kAclDangerous,
       .doc = {.summary = "Stops the server, saving the dataset first unless told otherwise",
               .since = "1.0.0",
               .group = "server",
               .complexity =
                   "O(N) when saving, where N is the total number of keys in all databases when "
                   "saving data, otherwise O(1)",
               .history = {{"7.0.0", "New `NOW`, `FORCE` and `ABORT` options."}},
               .args = {OneOf("nosave_save", {PureToken("NOSAVE"), PureToken("SAVE")}).Optional(),
                        PureToken("NOW").Since("7.0.0").Optional(),
                        PureToken("FORCE").Since("7.0.0").Optional(),
                        PureToken("ABORT").Since("7.0.0").Optional()}},
       .handler = ShutdownCommand});
  t.Register(
      {.name = "memory",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the memory introspection commands",
               .since = "4.0.0",
               .group = "server",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           {.name = "doctor",
            .arity = 2,
            .acl = kAclSlow,
            .doc = {.summary = "Writes a human-readable analysis of the memory use",
                    .since = "4.0.0",
                    .group = "server",
                    .complexity = "O(1)",
                    .tips = {"nondeterministic_output", "request_policy:all_shards",
                             "response_policy:special"}},
            .handler = MemoryDoctorCommand},
           {.name = "help",
            .arity = 2,
            .flags = kCmdLoading | kCmdStale,
            .acl = kAclSlow,
            .doc = {.summary = "Lists the MEMORY subcommands with a short description of each",
                    .since = "4.0.0",
                    .group = "server",
                    .complexity = "O(1)"},
            .handler = MemoryHelpCommand},
           {.name = "malloc-stats",
            .arity = 2,
            .acl = kAclSlow,
            .doc = {.summary = "Returns the memory allocator's own statistics report",
                    .since = "4.0.0",
                    .group = "server",
                    .complexity = "Depends on how much memory is allocated, could be slow",
                    .tips = {"nondeterministic_output", "request_policy:all_shards",
                             "response_policy:special"}},
            .handler = MemoryMallocStatsCommand},
           {.name = "purge",
            .arity = 2,
            .acl = kAclSlow,
            .doc = {.summary = "Asks the memory allocator to give unused pages back to the system",
                    .since = "4.0.0",
                    .group = "server",
                    .complexity = "Depends on how much memory is allocated, could be slow",
                    .tips = {"request_policy:all_shards", "response_policy:all_succeeded"}},
            .handler = MemoryPurgeCommand},
           {.name = "stats",
            .arity = 2,
            .acl = kAclSlow,
            .doc = {.summary = "Reports a breakdown of the server's memory use",
                    .since = "4.0.0",
                    .group = "server",
                    .complexity = "O(1)",
                    .tips = {"nondeterministic_output", "request_policy:all_shards",
                             "response_policy:special"}},
            .handler = MemoryStatsCommand},
           MemoryUsageSubcommand(),  // the key family's (keys_inspect.cc)
       }});
  RegisterDebugCommand(t);
}

}  // namespace redistp
