// MONITOR, SLOWLOG and LATENCY: watching what the server executes and how long it takes.
//
// Model. The dispatcher records; these commands only read and reset the records.
//  * MONITOR turns the caller into a monitor (Server::AddMonitor). From then on the dispatcher
//    appends one line per executed command of any connection ("+<sec>.<usec> [<db> <addr>]
//    "arg" ..."), except administrative commands and those flagged skip-monitor, with secret
//    arguments (AUTH, HELLO AUTH) shown as "(redacted)". A monitor may not run commands that
//    read or write keys; RESET or closing ends the mode.
//  * SLOWLOG reads Server::slowlog(): newest entry first, at most slowlog-max-len entries, each
//    made when a command took at least slowlog-log-slower-than microseconds (a negative value
//    disables it, 0 logs everything).
//  * LATENCY reads Server::latency_events(): per event ("command", "fast-command"), one sample
//    per second (the worst of that second) for the last 160 seconds with a sample, plus the
//    all-time worst, recorded when latency-monitor-threshold is set and an event lasted at
//    least that many milliseconds.
//
//  * LATENCY HISTOGRAM reads each command row's LatencyHistogram (util/latency_histogram.h),
//    fed by the dispatcher with every call's duration while latency-tracking is on and emptied
//    by CONFIG RESETSTAT.
//  * LATENCY GRAPH draws one event's samples as Redis's text chart.
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "commands/help_reply.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// ---- MONITOR -------------------------------------------------------------------------------

void MonitorCommand(CommandContext& c) {
  // Already monitoring: Redis ignores the request without replying; so do we.
  if (c.client.has_flag(kClientMonitor)) return;
  c.server.AddMonitor(&c.client);
  c.reply.Ok();
}

// ---- SLOWLOG -------------------------------------------------------------------------------

// SLOWLOG GET [count]: the `count` newest entries (default 10, -1 for all), newest first. Each
// is [id, unix time, duration in microseconds, [arguments...], peer address, client name].
void SlowlogGetCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "SLOWLOG"));
    return;
  }
  int64_t count = 10;
  if (c.args.size() == 3 && (!ParseInt64(c.args[2], &count) || count < -1)) {
    c.reply.Error(err::kSlowlogCount);
    return;
  }
  const auto& log = c.server.slowlog();
  size_t n = count == -1 ? log.size() : std::min(log.size(), static_cast<size_t>(count));
  c.reply.Array(n);
  for (size_t i = 0; i < n; ++i) {
    const SlowlogEntry& e = log[i];
    c.reply.Array(6);
    c.reply.Int(static_cast<int64_t>(e.id));
    c.reply.Int(e.time_sec);
    c.reply.Int(e.duration_us);
    c.reply.Array(e.args.size());
    for (const std::string& a : e.args) c.reply.Bulk(a);
    c.reply.Bulk(e.peer);
    c.reply.Bulk(e.name);
  }
}

void SlowlogLenCommand(CommandContext& c) {
  c.reply.Int(static_cast<int64_t>(c.server.slowlog().size()));
}

void SlowlogResetCommand(CommandContext& c) {
  c.server.SlowlogReset();
  c.reply.Ok();
}

void SlowlogHelpCommand(CommandContext& c) {
  ReplyHelp(
      c.reply, "SLOWLOG",
      {
          "GET [<count>]",
          "    The <count> newest entries (default 10; -1 for all), newest first. An entry is:",
          "    id, unix time, duration in microseconds, argument array, peer address,",
          "    client name.",
          "LEN",
          "    Number of entries held.",
          "RESET",
          "    Drops every entry.",
      });
}

// ---- LATENCY -------------------------------------------------------------------------------

// LATENCY LATEST: per event [name, time of the latest sample, its latency, all-time worst].
void LatencyLatestCommand(CommandContext& c) {
  const auto& events = c.server.latency_events();
  c.reply.Array(events.size());
  for (const auto& [name, ev] : events) {
    c.reply.Array(4);
    c.reply.Bulk(name);
    if (ev.history.empty()) {
      c.reply.Int(0);
      c.reply.Int(0);
    } else {
      c.reply.Int(ev.history.back().time_sec);
      c.reply.Int(ev.history.back().latency_ms);
    }
    c.reply.Int(ev.max_ms);
  }
}

// LATENCY HISTORY event: [[time, latency], ...] oldest first; empty for an unknown event.
void LatencyHistoryCommand(CommandContext& c) {
  const auto& events = c.server.latency_events();
  auto it = events.find(std::string(c.args[2]));
  if (it == events.end()) {
    c.reply.Array(0);
    return;
  }
  c.reply.Array(it->second.history.size());
  for (const LatencySample& s : it->second.history) {
    c.reply.Array(2);
    c.reply.Int(s.time_sec);
    c.reply.Int(s.latency_ms);
  }
}

// LATENCY GRAPH event: the event's samples drawn as text, in Redis's layout, so a person (or a
// tool that diffs the two servers) reads the same chart:
//   "<event> - high <max> ms, low <min> ms (all time high <worst> ms)", a rule of 80 dashes,
//   then the samples oldest first, one column each, in blocks of at most 80 columns separated by
//   an empty line. A block is 4 rows of bars, one blank row, and each sample's age written
//   downwards ("7s", "12m", "3h", "2d": seconds, minutes, hours or days ago, truncated).
// A bar's height is the sample's place between the lowest and highest sample shown, in 12
// steps (3 per row): cells below its top are '|', its top cell '_', 'o' or '#' for the first,
// second or third step of that row. With every sample equal, each is the lowest step.
std::string LatencyGraph(std::string_view name, const LatencyEvent& ev, int64_t now_sec) {
  constexpr size_t kColumns = 80;
  constexpr int kRows = 4;
  constexpr int kStepsPerRow = 3;
  constexpr std::string_view kTops = "_o#";
  uint32_t low = ev.history.front().latency_ms;
  uint32_t high = low;
  for (const LatencySample& s : ev.history) {
    low = std::min(low, s.latency_ms);
    high = std::max(high, s.latency_ms);
  }
  const uint32_t span = high > low ? high - low : 1;
  std::vector<int> steps;
  std::vector<std::string> ages;
  for (const LatencySample& s : ev.history) {
    int step =
        static_cast<int>(static_cast<uint64_t>(s.latency_ms - low) * kRows * kStepsPerRow / span);
    steps.push_back(std::min(step, kRows * kStepsPerRow - 1));
    const int64_t age = std::max<int64_t>(0, now_sec - s.time_sec);
    if (age < 60) {
      ages.push_back(std::to_string(age) + "s");
    } else if (age < 3600) {
      ages.push_back(std::to_string(age / 60) + "m");
    } else if (age < 86400) {
      ages.push_back(std::to_string(age / 3600) + "h");
    } else {
      ages.push_back(std::to_string(age / 86400) + "d");
    }
  }
  std::string out = std::string(name) + " - high " + std::to_string(high) + " ms, low " +
                    std::to_string(low) + " ms (all time high " + std::to_string(ev.max_ms) +
                    " ms)\n" + std::string(kColumns, '-') + "\n";
  for (size_t first = 0; first < steps.size(); first += kColumns) {
    const size_t width = std::min(kColumns, steps.size() - first);
    if (first != 0) out += '\n';
    std::string line(width, ' ');
    for (int row = 0; row < kRows; ++row) {
      // The steps this row covers, counted from the bottom row's first step.
      const int row_base = (kRows - 1 - row) * kStepsPerRow;
      for (size_t i = 0; i < width; ++i) {
        const int cell = steps[first + i] - row_base;
        line[i] = cell < 0 ? ' ' : cell < kStepsPerRow ? kTops[cell] : '|';
      }
      out += line + "\n";
    }
    out += std::string(width, ' ') + "\n";
    for (size_t ch = 0;; ++ch) {
      bool any = false;
      for (size_t i = 0; i < width; ++i) {
        const std::string& age = ages[first + i];
        line[i] = ch < age.size() ? age[ch] : ' ';
        any = any || ch < age.size();
      }
      if (!any) break;
      out += line + "\n";
    }
  }
  return out;
}

void LatencyGraphCommand(CommandContext& c) {
  const auto& events = c.server.latency_events();
  auto it = events.find(std::string(c.args[2]));
  if (it == events.end() || it->second.history.empty()) {
    c.reply.Error(err::NoLatencySamples(c.args[2]));
    return;
  }
  c.reply.Verbatim(LatencyGraph(it->first, it->second, c.server.NowMs() / 1000));
}

// LATENCY RESET [event ...]: forgets the named events (all without names); replies how many
// existed.
void LatencyResetCommand(CommandContext& c) {
  auto& events = c.server.latency_events();
  int64_t removed = 0;
  if (c.args.size() == 2) {
    removed = static_cast<int64_t>(events.size());
    events.clear();
  } else {
    for (size_t i = 2; i < c.args.size(); ++i) {
      removed += static_cast<int64_t>(events.erase(std::string(c.args[i])));
    }
  }
  c.reply.Int(removed);
}

// One command's entry of LATENCY HISTOGRAM: name => {calls, histogram_usec => {bucket: count}}.
// Buckets are the power-of-two levels from 1 microsecond, each with the number of calls that
// took at most that long; a level is listed only when it adds calls.
void ReplyCommandHistogram(ReplyBuilder& reply, const CommandSpec& spec) {
  const LatencyHistogram& h = spec.stats.latency;
  reply.Bulk(spec.full_name);
  reply.Map(2);
  reply.Bulk("calls");
  reply.Int(static_cast<int64_t>(h.total()));
  reply.Bulk("histogram_usec");
  size_t handle = reply.DeferLen();
  size_t levels = 0;
  h.ForEachPowerOfTwoLevel([&](uint64_t level_high, uint64_t cumulative) {
    reply.Int(static_cast<int64_t>(level_high / 1000));
    reply.Int(static_cast<int64_t>(cumulative));
    ++levels;
  });
  reply.SetDeferredLen(handle, '%', levels);
}

// Adds the entry of `spec` (when it has samples), or for a container those of its
// subcommands; returns how many entries were written.
size_t ReplyHistogramsOf(ReplyBuilder& reply, const CommandSpec& spec) {
  if (spec.subcommands.empty()) {
    if (!spec.stats.latency.active()) return 0;
    ReplyCommandHistogram(reply, spec);
    return 1;
  }
  size_t n = 0;
  for (const CommandSpec& sub : spec.subcommands) n += ReplyHistogramsOf(reply, sub);
  return n;
}

// LATENCY HISTOGRAM [command ...]: the latency distribution of each named command ("client|id"
// names a subcommand, a container all of its subcommands), or of every command called since the
// last CONFIG RESETSTAT. Unknown names and commands without samples are skipped; a name given
// twice is answered twice.
void LatencyHistogramCommand(CommandContext& c) {
  size_t handle = c.reply.DeferLen();
  size_t entries = 0;
  if (c.args.size() == 2) {
    for (const auto& spec : c.server.commands().all()) {
      entries += ReplyHistogramsOf(c.reply, *spec);
    }
  } else {
    for (size_t i = 2; i < c.args.size(); ++i) {
      std::string_view name = c.args[i];
      size_t bar = name.find('|');
      const CommandSpec* spec = c.server.commands().Find(name.substr(0, bar));
      if (spec != nullptr && bar != std::string_view::npos) {
        spec = spec->subcommands.empty() ? nullptr : spec->FindSubcommand(name.substr(bar + 1));
      }
      if (spec != nullptr) entries += ReplyHistogramsOf(c.reply, *spec);
    }
  }
  c.reply.SetDeferredLen(handle, '%', entries);
}

// LATENCY DOCTOR: a plain account of what the monitor holds, one paragraph per event, with
// the figures the samples support (count, average, worst) and nothing it cannot know.
void LatencyDoctorCommand(CommandContext& c) {
  const auto& events = c.server.latency_events();
  std::string text;
  if (events.empty()) {
    if (c.server.config().latency_monitor_threshold <= 0) {
      text =
          "The latency monitor is off (latency-monitor-threshold is 0), so there is nothing to "
          "analyse. Turn it on with CONFIG SET latency-monitor-threshold <milliseconds>.\n";
    } else {
      text = "No event has reached latency-monitor-threshold (" +
             std::to_string(c.server.config().latency_monitor_threshold) +
             " ms) since the server started or the latency data was last reset.\n";
    }
  } else {
    text = "Latency events recorded (each sample is the worst of one second):\n\n";
    int index = 1;
    for (const auto& [name, ev] : events) {
      uint64_t sum = 0;
      for (const LatencySample& s : ev.history) sum += s.latency_ms;
      size_t n = ev.history.size();
      text += std::to_string(index++) + ". " + name + ": " + std::to_string(n) + " sample" +
              (n == 1 ? "" : "s") + " in history";
      if (n > 0) {
        text += ", average " + std::to_string(sum / n) + " ms, latest " +
                std::to_string(ev.history.back().latency_ms) + " ms";
      }
      text += "; worst ever " + std::to_string(ev.max_ms) + " ms.\n";
    }
    text +=
        "\nFor the commands behind \"command\" and \"fast-command\" events, see SLOWLOG GET. "
        "Clear this data with LATENCY RESET.\n";
  }
  c.reply.Verbatim(text);
}

void LatencyHelpCommand(CommandContext& c) {
  ReplyHelp(
      c.reply, "LATENCY",
      {
          "LATEST",
          "    For every event: its name, the time and latency of its latest sample, and its",
          "    worst latency ever.",
          "HISTORY <event>",
          "    The samples kept for <event> as (unix time, milliseconds) pairs, oldest first.",
          "RESET [<event> ...]",
          "    Forgets the given events, or every event when none is given.",
          "DOCTOR",
          "    A readable summary of the recorded latency events.",
          "GRAPH <event>",
          "    The samples kept for <event> drawn as a text chart, with their ages.",
          "HISTOGRAM [<command> ...]",
          "    The latency distribution of the given commands (all called ones when none is",
          "    given): for each, its calls and how many took at most 1, 2, 4 ... microseconds.",
      });
}

}  // namespace

using docs::Integer;
using docs::String;

void RegisterIntrospectionCommands(CommandTable& t) {
  constexpr uint64_t kAdminAcl = kAclAdmin | kAclSlow | kAclDangerous;
  constexpr uint64_t kLatencyFlags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kSlowlogFlags = kCmdAdmin | kCmdLoading | kCmdStale;
  // One row per (sub)command reads better than one field per line.
  t.Register({.name = "monitor",
              .arity = 1,
              .flags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale,
              .acl = kAdminAcl,
              .doc = {.summary = "Streams every command the server processes to this connection",
                      .since = "1.0.0",
                      .group = "server"},
              .handler = MonitorCommand});
  t.Register(
      {.name = "slowlog",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that manage the slow command log",
               .since = "2.2.12",
               .group = "server",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           CommandSpec{
               .name = "get",
               .arity = -2,
               .flags = kSlowlogFlags,
               .acl = kAdminAcl,
               .doc = {.summary = "Returns the most recent slow log entries",
                       .since = "2.2.12",
                       .group = "server",
                       .complexity = "O(N) where N is the number of entries returned",
                       .history = {{"4.0.0", "Entries include the client's address and name."}},
                       .tips = {"request_policy:all_nodes", "nondeterministic_output"},
                       .args = {Integer("count").Optional()}},
               .handler = SlowlogGetCommand},
           CommandSpec{.name = "len",
                       .arity = 2,
                       .flags = kSlowlogFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Counts the entries in the slow log",
                               .since = "2.2.12",
                               .group = "server",
                               .complexity = "O(1)",
                               .tips = {"request_policy:all_nodes", "response_policy:agg_sum",
                                        "nondeterministic_output"}},
                       .handler = SlowlogLenCommand},
           CommandSpec{
               .name = "reset",
               .arity = 2,
               .flags = kSlowlogFlags,
               .acl = kAdminAcl,
               .doc = {.summary = "Empties the slow log",
                       .since = "2.2.12",
                       .group = "server",
                       .complexity = "O(N) where N is the number of entries in the slowlog",
                       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"}},
               .handler = SlowlogResetCommand},
           CommandSpec{
               .name = "help",
               .arity = 2,
               .flags = kCmdLoading | kCmdStale,
               .acl = kAclSlow,
               .doc = {.summary = "Lists the SLOWLOG subcommands with a short description of each",
                       .since = "6.2.0",
                       .group = "server",
                       .complexity = "O(1)"},
               .handler = SlowlogHelpCommand},
       }});
  t.Register(
      {.name = "latency",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the latency monitor commands",
               .since = "2.8.13",
               .group = "server",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           CommandSpec{.name = "latest",
                       .arity = 2,
                       .flags = kLatencyFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Reports the most recent sample of every latency event",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(1)",
                               .tips = {"nondeterministic_output", "request_policy:all_nodes",
                                        "response_policy:special"}},
                       .handler = LatencyLatestCommand},
           CommandSpec{.name = "history",
                       .arity = 3,
                       .flags = kLatencyFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Returns the recorded samples of one latency event",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(1)",
                               .tips = {"nondeterministic_output", "request_policy:all_nodes",
                                        "response_policy:special"},
                               .args = {String("event")}},
                       .handler = LatencyHistoryCommand},
           CommandSpec{
               .name = "reset",
               .arity = -2,
               .flags = kLatencyFlags,
               .acl = kAdminAcl,
               .doc = {.summary = "Forgets the samples of some or all latency events",
                       .since = "2.8.13",
                       .group = "server",
                       .complexity = "O(1)",
                       .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"},
                       .args = {String("event").Optional().Multiple()}},
               .handler = LatencyResetCommand},
           CommandSpec{.name = "doctor",
                       .arity = 2,
                       .flags = kLatencyFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Writes a human-readable analysis of the latency samples",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(1)",
                               .tips = {"nondeterministic_output", "request_policy:all_nodes",
                                        "response_policy:special"}},
                       .handler = LatencyDoctorCommand},
           CommandSpec{.name = "graph",
                       .arity = 3,
                       .flags = kLatencyFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Draws the samples of one latency event as a text chart",
                               .since = "2.8.13",
                               .group = "server",
                               .complexity = "O(1)",
                               .tips = {"nondeterministic_output", "request_policy:all_nodes",
                                        "response_policy:special"},
                               .args = {String("event")}},
                       .handler = LatencyGraphCommand},
           CommandSpec{.name = "histogram",
                       .arity = -2,
                       .flags = kLatencyFlags,
                       .acl = kAdminAcl,
                       .doc = {.summary = "Returns the cumulative latency distribution of commands",
                               .since = "7.0.0",
                               .group = "server",
                               .complexity = "O(N) where N is the number of commands with latency "
                                             "information being retrieved.",
                               .tips = {"nondeterministic_output", "request_policy:all_nodes",
                                        "response_policy:special"},
                               .args = {String("command").Optional().Multiple()}},
                       .handler = LatencyHistogramCommand},
           CommandSpec{
               .name = "help",
               .arity = 2,
               .flags = kCmdLoading | kCmdStale,
               .acl = kAclSlow,
               .doc = {.summary = "Lists the LATENCY subcommands with a short description of each",
                       .since = "2.8.13",
                       .group = "server",
                       .complexity = "O(1)"},
               .handler = LatencyHelpCommand},
       }});
}

}  // namespace redistp
