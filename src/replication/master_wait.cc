// The master side's acknowledgements (master_side.h): REPLCONF ACK, WAIT and its blocked
// callers, and min-replicas-to-write's count of good replicas.
//
// Model. Each online replica's last ACK offset and time live in its ReplicaLink. WAIT replies
// at once when enough replicas acknowledged the caller's offset, else blocks the caller (a
// BlockKind waiting on no key) and asks the replicas for an ACK in the stream; every ACK that
// arrives marks the waiters to be looked at in BeforeSleep, and the timeout replies the count
// reached by then. WAITAOF (Redis 7.2) waits the same way for two counts: the local AOF's fsync
// of every record taken before the call (Aof::synced_bytes), and the replicas whose FACK (the
// stream offset their own AOF has fsynced, sent in REPLCONF ACK) reached the caller's offset;
// a background fsync ends in another thread, so waiters are also looked at every loop turn and
// cron tick while any waits. The good replicas (online, last ACK within min-replicas-max-lag) are
// recounted whenever links or ACKs change, so the admission gate's NOREPLICAS is current.
#include <unistd.h>

#include <memory>

#include "persistence/aof.h"
#include "persistence/persistence.h"
#include "protocol/errors.h"
#include "replication/master_side.h"
#include "replication/replication.h"
#include "server/server.h"
#include "watch/blocking.h"

namespace redistp {

// WAIT's blocked callers: the timeout (or CLIENT UNBLOCK, or enough ACKs, which unblock it the
// same way) replies the number of replicas that acknowledged the caller's offset by then.
struct WaitState : BlockState {
  int64_t offset = 0;
};

class WaitKind : public BlockKind {
 public:
  explicit WaitKind(MasterSide* m) : m_(m) {}
  ServeResult TryServe(BlockedClient&, Database&, std::string_view, ReplyBuilder&) override {
    return ServeResult::kNotServed;  // waits on no key
  }
  void TimeoutReply(BlockedClient& w, ReplyBuilder& reply) override {
    reply.Int(m_->CountAcked(static_cast<WaitState*>(w.state.get())->offset));
  }

 private:
  MasterSide* m_;
};

// WAITAOF's blocked callers: the timeout (or enough fsyncs, which unblock it the same way)
// replies [local, replicas] as counted then. A caller that asked for the local fsync while the
// AOF was switched off meanwhile gets WAITAOF's AOF-off error instead (ServeWaiters unblocks it
// at once), as Redis 7.2 answers it.
struct WaitAofState : BlockState {
  int64_t offset = 0;
  int64_t numlocal = 0;
  uint64_t local_target = 0;
};

class WaitAofKind : public BlockKind {
 public:
  explicit WaitAofKind(MasterSide* m) : m_(m) {}
  ServeResult TryServe(BlockedClient&, Database&, std::string_view, ReplyBuilder&) override {
    return ServeResult::kNotServed;  // waits on no key
  }
  void TimeoutReply(BlockedClient& w, ReplyBuilder& reply) override {
    const auto* st = static_cast<WaitAofState*>(w.state.get());
    if (st->numlocal > 0 && !Persistence::Of(m_->repl_.server()).aof().enabled()) {
      reply.Error(err::kWaitAofNoAof);
      return;
    }
    reply.Array(2);
    reply.Int(m_->LocalSynced(st->local_target));
    reply.Int(m_->CountFsynced(st->offset));
  }

 private:
  MasterSide* m_;
};

// The constructor lives here, with the WAIT kinds it makes.
MasterSide::MasterSide(Replication& repl)
    : repl_(repl),
      no_replicas_since_ms_(repl.server().NowMs()),
      wait_kind_(std::make_unique<WaitKind>(this)),
      waitaof_kind_(std::make_unique<WaitAofKind>(this)),
      last_ping_ms_(repl.server().NowMs()) {
  // CONFIG SET of min-replicas-* judges the very next write by the new numbers, as in Redis
  // (not only from the next cron tick on).
  repl.server().config().OnChange({"min-replicas-to-write", "min-replicas-max-lag"}, [this]() {
    RefreshGoodReplicas();
    return Status::Ok();
  });
}

MasterSide::~MasterSide() {
  for (auto& l : links_) {
    if (l->rdb_fd >= 0) close(l->rdb_fd);
  }
  if (pipe_fd_ >= 0) close(pipe_fd_);
}

void MasterSide::Ack(Client& c, int64_t offset, int64_t fack) {
  ReplicaLink* l = Find(c);
  if (l == nullptr) return;
  if (offset > l->ack_offset) l->ack_offset = offset;
  if (fack > l->fack_offset) l->fack_offset = fack;
  l->ack_time_ms = repl_.server().NowMs();
  if (l->state == ReplicaState::kOnline && l->stream_on_first_ack) StartStream(*l);
  acks_arrived_ = true;
}

int MasterSide::CountAcked(int64_t offset) const {
  int n = 0;
  for (auto& l : links_) {
    if (l->state == ReplicaState::kOnline && l->ack_offset >= offset) ++n;
  }
  return n;
}

int MasterSide::CountFsynced(int64_t offset) const {
  int n = 0;
  for (auto& l : links_) {
    if (l->state == ReplicaState::kOnline && l->fack_offset >= offset) ++n;
  }
  return n;
}

int MasterSide::LocalSynced(uint64_t target) const {
  const Aof& aof = Persistence::Of(repl_.server()).aof();
  // While the first rewrite of CONFIG SET appendonly yes runs, the base does not exist yet:
  // nothing counts as durable until it does (Redis 7.2 waits for it too).
  return aof.state() == AofState::kOn && aof.synced_bytes() >= target ? 1 : 0;
}

void MasterSide::WaitAofCommand(Client& c, bool in_multi, int64_t numlocal, int64_t numreplicas,
                                int64_t timeout_ms) {
  const int64_t offset = repl_.master_repl_offset();
  const uint64_t local_target = Persistence::Of(repl_.server()).aof().taken_bytes();
  const int local = LocalSynced(local_target);
  const int fsynced = CountFsynced(offset);
  if ((local >= numlocal && fsynced >= numreplicas) || in_multi) {
    c.reply.Array(2);
    c.reply.Int(local);
    c.reply.Int(fsynced);
    return;
  }
  auto state = std::make_unique<WaitAofState>();
  state->offset = offset;
  state->numlocal = numlocal;
  state->local_target = local_target;
  repl_.server().BlockClient(&c, {}, waitaof_kind_.get(), std::move(state), timeout_ms);
  waiters_.push_back({c.id, offset, numreplicas, true, numlocal, local_target});
  if (numreplicas > 0) ask_acks_ = true;
}

void MasterSide::WaitCommand(Client& c, bool in_multi, int64_t numreplicas, int64_t timeout_ms) {
  const int64_t offset = repl_.master_repl_offset();
  const int acked = CountAcked(offset);
  if (acked >= numreplicas || in_multi) {
    c.reply.Int(acked);
    return;
  }
  auto state = std::make_unique<WaitState>();
  state->offset = offset;
  repl_.server().BlockClient(&c, {}, wait_kind_.get(), std::move(state), timeout_ms);
  waiters_.push_back({c.id, offset, numreplicas});
  ask_acks_ = true;
}

void MasterSide::ServeWaiters() {
  Server& server = repl_.server();
  for (size_t i = 0; i < waiters_.size();) {
    Client* c = server.FindClient(waiters_[i].client);
    if (c == nullptr || c->closed || !server.blocking().IsBlocked(c->id)) {
      waiters_.erase(waiters_.begin() + static_cast<long>(i));
      continue;
    }
    const Waiter& w = waiters_[i];
    bool done;
    if (w.aof) {
      // Served when both counts are reached, or at once with the error when the local fsync
      // can no longer come (the AOF was switched off).
      const bool aof_off = w.numlocal > 0 && !Persistence::Of(server).aof().enabled();
      done = aof_off ||
             (LocalSynced(w.local_target) >= w.numlocal && CountFsynced(w.offset) >= w.numreplicas);
    } else {
      done = CountAcked(w.offset) >= w.numreplicas;
    }
    if (done) {
      waiters_.erase(waiters_.begin() + static_cast<long>(i));
      server.UnblockClient(c, false);  // the reply is the count, as at the timeout
      continue;
    }
    ++i;
  }
}

void MasterSide::RefreshGoodReplicas() {
  Server& server = repl_.server();
  const int64_t now = server.NowMs();
  const int64_t max_lag = ConfigInt("min-replicas-max-lag", 10);
  const int64_t to_write = ConfigInt("min-replicas-to-write", 0);
  good_replicas_ = 0;
  for (auto& l : links_) {
    if (l->state == ReplicaState::kOnline && (now - l->ack_time_ms) / 1000 <= max_lag) {
      ++good_replicas_;
    }
  }
  server.repl_too_few_replicas =
      !repl_.is_replica() && to_write > 0 && max_lag > 0 && good_replicas_ < to_write;
}

}  // namespace redistp
