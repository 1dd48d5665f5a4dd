// MIGRATE host port key|"" destination-db timeout [COPY] [REPLACE] [AUTH password |
// AUTH2 username password] [KEYS key ...]: moves keys to another server (Redis or ours) as
// DUMP payloads sent in RESTORE commands, then deletes them here unless COPY.
//
// Model. MIGRATE is synchronous, as in Redis: the server does nothing else while it connects,
// writes and reads, each step bounded by `timeout` ms (0 or less means 1000). Connections are
// cached per "host:port" (at most 64; a full cache drops one at random) with the database the
// target last SELECTed, so a stream of MIGRATEs to one target pays one connect and SELECTs only
// when the database changes; the cron closes a connection unused for 10 seconds. A cached
// connection the target closed is only found out by the next write or read: on such an error
// (not a timeout) before any key was acknowledged, MIGRATE retries once on a new connection.
//
// The replies are read one byte at a time, as Redis does, so a reply not read (after a SELECT
// or AUTH error) never masks the next one; after such an error the connection is dropped, so
// the stream of replies can never be out of step. Each key whose RESTORE the target accepted
// is deleted here (unless COPY) and the deletions are propagated as one DEL; the first error
// the target answered becomes the reply ("Target instance replied with error: ..."), keys
// after it still being processed. The error texts and their order are Redis 7.0.15's.
//
// Temporary keys (docs/cluster.md, "Slot migration of temporary keys"). DUMP's payload carries
// no owner, so a temporary key (not with COPY) travels in two steps: its RESTORE as any key's,
// then, once the target accepted that RESTORE, TPADOPT key fence floor holds [SESSION id
// grace-ms digest] on the same connection (commands/tpadopt.cc), all such keys' TPADOPTs
// pipelined in a second round trip. It is sent only after the RESTORE's reply, so a RESTORE the
// target refused (BUSYKEY) never turns the target's own key into a temporary one. `floor` is
// this server's fencing counter, so the target's later tokens are above every token handed out
// here. A temporary key is deleted here only when its TPADOPT answered OK, or "unknown command"
// (a Redis target: the key is a plain key there, as documented); any other answer is the reply's
// target error and the key stays here, still held. Before such a key is deleted, its BSETTP
// waiters get the ASK redirection of the migrating slot (a hand-off would re-create the key in
// a slot being moved away); in standalone mode, or a slot not MIGRATING, they are served as
// after a DEL.
//
// TLS. With tls-cluster yes the connection to the target is TLS, as Redis 7.0 makes it: the
// server's client context (tls-client-cert-file, else tls-cert-file, and the CA) and a
// handshake bounded by the same timeout as the connect; the writes and reads below then go
// through the TLS session, each wait on the direction OpenSSL asks for. A handshake that fails
// is a connect error.
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "commands/dump_util.h"
#include "commands/register.h"
#include "commands/server_info.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/dump_payload.h"
#include "util/numbers.h"
#include "util/tls.h"
#include "watch/sessions.h"

namespace redistp {
namespace {

// poll(2)'s timeout for a wait of `ms` (> 0) milliseconds. MIGRATE's timeout is a 64-bit integer:
// cut to an int it could become 0 (4294967296: every wait fails at once) or negative (2^31:
// poll waits forever); past INT_MAX ms (24.8 days) it is capped instead.
int PollMs(int64_t ms) { return static_cast<int>(std::clamp<int64_t>(ms, 0, INT_MAX)); }

constexpr int64_t kCachedSocketTtlMs = 10 * 1000;
constexpr size_t kMaxCachedSockets = 64;
constexpr size_t kWriteChunk = 64 * 1024;
constexpr size_t kMaxReplyLine = 1024;

struct CachedSocket {
  int fd = -1;
  TlsConnPtr tls;      // set when the connection is TLS (tls-cluster yes)
  int last_dbid = -1;  // the database the target has SELECTed on this connection (-1: unknown)
  int64_t last_use_ms = 0;
};

// The connection cache: one per server, a subsystem it owns (server/subsystem.h) whose cron
// hook closes the idle connections.
class MigrateSockets : public Subsystem {
 public:
  static constexpr SubsystemSlot kSlot = SubsystemSlot::kMigrate;

  explicit MigrateSockets(Server& server) : server_(server) {}
  ~MigrateSockets() override {
    for (auto& [name, s] : sockets_) Drop(s);
  }

  // The server's cache, created and attached on first use.
  static MigrateSockets& Of(Server& server) {
    MigrateSockets* m = server.subsystem<MigrateSockets>();
    if (m == nullptr) m = &server.AttachSubsystem(std::make_unique<MigrateSockets>(server));
    return *m;
  }

  void Cron() override { CloseIdle(server_.NowMs()); }
  size_t size() const { return sockets_.size(); }

  // The cached connection to `name`, or a new one (nullptr when connecting failed or timed
  // out).
  CachedSocket* Get(const std::string& name, std::string_view host, std::string_view port,
                    int64_t timeout_ms, int64_t now_ms) {
    auto it = sockets_.find(name);
    if (it != sockets_.end()) {
      it->second.last_use_ms = now_ms;
      return &it->second;
    }
    if (sockets_.size() >= kMaxCachedSockets) {
      auto victim = sockets_.begin();
      std::advance(victim, static_cast<long>(rng_() % sockets_.size()));
      Drop(victim->second);
      sockets_.erase(victim);
    }
    int fd = Connect(host, port, timeout_ms);
    if (fd < 0) return nullptr;
    TlsConnPtr tls;
    if (server_.config().tls_cluster) {
      tls = TlsHandshake(server_.tls_context(), fd, timeout_ms);
      if (tls == nullptr) {
        close(fd);
        return nullptr;
      }
    }
    CachedSocket& s = sockets_[name];
    s.fd = fd;
    s.tls = std::move(tls);
    s.last_use_ms = now_ms;
    return &s;
  }

  void Close(const std::string& name) {
    auto it = sockets_.find(name);
    if (it == sockets_.end()) return;
    Drop(it->second);
    sockets_.erase(it);
  }

  void CloseIdle(int64_t now_ms) {
    for (auto it = sockets_.begin(); it != sockets_.end();) {
      if (now_ms - it->second.last_use_ms > kCachedSocketTtlMs) {
        Drop(it->second);
        it = sockets_.erase(it);
      } else {
        ++it;
      }
    }
  }

 private:
  static void Drop(CachedSocket& s) {
    if (s.tls != nullptr) s.tls->Shutdown();
    s.tls.reset();
    close(s.fd);
  }

  // The client side of a TLS handshake over the connected fd, within `timeout_ms` in all;
  // nullptr when TLS is not configured, the handshake fails or time runs out.
  static TlsConnPtr TlsHandshake(const TlsContext& ctx, int fd, int64_t timeout_ms);

  // A non-blocking TCP connection, established within `timeout_ms`. The port is Redis's atoi
  // of the argument (text that is not a number connects to port 0 and fails later). Like
  // Redis, a connection that becomes writable counts as made even if it was refused: the
  // error surfaces at the first write.
  static int Connect(std::string_view host, std::string_view port, int64_t timeout_ms) {
    const int port_num = atoi(std::string(port).c_str());
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* res = nullptr;
    if (getaddrinfo(std::string(host).c_str(), std::to_string(port_num).c_str(), &hints, &res) !=
        0) {
      return -1;
    }
    int fd = -1;
    for (addrinfo* p = res; p != nullptr; p = p->ai_next) {
      fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, p->ai_protocol);
      if (fd < 0) continue;
      if (connect(fd, p->ai_addr, p->ai_addrlen) == 0 || errno == EINPROGRESS) break;
      close(fd);
      fd = -1;
    }
    freeaddrinfo(res);
    if (fd < 0) return -1;
    pollfd pfd{fd, POLLOUT, 0};
    if (poll(&pfd, 1, PollMs(timeout_ms)) <= 0) {
      close(fd);
      return -1;
    }
    return fd;
  }

  std::unordered_map<std::string, CachedSocket> sockets_;
  Server& server_;
  std::minstd_rand rng_{12345};
};

// Waits up to `timeout_ms` for `events` on fd: true when ready; false on an error or the
// timeout (errno ETIMEDOUT). An interrupted wait starts again.
bool WaitReady(int fd, short events, int64_t timeout_ms) {
  for (;;) {
    pollfd pfd{fd, events, 0};
    int r = poll(&pfd, 1, PollMs(timeout_ms));
    if (r > 0) return true;
    if (r == 0) {
      errno = ETIMEDOUT;
      return false;
    }
    if (errno != EINTR) return false;
  }
}

TlsConnPtr MigrateSockets::TlsHandshake(const TlsContext& ctx, int fd, int64_t timeout_ms) {
  if (!ctx.ready()) return nullptr;
  TlsConnPtr t(TlsConn::Connect(ctx.client_ctx(), fd).release());
  if (t == nullptr) return nullptr;
  for (;;) {
    const int r = t->Handshake();
    if (r > 0) return t;
    if (r < 0) return nullptr;
    const short events = t->want() == TlsConn::Want::kWrite ? POLLOUT : POLLIN;
    if (!WaitReady(fd, events, timeout_ms)) return nullptr;
  }
}

// After a TLS call returned -1: waits on the direction OpenSSL asked for (true: try again);
// false on a failure of the session (errno ECONNRESET), an error or the timeout.
bool WaitTls(const CachedSocket& s, int64_t timeout_ms) {
  switch (s.tls->want()) {
    case TlsConn::Want::kRead:
      return WaitReady(s.fd, POLLIN, timeout_ms);
    case TlsConn::Want::kWrite:
      return WaitReady(s.fd, POLLOUT, timeout_ms);
    case TlsConn::Want::kNothing:
      break;
  }
  errno = ECONNRESET;
  return false;
}

// Writes all of `data` within `timeout_ms`; false on an error or the timeout (errno ETIMEDOUT).
bool SyncWrite(const CachedSocket& s, std::string_view data, int64_t timeout_ms) {
  size_t off = 0;
  while (off < data.size()) {
    const size_t chunk = std::min(kWriteChunk, data.size() - off);
    if (s.tls != nullptr) {
      // A write that must wait is repeated with the same bytes, as OpenSSL requires.
      ssize_t n = s.tls->Write(data.data() + off, chunk);
      if (n < 0) {
        if (!WaitTls(s, timeout_ms)) return false;
        continue;
      }
      off += static_cast<size_t>(n);
      continue;
    }
    if (!WaitReady(s.fd, POLLOUT, timeout_ms)) return false;
    ssize_t n = send(s.fd, data.data() + off, chunk, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return false;
    }
    off += static_cast<size_t>(n);
  }
  return true;
}

// Reads one reply line (without its CRLF; longer lines are cut at 1 KB) within `timeout_ms`.
// False on an error, a closed connection (errno ECONNRESET) or the timeout (ETIMEDOUT).
bool SyncReadLine(const CachedSocket& s, std::string* line, int64_t timeout_ms) {
  line->clear();
  for (;;) {
    char ch;
    ssize_t n;
    if (s.tls != nullptr) {
      // Bytes OpenSSL already decrypted are read without waiting on the socket.
      n = s.tls->Read(&ch, 1);
      if (n < 0) {
        if (!WaitTls(s, timeout_ms)) return false;
        continue;
      }
    } else {
      if (!WaitReady(s.fd, POLLIN, timeout_ms)) return false;
      n = recv(s.fd, &ch, 1, 0);
    }
    if (n == 0) {
      errno = ECONNRESET;
      return false;
    }
    if (n < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      return false;
    }
    if (ch == '\n') {
      if (!line->empty() && line->back() == '\r') line->pop_back();
      return true;
    }
    if (line->size() < kMaxReplyLine) line->push_back(ch);
  }
}

// The command each key travels in: on a cluster node RESTORE-ASKING, which the target serves
// for a slot it is still IMPORTING (a plain RESTORE would be answered MOVED back to us), as
// Redis's MIGRATE sends it; RESTORE elsewhere.
std::string_view RestoreCommandName(Server& server) {
  return server.config().cluster_enabled ? "RESTORE-ASKING" : "RESTORE";
}

void AppendBulkArray(std::string* out, const std::vector<std::string_view>& argv) {
  out->append("*").append(std::to_string(argv.size())).append("\r\n");
  for (std::string_view a : argv) {
    out->append("$").append(std::to_string(a.size())).append("\r\n");
    out->append(a).append("\r\n");
  }
}

// The TPADOPT that makes `e` (a temporary key of ours, restored on the target) temporary there
// with its owner, fencing token and hold count.
void AppendAdopt(Server& server, std::string* out, std::string_view key, const Entry* e) {
  OwnerIndex& owners = server.owners();
  const uint64_t owner = owners.OwnerOf(e);
  const std::string fence = std::to_string(owners.FenceOf(e));
  const std::string floor = std::to_string(owners.last_fence());
  const std::string holds = std::to_string(owners.HoldsOf(e));
  std::vector<std::string_view> argv{"TPADOPT", key, fence, floor, holds};
  std::string id, grace, digest;
  if (const Session* s = server.sessions().Find(owner); s != nullptr) {
    id = std::to_string(owner);
    grace = std::to_string(s->grace_ms);
    digest = SessionRegistry::DigestHex(s->digest);
    argv.insert(argv.end(), {"SESSION", id, grace, digest});
  }
  AppendBulkArray(out, argv);
}

// Deletes a key the target took (MIGRATE without COPY). A temporary key's BSETTP waiters are
// redirected first when its slot is MIGRATING (see the essay).
void DeleteMigrated(CommandContext& c, Entry* e) {
  ClusterRouter* router = c.server.cluster_router();
  if (router != nullptr && c.server.owners().OwnerOf(e) != 0) {
    const std::string ask = router->AskFor(e->key());
    if (!ask.empty()) {
      std::vector<uint64_t> waiters;
      BlockKind* bsettp = c.server.bsettp_kind();
      const int db = c.db.index();
      c.server.blocking().ForEachWaiter([&](const BlockedClient& w) {
        if (w.kind != bsettp) return;
        for (const BlockedClient::Slot& slot : w.slots) {
          if (slot.db == db && slot.key == e->key()) waiters.push_back(w.client);
        }
      });
      for (uint64_t id : waiters) {
        if (Client* w = c.server.FindClient(id); w != nullptr) {
          c.server.RedirectBlockedClient(w, ask);
        }
      }
    }
  }
  c.db.Remove(e, RemoveCause::kDeleted);
}

// The second round trip (see the essay): one TPADOPT per key of `restored` (temporary keys the
// target restored), pipelined. Deletes each key the target adopted (or a Redis target does not
// know TPADOPT) and lists it in `deleted`; the first other error goes to `target_error` if empty.
// False on a write or read error (errno set), the keys not yet answered staying here.
bool SendOwnership(CommandContext& c, CachedSocket& cs, int64_t timeout_ms,
                   const std::vector<std::string_view>& restored, std::vector<std::string>* deleted,
                   std::string* target_error) {
  std::string out;
  std::vector<std::string_view> sent;
  for (std::string_view k : restored) {
    const Entry* e = c.db.Peek(k);
    if (e == nullptr) continue;
    AppendAdopt(c.server, &out, k, e);
    sent.push_back(k);
  }
  if (sent.empty()) return true;
  if (!SyncWrite(cs, out, timeout_ms)) return false;
  std::string line;
  for (std::string_view k : sent) {
    if (!SyncReadLine(cs, &line, timeout_ms)) return false;
    const bool unknown = line.starts_with("-ERR unknown command");
    if (!line.empty() && line[0] == '-' && !unknown) {
      if (target_error->empty()) *target_error = line.substr(1);
      continue;
    }
    if (Entry* e = c.db.Peek(k); e != nullptr) {
      DeleteMigrated(c, e);
      deleted->emplace_back(k);
    }
  }
  return true;
}

struct MigrateArgs {
  bool copy = false;
  bool replace = false;
  std::string_view username;  // AUTH2 only
  std::string_view password;
  bool auth = false;
  size_t first_key = 3;
  size_t num_keys = 1;
  int64_t timeout_ms = 0;
  int64_t dbid = 0;
};

// Parses the options (syntax errors first, then timeout and db as integers), replying the
// first error.
bool ParseMigrateArgs(CommandContext& c, MigrateArgs* a) {
  const size_t argc = c.args.size();
  for (size_t j = 6; j < argc; ++j) {
    const size_t more = argc - j - 1;
    if (EqualsIgnoreCase(c.args[j], "copy")) {
      a->copy = true;
    } else if (EqualsIgnoreCase(c.args[j], "replace")) {
      a->replace = true;
    } else if (EqualsIgnoreCase(c.args[j], "auth")) {
      if (more < 1) {
        c.reply.Error(err::kSyntax);
        return false;
      }
      a->auth = true;
      a->username = {};
      a->password = c.args[++j];
    } else if (EqualsIgnoreCase(c.args[j], "auth2")) {
      if (more < 2) {
        c.reply.Error(err::kSyntax);
        return false;
      }
      a->auth = true;
      a->username = c.args[++j];
      a->password = c.args[++j];
    } else if (EqualsIgnoreCase(c.args[j], "keys")) {
      if (!c.args[3].empty()) {
        c.reply.Error(err::kMigrateKeysNotEmpty);
        return false;
      }
      a->first_key = j + 1;
      a->num_keys = argc - j - 1;
      break;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }
  if (!ParseInt64(c.args[5], &a->timeout_ms) || !ParseInt64(c.args[4], &a->dbid)) {
    c.reply.Error(err::kNotInteger);
    return false;
  }
  if (a->timeout_ms <= 0) a->timeout_ms = 1000;
  return true;
}

void MigrateCommand(CommandContext& c) {
  MigrateArgs a;
  if (!ParseMigrateArgs(c, &a)) return;

  // The keys that exist (lazily expiring the others); none is NOKEY.
  std::vector<std::string_view> keys;
  for (size_t j = 0; j < a.num_keys; ++j) {
    std::string_view k = c.args[a.first_key + j];
    if (c.db.LookupRead(k) != nullptr) keys.push_back(k);
  }
  if (keys.empty()) {
    c.reply.Simple("NOKEY");
    return;
  }

  MigrateSockets& cache = MigrateSockets::Of(c.server);
  const std::string name = std::string(c.args[1]) + ":" + std::string(c.args[2]);
  const std::string dbid_text = std::to_string(a.dbid);
  std::vector<std::string> deleted;  // keys the target took, deleted here
  for (int attempt = 0; attempt < 2; ++attempt) {
    const bool may_retry = attempt == 0;
    CachedSocket* cs = cache.Get(name, c.args[1], c.args[2], a.timeout_ms, c.server.NowMs());
    if (cs == nullptr) {
      c.reply.Error(err::kMigrateConnectError);
      return;
    }
    const bool select = cs->last_dbid != a.dbid;

    // The whole request: AUTH, SELECT, then one RESTORE per key with its remaining TTL.
    std::string out;
    if (a.auth) {
      if (a.username.empty()) {
        AppendBulkArray(&out, {"AUTH", a.password});
      } else {
        AppendBulkArray(&out, {"AUTH", a.username, a.password});
      }
    }
    if (select) AppendBulkArray(&out, {"SELECT", dbid_text});
    std::vector<std::string_view> sent;
    for (std::string_view k : keys) {
      Entry* e = c.db.Peek(k);
      if (e == nullptr) continue;
      int64_t ttl = 0;
      if (e->has_expire())
        ttl = std::max<int64_t>(1, c.db.ExpireOf(e) - c.server.keyspace().now_ms());
      const std::string payload = CreateDumpPayload(e->value, c.server.config().rdbcompression,
                                                    c.server.config().rdb_version);
      WarnFieldTtlsLeftOut(c.server, e->value, k);
      const std::string ttl_text = std::to_string(ttl);
      std::vector<std::string_view> argv{RestoreCommandName(c.server), k, ttl_text, payload};
      if (a.replace) argv.emplace_back("REPLACE");
      AppendBulkArray(&out, argv);
      sent.push_back(k);
    }
    if (!SyncWrite(*cs, out, a.timeout_ms)) {
      const bool timed_out = errno == ETIMEDOUT;
      cache.Close(name);
      if (!timed_out && may_retry) continue;
      c.reply.Error(err::MigrateIoError(/*writing=*/true));
      return;
    }

    // AUTH's and SELECT's replies; an error there is the reply, and the connection is
    // dropped with the RESTOREs' replies unread.
    std::string line;
    bool socket_error = false;
    std::string auth_line;
    std::string select_line;
    if (a.auth && !SyncReadLine(*cs, &auth_line, a.timeout_ms)) socket_error = true;
    if (!socket_error && select && !SyncReadLine(*cs, &select_line, a.timeout_ms)) {
      socket_error = true;
    }
    if (socket_error) {
      const bool timed_out = errno == ETIMEDOUT;
      cache.Close(name);
      if (!timed_out && may_retry) continue;
      c.reply.Error(err::MigrateIoError(/*writing=*/false));
      return;
    }
    const std::string* setup_error = !auth_line.empty() && auth_line[0] == '-'       ? &auth_line
                                     : !select_line.empty() && select_line[0] == '-' ? &select_line
                                                                                     : nullptr;
    if (setup_error != nullptr) {
      cache.Close(name);
      c.reply.Error(err::MigrateTargetError(std::string_view(*setup_error).substr(1)));
      return;
    }

    std::string target_error;
    std::vector<std::string_view> restored;  // temporary keys the target restored
    size_t j = 0;
    for (; j < sent.size(); ++j) {
      if (!SyncReadLine(*cs, &line, a.timeout_ms)) {
        socket_error = true;
        break;
      }
      if (!line.empty() && line[0] == '-') {
        if (target_error.empty()) target_error = line.substr(1);
        cs->last_dbid = -1;
        continue;
      }
      if (a.copy) continue;
      if (Entry* e = c.db.Peek(sent[j]); e != nullptr) {
        if (c.server.owners().OwnerOf(e) != 0) {
          restored.push_back(sent[j]);
          continue;
        }
        c.db.Remove(e, RemoveCause::kDeleted);
        deleted.emplace_back(sent[j]);
      }
    }
    if (!socket_error && !restored.empty() &&
        !SendOwnership(c, *cs, a.timeout_ms, restored, &deleted, &target_error)) {
      socket_error = true;
      j = sent.size();  // keys were acknowledged: never retried
    }
    const bool timed_out = socket_error && errno == ETIMEDOUT;
    if (socket_error && target_error.empty() && j == 0 && may_retry && !timed_out) {
      cache.Close(name);
      continue;
    }
    if (socket_error) cache.Close(name);
    if (!deleted.empty()) {
      std::vector<std::string> argv{"DEL"};
      argv.insert(argv.end(), deleted.begin(), deleted.end());
      c.ReplicateAs(std::move(argv));
    }
    if (!target_error.empty()) {
      c.reply.Error(err::MigrateTargetError(target_error));
    } else if (socket_error) {
      c.reply.Error(err::MigrateIoError(/*writing=*/false));
    } else {
      cs->last_dbid = static_cast<int>(a.dbid);
      c.reply.Ok();
    }
    return;
  }
}

// MIGRATE's keys: argv[3], or with KEYS (searched after the five fixed arguments, stepping over
// AUTH's and AUTH2's values) the arguments after it, as Redis's migrateGetKeys finds them.
std::vector<KeyRef> MigrateKeys(const std::vector<std::string_view>& args) {
  constexpr uint32_t kFlags = kKeyRW | kKeyAccess | kKeyDelete;
  std::vector<KeyRef> keys;
  const int argc = static_cast<int>(args.size());
  if (argc < 4) return keys;
  if (args[3].empty()) {
    for (int i = 6; i < argc; ++i) {
      std::string_view a = args[static_cast<size_t>(i)];
      if (EqualsIgnoreCase(a, "auth")) {
        i += 1;
      } else if (EqualsIgnoreCase(a, "auth2")) {
        i += 2;
      } else if (EqualsIgnoreCase(a, "keys")) {
        for (int k = i + 1; k < argc; ++k) keys.push_back({k, kFlags});
        return keys;
      }
    }
  }
  keys.push_back({3, kFlags});
  return keys;
}

// What SLOWLOG and MONITOR show of a MIGRATE: the target's password (AUTH password, AUTH2
// username password) as "(redacted)". The options end at KEYS; what follows is key names.
void RedactMigrateArgs(std::vector<std::string_view>& shown) {
  for (size_t i = 6; i < shown.size(); ++i) {
    if (EqualsIgnoreCase(shown[i], "keys")) break;
    if (EqualsIgnoreCase(shown[i], "auth") && i + 1 < shown.size()) {
      shown[++i] = kRedactedArg;
    } else if (EqualsIgnoreCase(shown[i], "auth2") && i + 2 < shown.size()) {
      shown[i + 1] = shown[i + 2] = kRedactedArg;
      i += 2;
    }
  }
}

}  // namespace

size_t MigrateCachedSockets(Server& server) {
  // No cache is created for asking: a server that never migrated has none.
  MigrateSockets* m = server.subsystem<MigrateSockets>();
  return m == nullptr ? 0 : m->size();
}

void RegisterMigrateCommands(CommandTable& t) {
  using docs::Block;
  using docs::Integer;
  using docs::Key;
  using docs::OneOf;
  using docs::PureToken;
  using docs::String;
  t.Register(
      {.name = "migrate",
       .arity = -6,
       .flags = kCmdWrite,
       .first_key = 3,
       .last_key = 3,
       .key_step = 1,
       .acl = kAclKeyspace | kAclWrite | kAclSlow | kAclDangerous,
       .doc = {.summary = "Atomically transfer a key from a Redis instance to another one.",
               .since = "2.6.0",
               .group = "generic",
               .complexity = "This command actually executes a DUMP+DEL in the source instance, "
                             "and a RESTORE in the target instance. See the pages of these "
                             "commands for time complexity. Also an O(N) data transfer between "
                             "the two instances is performed.",
               .history = {{"3.0.0", "Added the `COPY` and `REPLACE` options."},
                           {"3.0.6", "Added the `KEYS` option."},
                           {"4.0.7", "Added the `AUTH` option."},
                           {"6.0.0", "Added the `AUTH2` option."}},
               .tips = {"nondeterministic_output"},
               .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 3},
                             {.flags = kKeyRW | kKeyAccess | kKeyDelete | kKeyIncomplete,
                              .begin = KeyBegin::kKeyword,
                              .keyword = "KEYS",
                              .start_from = -2,
                              .find = KeyFind::kRange,
                              .last_key = -1}},
               .find_keys = MigrateKeys,
               .args = {String("host"), Integer("port"),
                        OneOf("key_or_empty_string",
                              {Key("key", 0), PureToken("").Named("empty_string")}),
                        Integer("destination-db"), Integer("timeout"),
                        PureToken("COPY").Since("3.0.0").Optional(),
                        PureToken("REPLACE").Since("3.0.0").Optional(),
                        OneOf("authentication",
                              {String("password").Token("AUTH").Since("4.0.7").Optional(),
                               Block("username_password", {String("username"), String("password")})
                                   .Token("AUTH2")
                                   .Since("6.0.0")
                                   .Optional()})
                            .Optional(),
                        Key("key", 1).Token("KEYS").Since("3.0.6").Optional().Multiple()}},
       .redact = RedactMigrateArgs,
       .handler = MigrateCommand});
}

}  // namespace redistp
