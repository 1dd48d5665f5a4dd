// SESSION: temporary-key ownership that outlives a connection (docs/temporary-keys-and-watches.md,
// "Sessions"). The handlers parse and reply; what a session does to connections and keys is the
// server's (server/session_runtime.cc), and the registry is watch/sessions.h.
//
//   SESSION OPEN grace-ms    -> token "<id>:<32 hex>"; the connection's keys become the session's
//   SESSION RESUME token     -> +OK; the session attaches here (closing the connection it left)
//   SESSION CLOSE            -> keys released; the session ends now
//   SESSION INFO             -> this connection's session line, or null
//   SESSION LIST             -> one line per session, by id
//   SESSION HELP
//
// The secret leaves the server once, in OPEN's reply (never logged: replies are not), and comes
// back in RESUME's argument, which SLOWLOG and MONITOR show as "(redacted)" (RedactSessionArgs).
// Only its SHA-256 digest is kept, in the registry and in the SESSION CREATE record.
//
// SESSION CREATE/OWN/DROP, and KEY for replicas only, are records of the propagation stream
// (session_runtime.cc says what each means), kept in the container's internal rows: only the
// AOF's loader and the master link find them.
#include "acl/acl.h"
#include "commands/help_reply.h"
#include "protocol/errors.h"
#include "server/client.h"
#include "server/server.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Sessions are the master's while this server follows one: OPEN and RESUME answer READONLY
// there (docs/replication.md), whatever replica-read-only says.
bool RefusedOnReplica(CommandContext& c) {
  if (!c.server.follows_master() || c.client.kind() == ClientKind::kMasterLink) return false;
  c.reply.Error(err::kSessionOnReplica);
  return true;
}

void SessionOpenCommand(CommandContext& c) {
  if (RefusedOnReplica(c)) return;
  int64_t grace;
  if (!ParseInt64(c.args[2], &grace) || grace < 0 || grace > SessionRegistry::kMaxGraceMs) {
    c.reply.Error(err::kSessionGrace);
    return;
  }
  if (c.client.session_state.session_id != 0) {
    c.reply.Error(err::kSessionExists);
    return;
  }
  std::string token;
  Status st = c.server.OpenSession(c.client, grace, &token);
  if (!st.ok()) {
    c.reply.Error(st.message());
    return;
  }
  // The session belongs to the user that opened it: only that user may resume it.
  Acl& acl = Acl::Of(c.server);
  acl.NoteSessionUser(c.client.session_state.session_id, acl.UserOf(c.client).name());
  c.reply.Bulk(token);
}

void SessionResumeCommand(CommandContext& c) {
  // Never recorded as itself, whatever its side effects: its argument is the secret. The
  // closed connection's changes, if any, are recorded on their own (DEL).
  c.ReplicateNothing();
  if (RefusedOnReplica(c)) return;
  // Another user's token is refused as an unknown one: it tells nothing about the session.
  if (const Session* s = c.server.sessions().Check(c.args[2]);
      s != nullptr && !Acl::Of(c.server).SessionUserIs(s->id, c.client)) {
    c.reply.Error(err::kSessionInvalidToken);
    return;
  }
  Status st = c.server.ResumeSession(c.client, c.args[2]);
  if (!st.ok()) {
    c.reply.Error(st.message());
    return;
  }
  c.reply.Simple("OK");
}

void SessionCloseCommand(CommandContext& c) {
  if (c.client.session_state.session_id == 0) {
    c.reply.Error(err::kSessionNone);
    return;
  }
  c.reply.Int(static_cast<int64_t>(c.server.CloseSession(c.client)));
}

void SessionInfoCommand(CommandContext& c) {
  const Session* s = c.server.sessions().Find(c.client.session_state.session_id);
  if (s == nullptr) {
    c.reply.Null();
    return;
  }
  c.reply.Bulk(
      SessionRegistry::InfoLine(*s, c.server.owners().CountOwnedBy(s->id), c.server.NowMs()));
}

void SessionListCommand(CommandContext& c) {
  std::string out;
  const int64_t now = c.server.NowMs();
  for (const auto& [id, s] : c.server.sessions().all()) {
    out += SessionRegistry::InfoLine(s, c.server.owners().CountOwnedBy(id), now);
  }
  c.reply.Bulk(out);
}

void SessionHelpCommand(CommandContext& c) {
  ReplyHelp(c.reply, "SESSION",
            {
                "OPEN <grace-ms>",
                "    Starts a session on this connection and returns its token. The session owns",
                "    this connection's temporary keys and keeps them for <grace-ms> after the",
                "    connection ends.",
                "RESUME <token>",
                "    Attaches the session of <token> to this connection (closing the connection",
                "    that had it).",
                "CLOSE",
                "    Ends this connection's session now and releases its keys.",
                "INFO",
                "    The session of this connection, or null.",
                "LIST",
                "    One line per session.",
            });
}

// --- the propagation records (accepted from the AOF's loader and the master link) ---

bool ParseId(std::string_view s, uint64_t* id) { return ParseUint64(s, id) && *id != 0; }

// The master link applies its master's records: the ids are the master's (session_runtime.cc).
bool FromMaster(const CommandContext& c) { return c.client.kind() == ClientKind::kMasterLink; }

void SessionCreateRecord(CommandContext& c) {
  uint64_t id;
  int64_t grace;
  if (!ParseId(c.args[2], &id) || !ParseInt64(c.args[3], &grace)) {
    c.reply.Error(err::kSessionBadRecord);
    return;
  }
  Status st = c.server.ReplaySessionCreate(id, grace, c.args[4], FromMaster(c));
  if (!st.ok()) {
    c.reply.Error(st.message());
    return;
  }
  c.reply.Simple("OK");
}

void SessionOwnRecord(CommandContext& c) {
  uint64_t id;
  int64_t db;
  if (!ParseId(c.args[2], &id) || !ParseInt64(c.args[3], &db) || db < 0 ||
      db >= c.server.db_count()) {
    c.reply.Error(err::kSessionBadRecord);
    return;
  }
  Status st =
      c.server.ReplaySessionOwn(id, c.server.db(static_cast<int>(db)), c.args[4], FromMaster(c));
  if (!st.ok()) {
    c.reply.Error(st.message());
    return;
  }
  c.reply.Simple("OK");
}

void SessionDropRecord(CommandContext& c) {
  uint64_t id;
  if (!ParseId(c.args[2], &id)) {
    c.reply.Error(err::kSessionBadRecord);
    return;
  }
  c.server.ReplaySessionDrop(id, FromMaster(c));
  c.reply.Simple("OK");
}

// SESSION KEY <db> <key> <owner> <fence> <holds>: the replicas' record of who holds a temporary
// key (server/session_runtime.cc). fence 0 is "no token"; holds >= 1.
void SessionKeyRecord(CommandContext& c) {
  int64_t db;
  uint64_t owner, fence, holds;
  if (!ParseInt64(c.args[2], &db) || db < 0 || db >= c.server.db_count() ||
      !ParseId(c.args[4], &owner) || !ParseUint64(c.args[5], &fence) ||
      !ParseId(c.args[6], &holds)) {
    c.reply.Error(err::kSessionBadRecord);
    return;
  }
  c.server.ApplyKeyOwnership(c.server.db(static_cast<int>(db)), c.args[3], owner, fence, holds,
                             FromMaster(c));
  c.reply.Simple("OK");
}

// SLOWLOG and MONITOR never show a session's secret: every argument after RESUME (the token,
// or whatever was sent in its place) is hidden, as AUTH's password is.
void RedactSessionArgs(std::vector<std::string_view>& shown) {
  if (shown.size() < 3 || !EqualsIgnoreCase(shown[1], "resume")) return;
  for (size_t i = 2; i < shown.size(); ++i) shown[i] = kRedactedArg;
}

}  // namespace

using docs::Integer;
using docs::String;

void RegisterSessionCommands(CommandTable& t) {
  constexpr uint64_t kBase = kCmdNoScript | kCmdLoading | kCmdStale;
  constexpr uint64_t kAcl = kAclSlow | kAclConnection;
  // The texts are literals: a CommandDoc holds views of them.
  auto doc = [](std::string_view summary, std::string_view complexity) {
    return CommandDoc{
        .summary = summary, .since = "7.0.15", .group = "connection", .complexity = complexity};
  };
  CommandDoc open_doc =
      doc("redis-tp: starts a session that owns this connection's temporary keys "
          "and keeps them for a grace after the connection ends",
          "O(N) where N is the number of temporary keys this connection owns");
  open_doc.args = {Integer("grace-ms")};
  CommandDoc resume_doc =
      doc("redis-tp: attaches a session to this connection by its token", "O(1)");
  resume_doc.args = {String("token")};
  CommandSpec session{
      .name = "session",
      .arity = -2,
      .acl = kAclSlow,
      .doc = doc("redis-tp: container for the commands that manage sessions",
                 "Depends on subcommand."),
      .redact = RedactSessionArgs,
      .subcommands =
          {
              CommandSpec{.name = "open",
                          .arity = 3,
                          .flags = kCmdNoScript | kCmdMayReplicate,
                          .acl = kAcl | kAclWrite,
                          .doc = open_doc,
                          .handler = SessionOpenCommand},
              CommandSpec{.name = "resume",
                          .arity = 3,
                          .flags = kCmdNoScript | kCmdMayReplicate,
                          .acl = kAcl | kAclWrite,
                          .doc = resume_doc,
                          .redact = RedactSessionArgs,
                          .handler = SessionResumeCommand},
              CommandSpec{.name = "close",
                          .arity = 2,
                          .flags = kCmdNoScript | kCmdWrite,
                          .acl = kAcl | kAclWrite,
                          .doc = doc("redis-tp: ends this connection's session now and releases "
                                     "its keys",
                                     "O(N) where N is the number of keys the session owns"),
                          .handler = SessionCloseCommand},
              CommandSpec{.name = "info",
                          .arity = 2,
                          .flags = kBase,
                          .acl = kAcl,
                          .doc = doc("redis-tp: describes this connection's session", "O(1)"),
                          .handler = SessionInfoCommand},
              CommandSpec{.name = "list",
                          .arity = 2,
                          .flags = kBase | kCmdAdmin,
                          .acl = kAclAdmin | kAclSlow | kAclDangerous | kAclConnection,
                          .doc = doc("redis-tp: lists every session",
                                     "O(N) where N is the number of sessions"),
                          .handler = SessionListCommand},
              CommandSpec{.name = "help",
                          .arity = 2,
                          .flags = kCmdLoading | kCmdStale,
                          .acl = kAcl,
                          .doc = doc("Lists the SESSION subcommands with a short description of "
                                     "each",
                                     "O(1)"),
                          .handler = SessionHelpCommand},
          },
      .internal_subcommands = {
          CommandSpec{.name = "create",
                      .arity = 5,
                      .flags = kCmdWrite | kCmdNoScript | kCmdLoading,
                      .acl = kAclAdmin | kAclSlow,
                      .handler = SessionCreateRecord},
          CommandSpec{.name = "own",
                      .arity = 5,
                      .flags = kCmdWrite | kCmdNoScript | kCmdLoading,
                      .acl = kAclAdmin | kAclSlow,
                      .handler = SessionOwnRecord},
          CommandSpec{.name = "drop",
                      .arity = 3,
                      .flags = kCmdWrite | kCmdNoScript | kCmdLoading,
                      .acl = kAclAdmin | kAclSlow,
                      .handler = SessionDropRecord},
          CommandSpec{.name = "key",
                      .arity = 7,
                      .flags = kCmdWrite | kCmdNoScript | kCmdLoading,
                      .acl = kAclAdmin | kAclSlow,
                      .handler = SessionKeyRecord},
      }};
  t.Register(std::move(session));
}

}  // namespace redistp
