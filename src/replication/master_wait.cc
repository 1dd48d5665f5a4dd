// The master side's acknowledgements (master_side.h): REPLCONF ACK, WAIT and its blocked
// callers, and min-replicas-to-write's count of good replicas.
//
// Model. Each online replica's last ACK offset and time live in its ReplicaLink. WAIT replies
// at once when enough replicas acknowledged the caller's offset, else blocks the caller (a
// BlockKind waiting on no key) and asks the replicas for an ACK in the stream; every ACK that
// arrives marks the waiters to be looked at in BeforeSleep, and the timeout replies the count
// reached by then. The good replicas (online, last ACK within min-replicas-max-lag) are
// recounted whenever links or ACKs change, so the admission gate's NOREPLICAS is current.
#include <unistd.h>

#include <memory>

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

// The constructor lives here, with the WAIT kind it makes.
MasterSide::MasterSide(Replication& repl)
    : repl_(repl),
      no_replicas_since_ms_(repl.server().NowMs()),
      wait_kind_(std::make_unique<WaitKind>(this)) {
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

void MasterSide::Ack(Client& c, int64_t offset) {
  ReplicaLink* l = Find(c);
  if (l == nullptr) return;
  if (offset > l->ack_offset) l->ack_offset = offset;
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
    if (CountAcked(waiters_[i].offset) >= waiters_[i].numreplicas) {
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
