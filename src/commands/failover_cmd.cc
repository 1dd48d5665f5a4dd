// FAILOVER [TO host port [FORCE]] [ABORT] [TIMEOUT milliseconds] (replication/failover.h holds
// the state machine and its model).
//
// Errors come in Redis 7.0's order, which clients and tests see: first the arguments, left to
// right (a repeated option or a missing value is a syntax error, a bad number is "not an
// integer", a TIMEOUT <= 0 is refused as soon as it is read), then ABORT mixed with anything
// else (syntax), then ABORT's own answer, and only then the state of the server
// (Failover::Start: a replica, a failover in progress, no replicas, FORCE without TO and
// TIMEOUT, a target that is not a replica).
#include "commands/register.h"
#include "protocol/errors.h"
#include "replication/failover.h"
#include "replication/replication.h"
#include "server/command.h"
#include "util/numbers.h"

namespace redistp {

namespace {

void FailoverCommand(CommandContext& c) {
  if (c.server.config().cluster_enabled) {
    c.reply.Error(err::kFailoverInCluster);
    return;
  }
  Failover::Request req;
  bool has_to = false, has_timeout = false, abort = false;
  const size_t n = c.args.size();
  for (size_t i = 1; i < n; ++i) {
    std::string_view a = c.args[i];
    if (EqualsIgnoreCase(a, "to") && !has_to && i + 2 < n) {
      int64_t port;
      if (!ParseInt64(c.args[i + 2], &port)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      req.host.assign(c.args[i + 1]);
      // Any integer: a port no replica has is "not a replica" below, as in Redis.
      req.port = port < INT32_MIN || port > INT32_MAX ? -1 : static_cast<int>(port);
      has_to = true;
      i += 2;
    } else if (EqualsIgnoreCase(a, "timeout") && !has_timeout && i + 1 < n) {
      int64_t ms;
      if (!ParseInt64(c.args[i + 1], &ms)) {
        c.reply.Error(err::kNotInteger);
        return;
      }
      if (ms <= 0) {
        c.reply.Error(err::kFailoverTimeoutNotPositive);
        return;
      }
      req.timeout_ms = ms;
      has_timeout = true;
      ++i;
    } else if (EqualsIgnoreCase(a, "force") && !req.force) {
      req.force = true;
    } else if (EqualsIgnoreCase(a, "abort") && !abort) {
      abort = true;
    } else {
      c.reply.Error(err::kSyntax);
      return;
    }
  }
  Failover& failover = Replication::Of(c.server).failover();
  if (abort) {
    if (has_to || has_timeout || req.force) {
      c.reply.Error(err::kSyntax);
    } else if (!failover.Abort()) {
      c.reply.Error(err::kFailoverNotInProgress);
    } else {
      c.reply.Ok();
    }
    return;
  }
  std::string_view error = failover.Start(req);
  if (!error.empty()) {
    c.reply.Error(error);
    return;
  }
  c.reply.Ok();
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::PureToken;
using docs::String;

void RegisterFailoverCommands(CommandTable& t) {
  t.Register(
      {.name = "failover",
       .arity = -1,
       .flags = kCmdAdmin | kCmdNoScript | kCmdStale,
       .acl = kAclAdmin | kAclSlow | kAclDangerous,
       .doc = {.summary = "Hands the master role to one of the replicas, coordinated with it",
               .since = "6.2.0",
               .group = "server",
               .complexity = "O(1)",
               .args = {Block("target",
                              {String("host"), Integer("port"), PureToken("FORCE").Optional()})
                            .Token("TO")
                            .Optional(),
                        PureToken("ABORT").Optional(),
                        Integer("milliseconds").Token("TIMEOUT").Optional()}},
       .handler = FailoverCommand});
}

}  // namespace redistp
