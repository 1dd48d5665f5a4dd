// CONFIG GET / SET / RESETSTAT / REWRITE / HELP: the command layer over Config (config.h).
//
// Config owns the parameters, their grammar, the all-or-nothing multi-pair SET and the file
// rewrite, each with Redis 7.0's error texts; these handlers only shape arguments and replies.
// CONFIG GET answers a map (name -> value): RESP3 clients see a map, RESP2 clients the flat
// array of pairs.
//
// RESETSTAT zeroes what INFO reports as counters since startup, as Redis's does: the server
// counters (connections, commands, network bytes, errors, rejected connections, evictions and
// the instantaneous-metric samples), the keyspace counters (expired keys, hits, misses), the
// error statistics by prefix, and the calls/usec/rejected/failed counts of every command and
// subcommand. It leaves alone what is not a counter: the slowlog (SLOWLOG RESET clears that),
// the latency monitor, used_memory_peak, and the start time.
#include <string>
#include <utility>
#include <vector>

#include "commands/help_reply.h"
#include "commands/server_info.h"
#include "db/database.h"
#include "db/lazy_free.h"
#include "protocol/errors.h"
#include "replication/master_side.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void ConfigGetCommand(CommandContext& c) {
  std::vector<std::string_view> patterns(c.args.begin() + 2, c.args.end());
  auto result = c.server.config().Get(patterns);
  if (!result.ok()) {
    c.reply.Error(result.status().message());
    return;
  }
  const auto& pairs = result.value();
  c.reply.Map(pairs.size());
  for (const auto& [name, value] : pairs) {
    c.reply.Bulk(name);
    c.reply.Bulk(value);
  }
}

void ConfigSetCommand(CommandContext& c) {
  // Pairs only: an odd count of words after SET is a syntax error, as in Redis.
  if (c.args.size() % 2 != 0) {
    c.reply.Error(err::kSyntax);
    return;
  }
  std::vector<std::pair<std::string_view, std::string_view>> pairs;
  for (size_t i = 2; i + 1 < c.args.size(); i += 2) pairs.emplace_back(c.args[i], c.args[i + 1]);
  // While a dataset loads, a parameter that would disturb the load (dir, appendonly,
  // repl-diskless-load) refuses the command with LOADING. Redis judges it in its walk over the
  // names, after unknown, immutable and protected and before duplicates: the first of those
  // faults in argument order is the one reported (Config::Set reports the others).
  if (c.server.loading()) {
    const Config& config = c.server.config();
    const bool protected_ok =
        config.enable_protected_configs == "yes" ||
        (config.enable_protected_configs == "local" && IsLocalClient(c.client));
    for (const auto& [name, value] : pairs) {
      const ConfigDef* def = FindConfig(name);
      if (def == nullptr || (def->flags & kConfigImmutable) != 0 ||
          ((def->flags & kConfigProtected) != 0 && !protected_ok)) {
        break;
      }
      if ((def->flags & kConfigDenyLoading) != 0) {
        c.reply.Error(err::kLoading);
        return;
      }
    }
  }
  Status s = c.server.config().Set(pairs, IsLocalClient(c.client));
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  // min-replicas-*: Redis judges NOREPLICAS against the configuration of the moment, so the
  // next write (or the EXEC of a transaction queued before) sees the new rule, not the next
  // cron tick.
  for (const auto& [name, value] : pairs) {
    if (EqualsIgnoreCase(name.substr(0, 13), "min-replicas-") ||
        EqualsIgnoreCase(name.substr(0, 11), "min-slaves-")) {
      Replication::Of(c.server).master().RefreshGoodReplicas();
      break;
    }
  }
  c.reply.Ok();
}

// What SLOWLOG and MONITOR show of a CONFIG SET: the value of every parameter whose row is
// marked sensitive is "(redacted)": the passwords and the user name this server authenticates
// with, and the TLS key passphrases. Redis 7.0.15 shows the passphrases as given; later Redis
// releases redact them too, and no tool needs a secret echoed back, so we take the safer rule.
void RedactConfigSetArgs(std::vector<std::string_view>& shown) {
  for (size_t i = 2; i + 1 < shown.size(); i += 2) {
    const ConfigDef* def = FindConfig(shown[i]);
    if (def != nullptr && (def->flags & kConfigSensitive) != 0) shown[i + 1] = kRedactedArg;
  }
}

void ResetCommandStats(const CommandSpec& spec) {
  spec.stats = CommandStats{};
  for (const CommandSpec& sub : spec.subcommands) ResetCommandStats(sub);
}

void ConfigResetStatCommand(CommandContext& c) {
  ServerStats& st = c.server.stats();
  st = ServerStats{};
  // The next instantaneous sample measures from now, against counters that restart at zero.
  st.last_sample_ms = c.server.NowMs();
  KeyspaceContext& ks = c.server.keyspace();
  ks.expired_keys = 0;
  ks.keyspace_hits = 0;
  ks.keyspace_misses = 0;
  ks.expired_stale_perc_samples = 0;
  c.server.lazyfree().ResetStats();
  for (const auto& spec : c.server.commands().all()) ResetCommandStats(*spec);
  // INFO coordination's event counters (hand-offs, releases by cause) restart too.
  c.server.coordination_stats() = CoordinationStats{};
  c.reply.Ok();
}

void ConfigRewriteCommand(CommandContext& c) {
  Status s = c.server.config().Rewrite();
  if (!s.ok()) {
    constexpr std::string_view kPrefix = err::kConfigRewritePrefix;
    if (s.message().rfind(kPrefix, 0) == 0) {
      c.server.log().Log(LogLevel::kWarning, "CONFIG REWRITE failed: %s",
                         s.message().substr(kPrefix.size()).c_str());
    }
    c.reply.Error(s.message());
    return;
  }
  c.server.log().Log(LogLevel::kNotice, "CONFIG REWRITE executed with success.");
  c.reply.Ok();
}

void ConfigHelpCommand(CommandContext& c) {
  ReplyHelp(
      c.reply, "CONFIG",
      {
          "GET <pattern>",
          "    Return the parameters matching the glob-like <pattern> (several patterns may be",
          "    given) with their values.",
          "SET <directive> <value>",
          "    Set <directive> to <value>; several directive/value pairs are applied all or",
          "    nothing.",
          "RESETSTAT",
          "    Reset the statistics INFO reports.",
          "REWRITE",
          "    Rewrite the configuration file with the current configuration.",
      });
}

}  // namespace

using docs::Block;
using docs::String;

void RegisterConfigCommands(CommandTable& t) {
  constexpr uint64_t kAdminFlags = kCmdAdmin | kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kAdminAcl = kAclAdmin | kAclSlow | kAclDangerous;
  t.Register(
      {.name = "config",
       .arity = -2,
       .acl = kAclSlow,
       .doc = {.summary = "Container for the commands that read and change the configuration",
               .since = "2.0.0",
               .group = "server",
               .complexity = "Depends on subcommand."},
       .subcommands = {
           {.name = "get",
            .arity = -3,
            .flags = kAdminFlags,
            .acl = kAdminAcl,
            .doc = {.summary = "Returns the configuration parameters that match the given patterns",
                    .since = "2.0.0",
                    .group = "server",
                    .complexity = "O(N) when N is the number of configuration parameters provided",
                    .history = {{"7.0.0",
                                 "Several parameters or patterns may be given in one call."}},
                    .args = {Block("parameter", {String("parameter")}).Multiple()}},
            .handler = ConfigGetCommand},
           {.name = "set",
            .arity = -4,
            .flags = kAdminFlags,
            .acl = kAdminAcl,
            .doc = {.summary = "Changes configuration parameters while the server runs",
                    .since = "2.0.0",
                    .group = "server",
                    .complexity = "O(N) when N is the number of configuration parameters provided",
                    .history = {{"7.0.0",
                                 "Several parameter and value pairs may be set in one call."}},
                    .tips = {"request_policy:all_nodes", "response_policy:all_succeeded"},
                    .args = {Block("parameter_value", {String("parameter"), String("value")})
                                 .Multiple()}},
            .redact = RedactConfigSetArgs,
            .handler = ConfigSetCommand},
           {.name = "resetstat",
            .arity = 2,
            .flags = kAdminFlags,
            .acl = kAdminAcl,
            .doc = {.summary = "Zeroes the statistics counters that INFO reports",
                    .since = "2.0.0",
                    .group = "server",
                    .complexity = "O(1)"},
            .handler = ConfigResetStatCommand},
           {.name = "rewrite",
            .arity = 2,
            .flags = kAdminFlags,
            .acl = kAdminAcl,
            .doc = {.summary = "Writes the running configuration back to the configuration file",
                    .since = "2.8.0",
                    .group = "server",
                    .complexity = "O(1)"},
            .handler = ConfigRewriteCommand},
           {.name = "help",
            .arity = 2,
            .flags = kCmdLoading | kCmdStale,
            .acl = kAclSlow,
            .doc = {.summary = "Lists the CONFIG subcommands with a short description of each",
                    .since = "5.0.0",
                    .group = "server",
                    .complexity = "O(1)"},
            .handler = ConfigHelpCommand},
       }});
}

}  // namespace redistp
