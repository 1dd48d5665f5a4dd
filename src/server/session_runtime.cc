// Session runtime: what sessions do to connections, keys and the propagation stream.
//
// The registry (watch/sessions.h) holds the sessions; this file moves them between connections
// and ends them. Ownership goes through Server::OwnerIdOf: while a session is attached to a
// connection (Client::SessionState::session_id), the connection's SETTP/BSETTP — in MULTI and
// scripts too, since a script's commands act for its caller — create keys owned by the session
// id, and DELTP releases them.
//
// Lifecycle:
//   - OPEN draws an id from the client-id counter and a token; the keys the connection owned
//     so far move into the session (OwnerIndex::Transfer: no key event, fences kept).
//   - A connection that ends, by any cause, or RESETs detaches its session (DetachSession, step
//     4 of Server::EndSession): keys unchanged, no event, and the session's grace starts.
//     Watches and BSETTP waits are the connection's and end with it as always.
//   - RESUME attaches a session to this connection. One attached elsewhere is moved: that
//     connection is closed through CloseClient (which detaches the session) first, so two
//     connections never both act for it.
//   - CLOSE, or the end of a grace (one libevent timer armed in BeforeSleep for the earliest
//     deadline, as the block timer is), releases the session's keys through
//     OwnerIndex::ReleaseAll: DEL semantics, watchers' DEL pushes, BSETTP hand-offs served
//     after the callback, DEL records. Then the session is gone.
//   - CLIENT LEASE still closes a silent connection; its session's grace starts then, so a
//     vanished holder keeps a key for at most lease + grace.
//
// Propagation. A replay (the AOF today, a replica later) must rebuild who owns what, without
// the secret: SESSION CREATE <id> <grace-ms> <digest hex> when a session opens, SESSION OWN
// <id> <db> <key> after the SETTP record of every key a session comes to own (at OPEN, SETTP,
// BSETTP, a hand-off), SESSION DROP <id> after the DELs of its keys when it ends. Attach and
// detach are not recorded: whoever replays has no connection of ours. The records are accepted
// only from the AOF's loader and the master link (internal subcommands); an AOF's load ends
// with EndReplayedSessions, which releases every replayed session's keys: a restart is not a
// blip.
//
// Replicas. The same records reach a replica, where the master link applies them with the
// master's ids kept apart from the replica's own (OwnerIndex::Inherited): its sessions stay
// detached with no grace running (FollowMaster), so nothing of the master's is released here
// but by the master's DEL and SESSION DROP. One more record is for replicas only (an AOF never
// holds it, nor needs it: a replay releases every temporary key at its end): SESSION KEY <db>
// <key> <owner> <fence> <holds> after every change of a key's owner, fencing token or hold
// count, so a replica holds the exact token (not one of its own) and the re-entry count, and
// its fencing counter follows the master's. What a promotion does with all this is the
// replication layer's (replication/promotion.cc), through FollowMaster(false).
//
// Migration. A temporary key MIGRATE moved here arrives as an ordinary key (its RESTORE) and
// then TPADOPT (AdoptMigratedKey): it joins its session (created detached, grace running, when
// unknown here) or an owner nobody can come back as, recorded as SESSION CREATE/OWN, which a
// replay applies to the restored key (ReplaySessionOwn adopts an ordinary key).
#include <event2/event.h>

#include <algorithm>

#include "protocol/errors.h"
#include "server/server.h"

namespace redistp {
namespace {

// One SESSION OWN record per moved key.
void RecordOwned(Propagator& p, uint64_t id,
                 const std::vector<std::pair<Database*, Entry*>>& keys) {
  for (auto& [db, e] : keys) {
    p.AppendRecord(db->index(), {"SESSION", "OWN", std::to_string(id), std::to_string(db->index()),
                                 std::string(e->key())});
  }
}

}  // namespace

Status Server::OpenSession(Client& c, int64_t grace_ms, std::string* token) {
  const uint64_t id = next_client_id_;
  SessionDigest digest;
  if (!SessionRegistry::NewToken(id, token, &digest)) {
    return Status::Error(std::string(err::kSessionNoRandom));
  }
  ++next_client_id_;
  sessions_.Create(id, digest, grace_ms, c.id, NowMs());
  c.session_state.session_id = id;
  ++sessions_.counters().opened;
  const bool record = propagator_.has_sinks();
  if (record) {
    propagator_.AppendRecord(c.db_index,
                             {"SESSION", "CREATE", std::to_string(id), std::to_string(grace_ms),
                              SessionRegistry::DigestHex(digest)});
  }
  std::vector<std::pair<Database*, Entry*>> moved;
  owners_.Transfer(c.id, id, record ? &moved : nullptr);
  if (record) RecordOwned(propagator_, id, moved);
  return Status::Ok();
}

Status Server::ResumeSession(Client& c, std::string_view token) {
  Session* s = sessions_.Check(token);
  if (s == nullptr) return Status::Error(std::string(err::kSessionInvalidToken));
  const uint64_t id = s->id;
  if (c.session_state.session_id == id) return Status::Ok();
  if (c.session_state.session_id != 0) return Status::Error(std::string(err::kSessionExists));
  if (s->client != 0) {
    // Moved, as ZooKeeper moves a session: the connection that had it is closed (its teardown
    // detaches the session), so two connections never both believe they own it.
    Client* other = FindClient(s->client);
    if (other != nullptr) CloseClient(other, "session resumed elsewhere");
    s = sessions_.Find(id);
    if (s == nullptr) return Status::Error(std::string(err::kSessionInvalidToken));
    if (s->client != 0) sessions_.Detach(*s, NowMs());
  }
  sessions_.Attach(*s, c.id);
  c.session_state.session_id = id;
  ++s->resumes;
  ++sessions_.counters().resumed;
  // Keys this connection owned before are the session's from now on, as at OPEN.
  const bool record = propagator_.has_sinks();
  std::vector<std::pair<Database*, Entry*>> moved;
  owners_.Transfer(c.id, id, record ? &moved : nullptr);
  if (record) RecordOwned(propagator_, id, moved);
  return Status::Ok();
}

size_t Server::CloseSession(Client& c) {
  const uint64_t id = c.session_state.session_id;
  if (id == 0) return 0;
  c.session_state.session_id = 0;
  size_t n = EndSessionKeys(id);
  sessions_.counters().released_by_close += n;
  return n;
}

size_t Server::EndSessionKeys(uint64_t id) {
  keyspace_.command_clock.Update(NowMs());
  size_t n = owners_.ReleaseAll(id);
  sessions_.Erase(id);
  if (propagator_.has_sinks()) propagator_.AppendRecord(0, {"SESSION", "DROP", std::to_string(id)});
  return n;
}

void Server::DetachSession(Client& c) {
  const uint64_t id = c.session_state.session_id;
  if (id == 0) return;
  c.session_state.session_id = 0;
  // On a replica no grace runs: the session waits for a promotion or the master's DROP.
  if (Session* s = sessions_.Find(id)) sessions_.Detach(*s, NowMs(), !follows_master_);
}

void Server::FollowMaster(bool on) {
  if (on == follows_master_) return;
  follows_master_ = on;
  if (on) {
    sessions_.SuspendGraces();
  } else {
    sessions_.StartGraces(NowMs());
  }
  // The timer is re-armed for what is left (or disarmed) in BeforeSleep.
}

// A BSETTP waiter was handed its key: the propagation stream gets the SETTP the wait became,
// a session's waiter's key is recorded as the session's, and the replicas learn the new owner.
void Server::RecordHandoff(int db, std::string_view key, const BSetTpState& st) {
  ++coordination_stats_.handoffs;
  if (st.fence) {
    propagator_.Emit(db, {"SETTP", key, st.value, "FENCE"});
  } else {
    propagator_.Emit(db, {"SETTP", key, st.value});
  }
  if (st.owner != 0 && sessions_.Find(st.owner) != nullptr) {
    propagator_.AppendRecord(
        db, {"SESSION", "OWN", std::to_string(st.owner), std::to_string(db), std::string(key)});
  }
  if (propagator_.has_sinks_for(kPropagateReplicas)) {
    RecordKeyOwnership(db, dbs_[db]->FindRaw(key));
  }
}

void Server::RecordKeyOwnership(int db, const Entry* e) {
  if (e == nullptr || !propagator_.has_sinks_for(kPropagateReplicas)) return;
  const uint64_t owner = owners_.OwnerOf(e);
  if (owner == 0) return;
  propagator_.AppendRecordFor(
      kPropagateReplicas, db,
      {"SESSION", "KEY", std::to_string(db), std::string(e->key()), std::to_string(owner),
       std::to_string(owners_.FenceOf(e)), std::to_string(owners_.HoldsOf(e))});
}

void Server::ApplyKeyOwnership(Database& db, std::string_view key, uint64_t owner, uint64_t fence,
                               uint64_t holds, bool from_master) {
  // The highest token seen, whatever becomes of the key: a promotion starts above it.
  owners_.RaiseFence(fence);
  Entry* e = db.FindRaw(key);
  // A key this replica does not hold (it was created before a full sync that could not carry
  // it, or is gone since) has nothing to own.
  if (e == nullptr) return;
  owners_.SetExact(e, from_master ? OwnerIndex::Inherited(owner) : owner, fence, holds);
}

void Server::ArmSessionTimer() {
  int64_t next = sessions_.next_deadline();
  if (session_timer_ == nullptr || next == session_timer_deadline_) return;
  session_timer_deadline_ = next;
  if (next == 0) {
    event_del(session_timer_.get());
    return;
  }
  // A grace has ended when now > deadline: fire one millisecond after it.
  int64_t delay = std::max<int64_t>(0, next + 1 - NowMs());
  timeval tv{static_cast<time_t>(delay / 1000), static_cast<suseconds_t>((delay % 1000) * 1000)};
  event_add(session_timer_.get(), &tv);
}

void Server::SessionTimerCallback(int /*fd*/, short /*what*/, void* arg) {
  auto* s = static_cast<Server*>(arg);
  s->ExpireSessions();
  s->AfterCallback();
}

void Server::ExpireSessions() {
  session_timer_deadline_ = 0;  // fired: re-armed in BeforeSleep for whatever is left
  // While a script is busy the keyspace changes only through the script (server/busy.cc); the
  // timer never fires then, and the harness's RunDueWork must not either.
  if (busy_caller_ != nullptr) return;
  const int64_t now = NowMs();
  for (uint64_t id : sessions_.TakeExpired(now)) {
    size_t n = EndSessionKeys(id);
    ++sessions_.counters().expired;
    sessions_.counters().released_by_expiry += n;
  }
}

Status Server::ReplaySessionCreate(uint64_t id, int64_t grace_ms, std::string_view digest_hex,
                                   bool from_master) {
  SessionDigest digest;
  if (id == 0 || grace_ms < 0 || grace_ms > SessionRegistry::kMaxGraceMs ||
      !SessionRegistry::DigestFromHex(digest_hex, &digest)) {
    return Status::Error(std::string(err::kSessionBadRecord));
  }
  if (from_master) id = OwnerIndex::Inherited(id);
  // A DEBUG LOADAOF may replay the CREATE of a session that is still live: it is that session.
  if (sessions_.Find(id) == nullptr) {
    sessions_.Create(id, digest, grace_ms, 0, NowMs()).replayed = true;
  }
  if (!from_master) replayed_sessions_.push_back(id);
  return Status::Ok();
}

Status Server::ReplaySessionOwn(uint64_t id, Database& db, std::string_view key, bool from_master) {
  if (id == 0) return Status::Error(std::string(err::kSessionBadRecord));
  if (from_master) id = OwnerIndex::Inherited(id);
  // A replica applies what its master did, and its expiry is the master's (FindRaw: no lazy
  // deletion there).
  Entry* e = from_master ? db.FindRaw(key) : db.LookupWrite(key);
  // The record follows the SETTP that created the key; a key gone since (an expired TTL set in
  // between) has nothing left to own. An ordinary key is one that arrived with MIGRATE (its
  // RESTORE record came first, AdoptMigratedKey): it becomes the session's.
  if (e != nullptr && !owners_.SetOwner(e, id)) owners_.Adopt(e, &db, id, 0);
  if (!from_master) replayed_sessions_.push_back(id);
  return Status::Ok();
}

Status Server::AdoptMigratedKey(Database& db, std::string_view key, uint64_t fence, uint64_t floor,
                                uint64_t holds, const MigratedSession* session) {
  Entry* e = db.LookupWrite(key);
  if (e == nullptr) return Status::Error(std::string(err::kAdoptNoKey));
  if (owners_.OwnerOf(e) != 0) return Status::Error(std::string(err::kAdoptOwned));
  // Fencing first, so that a reservation that fails changes no key. Every later token is above
  // the key's own and above every token the source had handed out.
  FenceCounter& fences = owners_.fences();
  fences.Raise(std::max(fence, floor));
  if (fences.last() > fences.reserved()) {
    Result<uint64_t> skipped = fences.Next();  // reserves the block holding the new floor
    if (!skipped.ok()) return Status::Error(err::FenceUnavailable(skipped.status().message()));
  }

  const int64_t now = NowMs();
  uint64_t id = 0;
  bool create = false;
  SessionDigest digest{};
  int64_t grace = config_.tp_failover_grace_ms;
  if (session != nullptr) {
    // The session's own id, or its inherited form (watch/owners.h: a range local ids never
    // reach, and SESSION RESUME tries both) when a connection or another session of this
    // server has the id. A session that came with an earlier key is found first.
    const uint64_t candidates[2] = {session->id, OwnerIndex::Inherited(session->id)};
    for (uint64_t cand : candidates) {
      const Session* known = sessions_.Find(cand);
      if (known != nullptr && known->digest == session->digest) id = cand;
    }
    for (uint64_t cand : candidates) {
      if (id != 0) break;
      if (sessions_.Find(cand) != nullptr || FindClient(cand) != nullptr ||
          owners_.CountOwnedBy(cand) != 0) {
        continue;
      }
      id = cand;
      create = true;
      digest = session->digest;
      grace = session->grace_ms;
      // No local connection or session may ever draw this id (an inherited id is never drawn).
      if (!OwnerIndex::IsInherited(id) && next_client_id_ <= id) next_client_id_ = id + 1;
    }
  }
  if (id == 0) {
    // Nobody can come back as this owner: a session whose token was never told to anyone.
    std::string unused_token;
    id = next_client_id_;
    if (!SessionRegistry::NewToken(id, &unused_token, &digest)) {
      return Status::Error(std::string(err::kSessionNoRandom));
    }
    ++next_client_id_;
    create = true;
  }
  if (create) {
    Session& s = sessions_.Create(id, digest, grace, 0, now);
    sessions_.Detach(s, now, !follows_master_);
  }
  keyspace_.command_clock.Update(now);
  owners_.Adopt(e, &db, id, fence);
  owners_.SetExact(e, id, fence, std::max<uint64_t>(holds, 1));
  if (propagator_.has_sinks()) {
    if (create) {
      propagator_.AppendRecord(db.index(),
                               {"SESSION", "CREATE", std::to_string(id), std::to_string(grace),
                                SessionRegistry::DigestHex(digest)});
    }
    propagator_.AppendRecord(db.index(), {"SESSION", "OWN", std::to_string(id),
                                          std::to_string(db.index()), std::string(key)});
    RecordKeyOwnership(db.index(), e);
  }
  return Status::Ok();
}

void Server::ReplaySessionDrop(uint64_t id, bool from_master) {
  if (from_master) id = OwnerIndex::Inherited(id);
  keyspace_.command_clock.Update(NowMs());
  // On a replica the master's DELs of the session's keys came first: normally nothing is left.
  owners_.ReleaseAll(id);
  const Session* s = sessions_.Find(id);
  if (s != nullptr && s->replayed) sessions_.Erase(id);
}

void Server::EndReplayedSessions() {
  std::vector<uint64_t> ids;
  ids.swap(replayed_sessions_);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  keyspace_.command_clock.Update(NowMs());
  for (uint64_t id : ids) {
    owners_.ReleaseAll(id);
    const Session* s = sessions_.Find(id);
    if (s != nullptr && s->replayed) sessions_.Erase(id);
  }
}

}  // namespace redistp
