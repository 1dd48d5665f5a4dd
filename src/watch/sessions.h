// SessionRegistry: sessions, the owners of temporary keys that outlive a connection.
//
// The contract (docs/temporary-keys-and-watches.md, "Sessions"): SESSION OPEN on a connection
// starts a session; the temporary keys the connection creates from then on (and those it owned
// before) are owned by the session's id instead of the connection's. When the connection ends,
// the session is detached: its keys stay, silently, for the session's grace. SESSION RESUME with
// the session's token attaches it to another connection within the grace; when the grace ends
// first, the session's keys are released as if their owner had disconnected.
//
// Model. This registry is the data only: each Session records its id (drawn by the server from
// the client-id counter, so an owner id names a connection or a session, never both), the
// SHA-256 digest of its secret (the secret itself is never kept: a token is checked by hashing
// it again), its grace, the client it is attached to (0 while detached) and, while detached, the
// deadline at which it expires. The deadlines are kept ordered so the server can arm one timer
// for the earliest (Server::ArmSessionTimer) and take what is due (TakeExpired) without walking
// every session. Keys are not here: they are the OwnerIndex's (watch/owners.h), by session id.
// What a session does to keys and connections (detach on close, release on expiry, the other
// connection closed on resume) is the server's (server/session_runtime.cc).
//
// Invariants: a session is attached to at most one client, and its client's
// Client::SessionState::session_id names it back; a detached session has exactly one entry in
// the deadline set, an attached one none.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace redistp {

using SessionDigest = std::array<uint8_t, 32>;

struct Session {
  uint64_t id = 0;
  SessionDigest digest{};
  int64_t grace_ms = 0;
  uint64_t client = 0;            // attached connection's id; 0 while detached
  int64_t opened_ms = 0;          // wall clock at OPEN (or at replay)
  int64_t detached_since_ms = 0;  // wall clock at detach; 0 while attached
  int64_t deadline_ms = 0;        // end of the grace while detached; 0: none (attached, replayed)
  uint64_t resumes = 0;
  bool replayed = false;  // created by a propagation record (an AOF's replay), not by OPEN
};

// The session counters INFO coordination reports.
struct SessionCounters {
  uint64_t opened = 0;
  uint64_t resumed = 0;
  uint64_t expired = 0;
  uint64_t released_by_close = 0;   // keys released by SESSION CLOSE
  uint64_t released_by_expiry = 0;  // keys released at the end of a grace
};

class SessionRegistry {
 public:
  // Limits of SESSION OPEN's grace-ms (inclusive).
  static constexpr int64_t kMaxGraceMs = 86400000;

  // A fresh token "<id>:<32 lowercase hex>" for session `id` (16 bytes from getrandom(2)) and
  // the digest to keep for it. False when the kernel gives no randomness (never in practice).
  static bool NewToken(uint64_t id, std::string* token, SessionDigest* digest);
  // Splits a token into its id and secret. False when malformed (no colon, id not a positive
  // decimal, secret not 32 lowercase hex characters).
  static bool ParseToken(std::string_view token, uint64_t* id, std::string_view* secret);
  static SessionDigest DigestOf(std::string_view secret);
  static std::string DigestHex(const SessionDigest& d);
  static bool DigestFromHex(std::string_view hex, SessionDigest* out);

  // Creates session `id` (which must not exist), attached to `client` (0: detached, with no
  // deadline: a replayed session waits for its DROP or for the end of loading).
  Session& Create(uint64_t id, const SessionDigest& digest, int64_t grace_ms, uint64_t client,
                  int64_t now_ms);
  Session* Find(uint64_t id);
  const Session* Find(uint64_t id) const;
  // The session `token` names, if the token is well formed and its secret matches (compared in
  // constant time); nullptr otherwise. A session inherited from a master is registered under
  // the inherited form of its id (watch/owners.h) while its token carries the master's id: both
  // are tried, and only a matching secret selects one.
  Session* Check(std::string_view token);
  // Attaches `s` to `client` (its deadline, if any, is dropped).
  void Attach(Session& s, uint64_t client);
  // Detaches `s`: its grace starts now (`now_ms`), unless `start_grace` is false (a replica:
  // graces do not run there, the session stays detached with no deadline).
  void Detach(Session& s, int64_t now_ms, bool start_grace = true);
  // A replica from now on: every running grace stops (the sessions stay detached, deadline 0).
  void SuspendGraces();
  // A promotion: every detached session without a deadline starts its grace now, as if it had
  // just detached (its detached-since becomes `now_ms`). Returns how many did.
  size_t StartGraces(int64_t now_ms);
  void Erase(uint64_t id);

  // Earliest deadline of a detached session, 0 when none.
  int64_t next_deadline() const { return deadlines_.empty() ? 0 : deadlines_.begin()->first; }
  // Ids of the detached sessions whose grace has ended (now > deadline, as a key expires: the
  // session is still there at the millisecond its grace ends), earliest first; they
  // stay registered until the caller erases them.
  std::vector<uint64_t> TakeExpired(int64_t now_ms);

  // "id=... client=... state=... grace-ms=... age=... detached-ms=... keys=... resumes=...\n"
  static std::string InfoLine(const Session& s, size_t keys, int64_t now_ms);

  const std::map<uint64_t, Session>& all() const { return sessions_; }
  size_t size() const { return sessions_.size(); }
  size_t attached() const { return attached_; }
  size_t detached() const { return sessions_.size() - attached_; }
  SessionCounters& counters() { return counters_; }
  const SessionCounters& counters() const { return counters_; }

 private:
  void DropDeadline(const Session& s);

  std::map<uint64_t, Session> sessions_;              // ordered by id: SESSION LIST's order
  std::set<std::pair<int64_t, uint64_t>> deadlines_;  // (deadline ms, id) of detached sessions
  size_t attached_ = 0;                               // sessions with client != 0
  SessionCounters counters_;
};

}  // namespace redistp
