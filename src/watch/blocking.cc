#include "watch/blocking.h"

#include <algorithm>

#include "db/database.h"
#include "db/entry.h"
#include "watch/watches.h"

namespace redistp {

BlockingCore::~BlockingCore() = default;

void BlockingCore::Block(uint64_t client, Database& database,
                         const std::vector<std::string_view>& keys, BlockKind* kind,
                         std::unique_ptr<BlockState> state, int64_t deadline_ms) {
  const int db = database.index();
  auto w = std::make_unique<BlockedClient>();
  w->client = client;
  w->kind = kind;
  w->state = std::move(state);
  w->deadline_ms = deadline_ms;
  w->seq = next_seq_++;
  for (std::string_view key : keys) {
    bool seen = std::any_of(w->slots.begin(), w->slots.end(),
                            [&](const BlockedClient::Slot& s) { return s.key == key; });
    if (seen) continue;
    QueueKey qk{db, std::string(key)};
    Queue& q = queues_[qk];
    q.waiters.push_back(w.get());
    w->slots.push_back({db, std::move(qk.second), std::prev(q.waiters.end())});
  }
  if (interest_ != nullptr) {
    // One interest per (waiter, key): the watch index counts them.
    // The current entry (if any) is flagged and its TTL tracked; no expiry happens here.
    for (const BlockedClient::Slot& s : w->slots) {
      Entry* e = database.FindRaw(s.key);
      interest_->AddInterest(s.db, s.key, e, database.ExpireOf(e));
    }
  }
  if (deadline_ms != 0) {
    deadlines_.emplace(deadline_ms, w->seq);
    seq_client_.emplace(w->seq, client);
  }
  waiters_[client] = std::move(w);
}

void BlockingCore::Unlink(BlockedClient& w) {
  for (BlockedClient::Slot& s : w.slots) {
    if (interest_ != nullptr) interest_->RemoveInterest(s.db, s.key);
    auto qit = queues_.find(QueueKey{s.db, s.key});
    if (qit == queues_.end()) continue;
    qit->second.waiters.erase(s.pos);
    if (qit->second.waiters.empty()) queues_.erase(qit);
  }
  w.slots.clear();
  if (w.deadline_ms != 0) {
    deadlines_.erase({w.deadline_ms, w.seq});
    seq_client_.erase(w.seq);
  }
}

std::unique_ptr<BlockedClient> BlockingCore::Remove(uint64_t client) {
  auto it = waiters_.find(client);
  if (it == waiters_.end()) return nullptr;
  std::unique_ptr<BlockedClient> w = std::move(it->second);
  waiters_.erase(it);
  Unlink(*w);
  return w;
}

std::vector<const BlockedClient*> BlockingCore::Waiters(int db, std::string_view key,
                                                        const BlockKind* kind) const {
  std::vector<const BlockedClient*> out;
  auto it = queues_.find(QueueKey{db, std::string(key)});
  if (it == queues_.end()) return out;
  for (const BlockedClient* w : it->second.waiters) {
    if (kind == nullptr || w->kind == kind) out.push_back(w);
  }
  return out;
}

size_t BlockingCore::CountWaiters(const BlockKind* kind) const {
  size_t n = 0;
  for (const auto& [id, w] : waiters_) n += w->kind == kind ? 1 : 0;
  return n;
}

size_t BlockingCore::CountQueues(const BlockKind* kind) const {
  size_t n = 0;
  for (const auto& [qk, q] : queues_) {
    n += std::any_of(q.waiters.begin(), q.waiters.end(),
                     [kind](const BlockedClient* w) { return w->kind == kind; })
             ? 1
             : 0;
  }
  return n;
}

size_t BlockingCore::QueueLength(int db, std::string_view key) const {
  auto qit = queues_.find(QueueKey{db, std::string(key)});
  return qit == queues_.end() ? 0 : qit->second.waiters.size();
}

void BlockingCore::MarkReady(const QueueKey& qk, Queue& q) {
  if (q.ready) return;
  q.ready = true;
  ready_.push_back(qk);
}

void BlockingCore::MarkReady(int db, std::string_view key) {
  QueueKey qk{db, std::string(key)};
  auto qit = queues_.find(qk);
  if (qit != queues_.end()) MarkReady(qk, qit->second);
}

std::vector<std::pair<int, std::string>> BlockingCore::TakeReady() {
  std::vector<QueueKey> out;
  out.swap(ready_);
  for (const QueueKey& qk : out) {
    auto qit = queues_.find(qk);
    if (qit != queues_.end()) qit->second.ready = false;
  }
  return out;
}

std::vector<std::unique_ptr<BlockedClient>> BlockingCore::ServeKey(Database& db,
                                                                   std::string_view key,
                                                                   const ServeFn& serve) {
  std::vector<std::unique_ptr<BlockedClient>> served;
  QueueKey qk{db.index(), std::string(key)};
  auto qit = queues_.find(qk);
  if (qit == queues_.end()) return served;
  // Serving changes the keyspace (and so may queue this key as ready again) but never the
  // queue itself, except by removing whom we serve; walk a snapshot of the arrival order and
  // skip anyone who left meanwhile.
  std::vector<uint64_t> order;
  order.reserve(qit->second.waiters.size());
  for (BlockedClient* w : qit->second.waiters) order.push_back(w->client);
  std::vector<BlockKind*> done;  // kinds that answered kKindDone for this key
  for (uint64_t client : order) {
    auto wit = waiters_.find(client);
    if (wit == waiters_.end()) continue;
    BlockedClient& w = *wit->second;
    bool waits_here = std::any_of(w.slots.begin(), w.slots.end(), [&](const auto& s) {
      return s.db == qk.first && s.key == qk.second;
    });
    if (!waits_here) continue;
    if (std::find(done.begin(), done.end(), w.kind) != done.end()) continue;
    ServeResult r = serve(w, db, key);
    if (r == ServeResult::kKindDone) done.push_back(w.kind);
    if (r != ServeResult::kServed) continue;
    // `w` may have been removed by `serve` (its connection closed while replying).
    wit = waiters_.find(client);
    if (wit == waiters_.end()) continue;
    std::unique_ptr<BlockedClient> taken = std::move(wit->second);
    waiters_.erase(wit);
    Unlink(*taken);
    served.push_back(std::move(taken));
  }
  return served;
}

int64_t BlockingCore::next_deadline() const {
  return deadlines_.empty() ? 0 : deadlines_.begin()->first;
}

std::vector<std::unique_ptr<BlockedClient>> BlockingCore::TakeExpired(int64_t now_ms) {
  std::vector<std::unique_ptr<BlockedClient>> out;
  while (!deadlines_.empty() && deadlines_.begin()->first <= now_ms) {
    uint64_t client = seq_client_.at(deadlines_.begin()->second);
    std::unique_ptr<BlockedClient> w = Remove(client);
    if (w == nullptr) break;  // cannot happen: every deadline belongs to a waiter
    out.push_back(std::move(w));
  }
  return out;
}

void BlockingCore::OnKeyEvent(const KeyEvent& ev) {
  if (queues_.empty()) return;
  // Queued keys are watch-index interests, and the index flags their entries (new ones too,
  // as it hears every event first).
  if (!ev.entry->has_flag(Entry::kFlagWatched)) return;
  QueueKey qk{ev.db->index(), std::string(ev.entry->key())};
  auto qit = queues_.find(qk);
  if (qit != queues_.end()) MarkReady(qk, qit->second);
}

void BlockingCore::OnFlush(Database& db) {
  for (auto& [qk, q] : queues_) {
    if (qk.first == db.index()) MarkReady(qk, q);
  }
}

void BlockingCore::OnSwap(Database& a, Database& b) {
  // Waiters stay on their database number; what the key holds there may have changed.
  for (auto& [qk, q] : queues_) {
    if (qk.first == a.index() || qk.first == b.index()) MarkReady(qk, q);
  }
}

}  // namespace redistp
