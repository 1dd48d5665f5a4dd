#include "watch/blocking.h"

#include "db/database.h"
#include "db/entry.h"

namespace redistp {

void BlockingQueues::Enqueue(int db, std::string_view key, BlockedWaiter waiter,
                             Entry* current) {
  if (interest_ != nullptr) interest_->AddInterest(db, key, current);
  QueueKey qk{db, std::string(key)};
  Queue& q = queues_[qk];
  uint64_t client = waiter.client;
  q.push_back(std::move(waiter));
  where_[client] = {std::move(qk), std::prev(q.end())};
}

bool BlockingQueues::Leave(uint64_t client) {
  auto it = where_.find(client);
  if (it == where_.end()) return false;
  if (interest_ != nullptr) interest_->RemoveInterest(it->second.first.first, it->second.first.second);
  auto qit = queues_.find(it->second.first);
  if (qit != queues_.end()) {
    qit->second.erase(it->second.second);
    if (qit->second.empty()) queues_.erase(qit);
  }
  where_.erase(it);
  return true;
}

bool BlockingQueues::PopHead(int db, std::string_view key, BlockedWaiter* out) {
  auto qit = queues_.find(QueueKey{db, std::string(key)});
  if (qit == queues_.end() || qit->second.empty()) return false;
  *out = std::move(qit->second.front());
  qit->second.pop_front();
  if (interest_ != nullptr) interest_->RemoveInterest(db, key);
  where_.erase(out->client);
  if (qit->second.empty()) queues_.erase(qit);
  return true;
}

size_t BlockingQueues::QueueLength(int db, std::string_view key) const {
  auto qit = queues_.find(QueueKey{db, std::string(key)});
  return qit == queues_.end() ? 0 : qit->second.size();
}

void BlockingQueues::MarkReady(int db, const std::string& key) { ready_.emplace_back(db, key); }

std::vector<std::pair<int, std::string>> BlockingQueues::TakeReady() {
  std::vector<QueueKey> out;
  out.swap(ready_);
  return out;
}

void BlockingQueues::OnKeyEvent(const KeyEvent& ev) {
  if (queues_.empty() || ev.kind != KeyEventKind::kRemoved) return;
  // Queued keys are registered as watch-index interests, which flag their entries.
  if (!ev.entry->has_flag(Entry::kFlagWatched)) return;
  QueueKey qk{ev.db->index(), std::string(ev.entry->key())};
  if (queues_.count(qk) != 0) ready_.push_back(std::move(qk));
}

void BlockingQueues::OnFlush(Database& db) {
  for (auto& [qk, q] : queues_) {
    if (qk.first == db.index()) ready_.push_back(qk);
  }
}

void BlockingQueues::OnSwap(Database& a, Database& b) {
  // Waiters stay on their database number; the key may now be absent there.
  for (auto& [qk, q] : queues_) {
    if (qk.first == a.index() || qk.first == b.index()) ready_.push_back(qk);
  }
}

}  // namespace redistp
