// Connection commands: PING, ECHO, SELECT, QUIT, AUTH, HELLO, RESET.
//
// Authentication asks the ACL users (src/acl): AUTH <password> is AUTH default <password>, and
// is an error while the default user has nopass (nothing to check against), as in Redis 7.
#include <cctype>

#include "acl/acl.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "replication/replication.h"
#include "server/client.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "server/version.h"
#include "util/numbers.h"

namespace redistp {
namespace {

void PingCommand(CommandContext& c) {
  if (c.args.size() > 2) {
    c.reply.Error(err::WrongArity("ping"));
    return;
  }
  if (c.reply.resp() == 2 && PubSub::Subscribed(c.client)) {
    // RESP2 subscribed mode: a reply shaped like a message, ["pong", argument or ""], as Redis.
    c.reply.Array(2);
    c.reply.Bulk("pong");
    c.reply.Bulk(c.args.size() == 2 ? c.args[1] : std::string_view());
    return;
  }
  if (c.args.size() == 1) {
    c.reply.Simple("PONG");
  } else {
    c.reply.Bulk(c.args[1]);
  }
}

void EchoCommand(CommandContext& c) { c.reply.Bulk(c.args[1]); }

void SelectCommand(CommandContext& c) {
  int64_t index;
  if (!ParseInt64(c.args[1], &index)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  // Redis reads the index as a C int first.
  if (index < INT32_MIN || index > INT32_MAX) {
    c.reply.Error(err::kIntRange);
    return;
  }
  // A cluster node has one database.
  if (c.server.config().cluster_enabled && index != 0) {
    c.reply.Error(err::kSelectInCluster);
    return;
  }
  Status s = c.server.SelectDb(c.client, index);
  if (!s.ok()) {
    c.reply.Error(s.message());
    return;
  }
  c.reply.Ok();
}

void QuitCommand(CommandContext& c) {
  c.reply.Ok();
  c.client.set_flag(kClientCloseAfterReply, true);
}

void AuthCommand(CommandContext& c) {
  if (c.args.size() > 3) {
    c.reply.Error(err::kSyntax);
    return;
  }
  Acl& acl = Acl::Of(c.server);
  std::string_view user = "default", pass;
  if (c.args.size() == 2) {
    // The one-argument form needs a password to check against (Redis keeps the old error).
    if ((acl.default_user().flags & kAclUserNoPass) != 0) {
      c.reply.Error(err::kAuthNoPassword);
      return;
    }
    pass = c.args[1];
  } else {
    user = c.args[1];
    pass = c.args[2];
  }
  if (!acl.Authenticate(c.client, user, pass, c.args[0])) {
    c.reply.Error(err::kWrongPass);
    return;
  }
  c.reply.Ok();
}

bool ValidClientName(std::string_view name) {
  for (unsigned char ch : name) {
    if (ch < '!' || ch > '~') return false;
  }
  return true;
}

void HelloCommand(CommandContext& c) {
  int64_t ver = c.client.reply.resp();
  size_t i = 1;
  if (c.args.size() >= 2) {
    if (!ParseInt64(c.args[1], &ver)) {
      c.reply.Error(err::kHelloProtoNotInt);
      return;
    }
    if (ver < 2 || ver > 3) {
      c.reply.Error(err::kNoProto);
      return;
    }
    i = 2;
  }
  // Options apply as they are parsed, as in Redis: a name set before a later option fails
  // (or before NOAUTH) stays set.
  for (; i < c.args.size(); ++i) {
    size_t more = c.args.size() - i - 1;
    if (EqualsIgnoreCase(c.args[i], "AUTH") && more >= 2) {
      if (!Acl::Of(c.server).Authenticate(c.client, c.args[i + 1], c.args[i + 2], c.args[0])) {
        c.reply.Error(err::kWrongPass);
        return;
      }
      i += 2;
    } else if (EqualsIgnoreCase(c.args[i], "SETNAME") && more >= 1) {
      if (!ValidClientName(c.args[i + 1])) {
        c.reply.Error(err::kBadClientName);
        return;
      }
      c.client.name.assign(c.args[i + 1]);
      ++i;
    } else {
      c.reply.Error(err::HelloBadOption(c.args[i]));
      return;
    }
  }
  if (!c.client.authenticated) {
    c.reply.Error(err::kHelloNoAuth);
    return;
  }
  c.client.reply.SetResp(static_cast<int>(ver));
  c.reply.Map(7);
  c.reply.Bulk("server");
  c.reply.Bulk("redis");
  c.reply.Bulk("version");
  c.reply.Bulk(c.server.config().compat_version);
  c.reply.Bulk("proto");
  c.reply.Int(ver);
  c.reply.Bulk("id");
  c.reply.Int(static_cast<int64_t>(c.client.id));
  c.reply.Bulk("mode");
  c.reply.Bulk(c.server.config().cluster_enabled ? "cluster" : "standalone");
  c.reply.Bulk("role");
  const Replication* repl = c.server.subsystem<Replication>();
  c.reply.Bulk(repl != nullptr && repl->is_replica() ? "replica" : "master");
  c.reply.Bulk("modules");
  c.reply.Array(0);
}

void ResetCommand(CommandContext& c) {
  Client& cl = c.client;
  // RESET ends the connection's session exactly as a disconnect does (the spec lists RESET
  // among the ways a connection ends): Server::EndSession, the shared teardown. What follows
  // is what RESET does beyond: the connection's settings go back to those of a new one.
  c.server.EndSession(cl, ReleaseCause::kReset);
  c.server.SelectDb(cl, 0);
  cl.reply.SetResp(2);
  cl.name.clear();
  cl.set_flag(kClientReplyOff | kClientReplySkip | kClientReplySkipNext | kClientNoEvict |
                  kClientReadOnly | kClientAsking,
              false);
  c.server.RemoveMonitor(&cl);
  // Back to the default user, authenticated only if it needs no password.
  cl.user = nullptr;
  cl.authenticated = Acl::Of(c.server).DefaultUserAuthenticates();
  cl.ever_authenticated = cl.ever_authenticated || cl.authenticated;
  c.reply.SetEnabled(true);
  c.reply.Simple("RESET");
}

// AUTH's arguments as SLOWLOG and MONITOR show them: every argument of its valid one- and
// two-argument forms is hidden, as Redis does (a longer line is an arity error anyway).
void RedactAuthArgs(std::vector<std::string_view>& shown) {
  if (shown.size() > 3) return;
  for (size_t i = 1; i < shown.size(); ++i) shown[i] = kRedactedArg;
}

// HELLO's arguments as SLOWLOG and MONITOR show them: the user name and password of each AUTH
// option HELLO would accept are hidden; like HELLO's own parse, it stops at the first option it
// would reject (a bad protocol version hides nothing).
void RedactHelloArgs(std::vector<std::string_view>& shown) {
  int64_t ver;
  if (shown.size() < 2 || !ParseInt64(shown[1], &ver) || ver < 2 || ver > 3) return;
  for (size_t i = 2; i < shown.size(); ++i) {
    size_t more = shown.size() - 1 - i;
    if (EqualsIgnoreCase(shown[i], "auth") && more >= 2) {
      shown[i + 1] = shown[i + 2] = kRedactedArg;
      i += 2;
    } else if (EqualsIgnoreCase(shown[i], "setname") && more >= 1) {
      ++i;
    } else {
      break;
    }
  }
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::String;

void RegisterConnectionCommands(CommandTable& t) {
  constexpr uint64_t kConn = kAclConnection;
  t.Register(
      {.name = "ping",
       .arity = -1,
       .flags = kCmdFast | kCmdSentinel | kCmdSubscribedContext,
       .acl = kConn | kAclFast,
       .doc = {.summary = "Checks that the server is alive, optionally echoing a message back",
               .since = "1.0.0",
               .group = "connection",
               .complexity = "O(1)",
               .tips = {"request_policy:all_shards", "response_policy:all_succeeded"},
               .args = {String("message").Optional()}},
       .handler = PingCommand});
  t.Register({.name = "echo",
              .arity = 2,
              .flags = kCmdLoading | kCmdStale | kCmdFast,
              .acl = kConn | kAclFast,
              .doc = {.summary = "Replies with the message it was given",
                      .since = "1.0.0",
                      .group = "connection",
                      .complexity = "O(1)",
                      .args = {String("message")}},
              .handler = EchoCommand});
  t.Register({.name = "select",
              .arity = 2,
              .flags = kCmdLoading | kCmdStale | kCmdFast,
              .acl = kConn | kAclFast,
              .doc = {.summary = "Switches the connection to another numbered database",
                      .since = "1.0.0",
                      .group = "connection",
                      .complexity = "O(1)",
                      .args = {Integer("index")}},
              .handler = SelectCommand});
  t.Register({.name = "quit",
              .arity = -1,
              .flags = kCmdAllowBusy | kCmdNoScript | kCmdNoAuth | kCmdLoading | kCmdStale |
                       kCmdFast | kCmdRunsInMulti | kCmdSubscribedContext,
              .acl = kConn | kAclFast,
              .doc = {.summary = "Closes the connection after replying",
                      .since = "1.0.0",
                      .group = "connection",
                      .complexity = "O(1)"},
              .handler = QuitCommand});
  t.Register(
      {.name = "auth",
       .arity = -2,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth | kCmdSentinel |
                kCmdAllowBusy,
       .acl = kConn | kAclFast,
       .doc = {.summary = "Authenticates the connection as a user",
               .since = "1.0.0",
               .group = "connection",
               .complexity = "O(N) where N is the number of passwords defined for the user",
               .history = {{"6.0.0", "Takes a username before the password, for ACL users."}},
               .args = {String("username").Since("6.0.0").Optional(), String("password")}},
       .redact = RedactAuthArgs,
       .handler = AuthCommand});
  t.Register(
      {.name = "hello",
       .arity = -1,
       .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth | kCmdSentinel |
                kCmdAllowBusy,
       .acl = kConn | kAclFast,
       .doc = {.summary = "Negotiates the protocol version, optionally authenticating and naming "
                          "the connection",
               .since = "6.0.0",
               .group = "connection",
               .complexity = "O(1)",
               .history =
                   {{"6.2.0",
                     "The protocol version became optional; without arguments HELLO describes the "
                     "connection."}},
               .args = {Block("arguments",
                              {Integer("protover"),
                               Block("username_password", {String("username"), String("password")})
                                   .Token("AUTH")
                                   .Optional(),
                               String("clientname").Token("SETNAME").Optional()})
                            .Optional()}},
       .redact = RedactHelloArgs,
       .handler = HelloCommand});
  t.Register({.name = "reset",
              .arity = 1,
              .flags = kCmdNoScript | kCmdLoading | kCmdStale | kCmdFast | kCmdNoAuth |
                       kCmdAllowBusy | kCmdRunsInMulti | kCmdSubscribedContext,
              .acl = kConn | kAclFast,
              .doc = {.summary = "Returns the connection to the state it had when it was opened",
                      .since = "6.2.0",
                      .group = "connection",
                      .complexity = "O(1)"},
              .handler = ResetCommand});
}

}  // namespace redistp
