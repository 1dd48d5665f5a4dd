// CLIENT: how a connection looks at itself and at the other connections of the server.
//
// Model. Every connection is a Client owned by the Server (server/client.h). The subcommands
// here either read one (ID, GETNAME, INFO, LIST), change the caller's own per-connection state
// (SETNAME, REPLY, NO-EVICT), or act on the server's set of connections (KILL, PAUSE, UNPAUSE,
// UNBLOCK). Nothing here touches the keyspace.
//
// Client types. Redis sorts connections into normal, replica ("slave"), master and pubsub. A
// MONITOR connection counts as normal, as in Redis. redis-tp has no replication, so TypeOf()
// answers "pubsub" for a connection with any subscription (RESP2 or RESP3, as Redis's
// CLIENT_PUBSUB flag) and "normal" for the rest; it is the one place to teach the other types.
//
// Closing. KILL ends other connections through Server::CloseClient (the one teardown path).
// The caller itself is never closed under its own feet: it is flagged close-after-reply, so it
// still receives the reply (OK or the count) before the connection ends, as in Redis.
// UNBLOCK ends a blocking command's wait through Server::UnblockClient, which replies to the
// waiter as a timeout or with the UNBLOCKED error.
//
// Not here: TRACKING, CACHING, GETREDIR and TRACKINGINFO, the client-side caching rows of
// commands/tracking_cmd.cc (ClientTrackingSubcommands, appended to this container's rows), and
// the rows newer servers added (SETINFO, NO-TOUCH, CAPA, MAINT_NOTIFICATIONS: client_newer.cc).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "acl/acl.h"
#include "commands/help_reply.h"
#include "commands/register.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/pubsub.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

enum class ClientType { kNormal, kReplica, kMaster, kPubSub };

// Parses a type name of CLIENT LIST/KILL TYPE ("slave" is the old name of "replica").
std::optional<ClientType> ParseClientType(std::string_view name) {
  if (EqualsIgnoreCase(name, "normal")) return ClientType::kNormal;
  if (EqualsIgnoreCase(name, "replica") || EqualsIgnoreCase(name, "slave")) {
    return ClientType::kReplica;
  }
  if (EqualsIgnoreCase(name, "master")) return ClientType::kMaster;
  if (EqualsIgnoreCase(name, "pubsub")) return ClientType::kPubSub;
  return std::nullopt;
}

// The type of a connection (see the file comment).
ClientType TypeOf(const Client& c) {
  if (c.kind() == ClientKind::kReplica) return ClientType::kReplica;
  // The link to our master is CLIENT LIST TYPE MASTER's (and CLIENT KILL TYPE MASTER's).
  if (c.kind() == ClientKind::kMasterLink) return ClientType::kMaster;
  return PubSub::Subscribed(c) ? ClientType::kPubSub : ClientType::kNormal;
}

// A name may hold only printable ASCII without spaces ('!' .. '~'), so CLIENT LIST stays
// parseable as space-separated key=value pairs.
bool IsValidClientName(std::string_view name) {
  for (unsigned char ch : name) {
    if (ch < '!' || ch > '~') return false;
  }
  return true;
}

void ClientIdCommand(CommandContext& c) { c.reply.Int(static_cast<int64_t>(c.client.id)); }

void ClientSetNameCommand(CommandContext& c) {
  std::string_view name = c.args[2];
  if (!IsValidClientName(name)) {
    c.reply.Error(err::kBadClientName);
    return;
  }
  c.client.name.assign(name);  // the empty name clears it
  c.reply.Ok();
}

void ClientGetNameCommand(CommandContext& c) {
  if (c.client.name.empty()) {
    c.reply.Null();
  } else {
    c.reply.Bulk(c.client.name);
  }
}

void ClientInfoCommand(CommandContext& c) {
  c.reply.Verbatim(c.server.ClientInfoLine(c.client) + "\n");
}

// CLIENT LIST [TYPE type] | [ID id [id ...]]: one line per connection, in connection order
// (ID lists follow the order of the ids given, skipping unknown ones; a repeated id repeats).
void ClientListCommand(CommandContext& c) {
  const auto& args = c.args;
  std::string out;
  if (args.size() == 4 && EqualsIgnoreCase(args[2], "type")) {
    std::optional<ClientType> type = ParseClientType(args[3]);
    if (!type) {
      c.reply.Error(err::UnknownClientType(args[3]));
      return;
    }
    for (const auto& [id, cl] : c.server.clients()) {
      if (TypeOf(*cl) != *type) continue;
      out += c.server.ClientInfoLine(*cl);
      out += '\n';
    }
  } else if (args.size() > 3 && EqualsIgnoreCase(args[2], "id")) {
    // Every id is checked before anything is listed: one bad id fails the whole command.
    std::vector<int64_t> ids;
    for (size_t i = 3; i < args.size(); ++i) {
      int64_t id;
      if (!ParseInt64(args[i], &id)) {
        c.reply.Error(err::kInvalidClientId);
        return;
      }
      ids.push_back(id);
    }
    for (int64_t id : ids) {
      if (id <= 0) continue;
      const Client* cl = c.server.FindClient(static_cast<uint64_t>(id));
      if (cl == nullptr) continue;
      out += c.server.ClientInfoLine(*cl);
      out += '\n';
    }
  } else if (args.size() != 2) {
    c.reply.Error(err::kSyntax);
    return;
  } else {
    for (const auto& [id, cl] : c.server.clients()) {
      out += c.server.ClientInfoLine(*cl);
      out += '\n';
    }
  }
  c.reply.Verbatim(out);
}

// What CLIENT KILL's filter form selects; unset fields match every connection.
struct KillFilter {
  std::optional<uint64_t> id;
  std::optional<ClientType> type;
  std::optional<std::string_view> addr;
  std::optional<std::string_view> laddr;
  const AclUser* user = nullptr;
  // MAXAGE (Redis 7.4): only connections older than this many seconds.
  std::optional<int64_t> max_age_s;
  int64_t now_ms = 0;
  bool skip_me = true;

  bool Matches(const Client& cl, const Client& caller) const {
    if (user != nullptr && &Acl::Of(*cl.server).UserOf(cl) != user) return false;
    if (id && cl.id != *id) return false;
    if (type && TypeOf(cl) != *type) return false;
    if (addr && cl.addr != *addr) return false;
    if (laddr && cl.laddr != *laddr) return false;
    if (skip_me && &cl == &caller) return false;
    if (max_age_s && (now_ms - cl.ctime_ms) / 1000 < *max_age_s) return false;
    return true;
  }
};

// Parses the <filter> <value> pairs of CLIENT KILL. On failure replies the error and returns
// false. USER accepts only the users that exist.
bool ParseKillFilter(CommandContext& c, KillFilter* f) {
  const auto& args = c.args;
  for (size_t i = 2; i < args.size(); i += 2) {
    std::string_view opt = args[i];
    if (i + 1 >= args.size()) {
      c.reply.Error(err::kSyntax);
      return false;
    }
    std::string_view value = args[i + 1];
    if (EqualsIgnoreCase(opt, "id")) {
      int64_t id;
      if (!ParseInt64(value, &id) || id <= 0) {
        c.reply.Error(err::kClientIdRange);
        return false;
      }
      f->id = static_cast<uint64_t>(id);
    } else if (EqualsIgnoreCase(opt, "type")) {
      f->type = ParseClientType(value);
      if (!f->type) {
        c.reply.Error(err::UnknownClientType(value));
        return false;
      }
    } else if (EqualsIgnoreCase(opt, "addr")) {
      f->addr = value;
    } else if (EqualsIgnoreCase(opt, "laddr")) {
      f->laddr = value;
    } else if (EqualsIgnoreCase(opt, "user")) {
      const AclUser* u = Acl::Of(c.server).Find(value);
      if (u == nullptr) {
        c.reply.Error(err::NoSuchUser(value));
        return false;
      }
      f->user = u;
    } else if (EqualsIgnoreCase(opt, "maxage")) {
      int64_t age;
      if (!ParseInt64(value, &age)) {
        c.reply.Error(err::kMaxAgeNotInteger);
        return false;
      }
      f->max_age_s = age;
      f->now_ms = c.server.NowMs();
    } else if (EqualsIgnoreCase(opt, "skipme")) {
      if (EqualsIgnoreCase(value, "yes")) {
        f->skip_me = true;
      } else if (EqualsIgnoreCase(value, "no")) {
        f->skip_me = false;
      } else {
        c.reply.Error(err::kSyntax);
        return false;
      }
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  return true;
}

// Ends `target` on behalf of `caller`: the caller itself is closed once its reply is out.
void KillClient(Server& server, Client& caller, Client* target) {
  if (target == &caller) {
    caller.set_flag(kClientCloseAfterReply, true);
  } else {
    server.CloseClient(target, "killed by CLIENT KILL");
  }
}

// CLIENT KILL ip:port (old form: OK or "No such client") or CLIENT KILL <filter> <value> ...
// (new form: the number of connections killed, possibly 0).
void ClientKillCommand(CommandContext& c) {
  if (c.args.size() == 3) {
    for (const auto& [id, cl] : c.server.clients()) {
      if (cl->addr != c.args[2]) continue;
      KillClient(c.server, c.client, cl);
      c.reply.Ok();
      return;
    }
    c.reply.Error(err::kNoSuchClient);
    return;
  }
  KillFilter filter;
  if (!ParseKillFilter(c, &filter)) return;
  // Select first: closing a connection removes it from the map being walked.
  std::vector<Client*> doomed;
  for (const auto& [id, cl] : c.server.clients()) {
    if (filter.Matches(*cl, c.client)) doomed.push_back(cl);
  }
  for (Client* cl : doomed) KillClient(c.server, c.client, cl);
  c.reply.Int(static_cast<int64_t>(doomed.size()));
}

// CLIENT PAUSE timeout-ms [WRITE|ALL]. The mode is checked before the timeout, as in Redis.
// A pause never shortens one already running (Server::PauseClients keeps the later end).
void ClientPauseCommand(CommandContext& c) {
  if (c.args.size() > 4) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "CLIENT"));
    return;
  }
  bool writes_only = false;
  if (c.args.size() == 4) {
    if (EqualsIgnoreCase(c.args[3], "write")) {
      writes_only = true;
    } else if (!EqualsIgnoreCase(c.args[3], "all")) {
      c.reply.Error(err::kPauseMode);
      return;
    }
  }
  int64_t timeout_ms;
  if (!ParseInt64(c.args[2], &timeout_ms)) {
    c.reply.Error(err::kTimeoutNotInteger);
    return;
  }
  if (timeout_ms < 0) {
    c.reply.Error(err::kTimeoutNegative);
    return;
  }
  int64_t now = c.server.NowMs();
  // A zero timeout ends at once: nothing to pause. So does one whose end time overflows:
  // Redis 7.0 accepts it and its end wraps into the past.
  if (timeout_ms > 0 && timeout_ms <= INT64_MAX - now) {
    c.server.PauseClients(now + timeout_ms, writes_only);
  }
  c.reply.Ok();
}

void ClientUnpauseCommand(CommandContext& c) {
  c.server.UnpauseClients();
  c.reply.Ok();
}

// CLIENT UNBLOCK id [TIMEOUT|ERROR]: ends the block of a connection waiting in a blocking
// command (BSETTP today) as if it timed out, or with the UNBLOCKED error. Replies 1 if it was
// blocked, else 0 (unknown ids included). The reason is checked before the id, as in Redis.
void ClientUnblockCommand(CommandContext& c) {
  if (c.args.size() > 4) {
    c.reply.Error(err::SubcommandSyntax(c.args[1], "CLIENT"));
    return;
  }
  bool with_error = false;
  if (c.args.size() == 4) {
    if (EqualsIgnoreCase(c.args[3], "error")) {
      with_error = true;
    } else if (!EqualsIgnoreCase(c.args[3], "timeout")) {
      c.reply.Error(err::kUnblockReason);
      return;
    }
  }
  int64_t id;
  if (!ParseInt64(c.args[2], &id)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  Client* target = id > 0 ? c.server.FindClient(static_cast<uint64_t>(id)) : nullptr;
  bool unblocked =
      target != nullptr && !target->closed && c.server.UnblockClient(target, with_error);
  c.reply.Int(unblocked ? 1 : 0);
}

// CLIENT REPLY ON|OFF|SKIP. OFF and SKIP are silent themselves; the dispatcher turns the skip
// flag into "suppress the next command's reply". ON re-enables the builder before answering,
// because the dispatcher disabled it for this very command when replies were off.
void ClientReplyCommand(CommandContext& c) {
  Client& cl = c.client;
  std::string_view mode = c.args[2];
  if (EqualsIgnoreCase(mode, "on")) {
    cl.set_flag(kClientReplyOff | kClientReplySkip | kClientReplySkipNext, false);
    c.reply.SetEnabled(true);
    c.reply.Ok();
  } else if (EqualsIgnoreCase(mode, "off")) {
    cl.set_flag(kClientReplyOff, true);
    c.reply.SetEnabled(false);
  } else if (EqualsIgnoreCase(mode, "skip")) {
    if (!cl.has_flag(kClientReplyOff)) cl.set_flag(kClientReplySkipNext, true);
    c.reply.SetEnabled(false);
  } else {
    c.reply.Error(err::kSyntax);
  }
}

// CLIENT LEASE ms: a liveness lease (the spec's ZooKeeper-style session timeout). If the server
// receives no bytes from this connection for `ms`, it closes it, releasing its temporary keys.
// Unlike `timeout` it also applies to blocked connections. 0 removes the lease.
void ClientLeaseCommand(CommandContext& c) {
  int64_t ms;
  if (!ParseInt64(c.args[2], &ms) || ms < 0) {
    c.reply.Error(err::kLeaseNotInteger);
    return;
  }
  c.server.SetLease(&c.client, ms);
  c.reply.Ok();
}

void ClientNoEvictCommand(CommandContext& c) {
  std::string_view mode = c.args[2];
  if (EqualsIgnoreCase(mode, "on")) {
    c.client.set_flag(kClientNoEvict, true);
  } else if (EqualsIgnoreCase(mode, "off")) {
    c.client.set_flag(kClientNoEvict, false);
  } else {
    c.reply.Error(err::kSyntax);
    return;
  }
  c.reply.Ok();
}

void ClientHelpCommand(CommandContext& c) {
  ReplyHelp(
      c.reply, "CLIENT",
      {
          "ID",
          "    The unique id of this connection.",
          "INFO",
          "    One CLIENT LIST line describing this connection.",
          "LIST [TYPE (NORMAL|MASTER|REPLICA|PUBSUB)] | [ID <id> [<id> ...]]",
          "    One line per connection, optionally only those of a type or with given ids.",
          "SETNAME <name>",
          "    Names this connection (printable characters, no spaces); empty clears it.",
          "GETNAME",
          "    The name of this connection, or null.",
          "KILL <ip:port>",
          "    Closes the connection from <ip:port>.",
          "KILL <filter> <value> [<filter> <value> ...]",
          "    Closes every connection matching all filters and returns how many. Filters:",
          "    * ID <id>",
          "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
          "    * ADDR <ip:port>        the peer address",
          "    * LADDR <ip:port>       the local address the connection came in on",
          "    * USER <username>",
          "    * SKIPME (YES|NO)       whether this connection is spared (default YES)",
          "    * MAXAGE <seconds>      only connections at least this old",
          "PAUSE <timeout-ms> [WRITE|ALL]",
          "    Holds back the commands of other connections (all, or only writes) for a while.",
          "UNPAUSE",
          "    Ends a pause now.",
          "UNBLOCK <id> [TIMEOUT|ERROR]",
          "    Wakes a connection blocked in a command.",
          "REPLY (ON|OFF|SKIP)",
          "    Turns replies to this connection on, off, or off for the next command only.",
          "NO-EVICT (ON|OFF)",
          "    Exempts this connection from client eviction.",
          "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]] [OPTIN] [OPTOUT]",
          "         [NOLOOP]",
          "    Turns client-side caching invalidations for this connection on or off.",
          "CACHING (YES|NO)",
          "    With OPTIN (YES) or OPTOUT (NO) tracking: whether the next command's keys are",
          "    tracked.",
          "GETREDIR",
          "    The id invalidations are redirected to: 0 for none, -1 when tracking is off.",
          "TRACKINGINFO",
          "    The client-side caching state of this connection (flags, redirect, prefixes).",
          "SETINFO (LIB-NAME|LIB-VER) <value>",
          "    Records the client library's name or version (shown by CLIENT LIST).",
          "NO-TOUCH (ON|OFF)",
          "    Whether this connection's commands (but TOUCH) leave the keys' access times.",
          "CAPA <capability> [...]",
          "    Announces what this client understands (redirect); others are ignored.",
          "MAINT_NOTIFICATIONS (ON|OFF) [MOVING-ENDPOINT-TYPE <type>]",
          "    Whether this connection gets a push before a planned failover or shutdown.",
          "LEASE <milliseconds>",
          "    Closes this connection (deleting its temporary keys) if nothing is received from",
          "    it for that long; 0 removes the lease.",
      });
}

}  // namespace

using docs::Block;
using docs::Integer;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterClientCommands(CommandTable& t) {
  constexpr uint64_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kAdminFlags = kCmdAdmin | kBase;
  constexpr uint64_t kConnAcl = kAclSlow | kAclConnection;
  constexpr uint64_t kAdminAcl = kAclAdmin | kAclSlow | kAclDangerous | kAclConnection;
  // One row per (sub)command reads better than one field per line.
  CommandSpec client{
      .name = "client",
      .arity = -2,
      .acl = kAclSlow,
      .doc = {.summary = "Container for the commands that inspect and manage client connections",
              .since = "2.4.0",
              .group = "connection",
              .complexity = "Depends on subcommand."},
      .subcommands = {
          CommandSpec{.name = "id",
                      .arity = 2,
                      .flags = kBase,
                      .acl = kConnAcl,
                      .doc = {.summary = "Returns the unique ID of this connection",
                              .since = "5.0.0",
                              .group = "connection",
                              .complexity = "O(1)"},
                      .handler = ClientIdCommand},
          CommandSpec{.name = "setname",
                      .arity = 3,
                      .flags = kBase,
                      .acl = kConnAcl,
                      .doc = {.summary = "Gives this connection a name",
                              .since = "2.6.9",
                              .group = "connection",
                              .complexity = "O(1)",
                              .args = {String("connection-name")}},
                      .handler = ClientSetNameCommand},
          CommandSpec{.name = "getname",
                      .arity = 2,
                      .flags = kBase,
                      .acl = kConnAcl,
                      .doc = {.summary = "Returns the name given to this connection, if any",
                              .since = "2.6.9",
                              .group = "connection",
                              .complexity = "O(1)"},
                      .handler = ClientGetNameCommand},
          CommandSpec{.name = "info",
                      .arity = 2,
                      .flags = kBase,
                      .acl = kConnAcl,
                      .doc = {.summary = "Describes this connection in the CLIENT LIST format",
                              .since = "6.2.0",
                              .group = "connection",
                              .complexity = "O(1)",
                              .tips = {"nondeterministic_output"}},
                      .handler = ClientInfoCommand},
          CommandSpec{
              .name = "list",
              .arity = -2,
              .flags = kAdminFlags,
              .acl = kAdminAcl,
              .doc = {.summary = "Lists the open client connections with their attributes",
                      .since = "2.4.0",
                      .group = "connection",
                      .complexity = "O(N) where N is the number of client connections",
                      .history = {{"2.8.12", "Each line gained the client `id`."},
                                  {"5.0.0", "New `TYPE` option to list one kind of client."},
                                  {"6.0.0", "Each line gained the `user`."},
                                  {"6.2.0",
                                   "Lines gained `argv-mem`, `tot-mem`, `laddr` and `redir`; new "
                                   "`ID` option to "
                                   "pick clients."},
                                  {"7.0.0", "Lines gained `resp`, `multi-mem`, `rbs` and `rbp`."},
                                  {"7.0.3", "Lines gained `ssub`."}},
                      .tips = {"nondeterministic_output"},
                      .args = {OneOf("normal_master_replica_pubsub",
                                     {PureToken("NORMAL"), PureToken("MASTER"),
                                      PureToken("REPLICA"), PureToken("PUBSUB")})
                                   .Token("TYPE")
                                   .Since("5.0.0")
                                   .Optional(),
                               Block("id", {Integer("client-id").Multiple()})
                                   .Token("ID")
                                   .Since("6.2.0")
                                   .Optional()}},
              .handler = ClientListCommand},
          CommandSpec{
              .name = "kill",
              .arity = -3,
              .flags = kAdminFlags,
              .acl = kAdminAcl,
              .doc =
                  {.summary = "Closes the client connections that match a filter",
                   .since = "2.4.0",
                   .group = "connection",
                   .complexity = "O(N) where N is the number of client connections",
                   .history =
                       {{"2.8.12", "Filters may be given as `<field> <value>` pairs."},
                        {"2.8.12", "New `ID` filter."},
                        {"3.2.0", "The `TYPE` filter accepts `master`."},
                        {"5.0.0",
                         "The `TYPE` filter accepts `replica`; `slave` remains as an alias."},
                        {"6.2.0", "New `LADDR` filter."}},
                   .args = {OneOf(
                       "filter",
                       {String("ip:port").DeprecatedSince("2.8.12"),
                        OneOf("new-format",
                              {Integer("client-id").Token("ID").Since("2.8.12").Optional(),
                               OneOf("normal_master_slave_pubsub",
                                     {PureToken("NORMAL"), PureToken("MASTER").Since("3.2.0"),
                                      PureToken("SLAVE"), PureToken("REPLICA").Since("5.0.0"),
                                      PureToken("PUBSUB")})
                                   .Token("TYPE")
                                   .Since("2.8.12")
                                   .Optional(),
                               String("username").Token("USER").Optional(),
                               String("ip:port").Token("ADDR").Optional(),
                               String("ip:port").Token("LADDR").Since("6.2.0").Optional(),
                               String("yes/no").Token("SKIPME").Optional()})
                            .Multiple()})}},
              .handler = ClientKillCommand},
          CommandSpec{
              .name = "pause",
              .arity = -3,
              .flags = kAdminFlags,
              .acl = kAdminAcl,
              .doc =
                  {.summary = "Holds back command processing for other clients for a while",
                   .since = "2.9.50",
                   .group = "connection",
                   .complexity = "O(1)",
                   .history =
                       {{"6.2.0",
                         "New `mode` argument; `WRITE` holds back only commands that may write."}},
                   .args = {Integer("timeout"),
                            OneOf("mode", {PureToken("WRITE"), PureToken("ALL")})
                                .Since("6.2.0")
                                .Optional()}},
              .handler = ClientPauseCommand},
          CommandSpec{.name = "unpause",
                      .arity = 2,
                      .flags = kAdminFlags,
                      .acl = kAdminAcl,
                      .doc = {.summary = "Lifts a pause started with CLIENT PAUSE",
                              .since = "6.2.0",
                              .group = "connection",
                              .complexity = "O(N) Where N is the number of paused clients"},
                      .handler = ClientUnpauseCommand},
          CommandSpec{
              .name = "unblock",
              .arity = -3,
              .flags = kAdminFlags,
              .acl = kAdminAcl,
              .doc = {.summary = "Wakes a client that is waiting in a blocking command",
                      .since = "5.0.0",
                      .group = "connection",
                      .complexity = "O(log N) where N is the number of client connections",
                      .args = {Integer("client-id"),
                               OneOf("timeout_error", {PureToken("TIMEOUT"), PureToken("ERROR")})
                                   .Optional()}},
              .handler = ClientUnblockCommand},
          CommandSpec{
              .name = "reply",
              .arity = 3,
              .flags = kBase,
              .acl = kConnAcl,
              .doc = {.summary =
                          "Turns the replies to this connection on or off, or skips the next one",
                      .since = "3.2.0",
                      .group = "connection",
                      .complexity = "O(1)",
                      .args = {OneOf("on_off_skip",
                                     {PureToken("ON"), PureToken("OFF"), PureToken("SKIP")})}},
              .handler = ClientReplyCommand},
          CommandSpec{
              .name = "no-evict",
              .arity = 3,
              .flags = kAdminFlags,
              .acl = kAdminAcl,
              .doc = {.summary =
                          "Exempts this connection from client eviction, or ends the exemption",
                      .since = "7.0.0",
                      .group = "connection",
                      .complexity = "O(1)",
                      .args = {OneOf("enabled", {PureToken("ON"), PureToken("OFF")})}},
              .handler = ClientNoEvictCommand},
          CommandSpec{
              .name = "lease",
              .arity = 3,
              .flags = kBase,
              .acl = kConnAcl,
              .doc = {.summary =
                          "redis-tp: closes this connection if it stays silent for the given time",
                      .since = "7.0.15",
                      .group = "connection",
                      .complexity = "O(1)",
                      .args = {Integer("milliseconds")}},
              .handler = ClientLeaseCommand},
          CommandSpec{
              .name = "help",
              .arity = 2,
              .flags = kCmdLoading | kCmdStale,
              .acl = kConnAcl,
              .doc = {.summary = "Lists the CLIENT subcommands with a short description of each",
                      .since = "5.0.0",
                      .group = "connection",
                      .complexity = "O(1)"},
              .handler = ClientHelpCommand},
      }};
  for (CommandSpec& row : ClientTrackingSubcommands()) client.subcommands.push_back(std::move(row));
  for (CommandSpec& row : ClientNewerSubcommands()) client.subcommands.push_back(std::move(row));
  t.Register(std::move(client));
}

}  // namespace redistp
