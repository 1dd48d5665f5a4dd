// BlockingQueues: the FIFO of connections blocked in BSETTP on a key, per database.
//
// Contract: "If key does not exist: same as SETTP. Otherwise the connection blocks in a FIFO
// queue for that key (per database). When the key stops existing, the server creates it for the
// first live waiter in the queue, atomically, with that waiter's value and ownership, and
// replies 1 to it. Nobody else wakes up."
//
// Model. A queue per (db, key) of waiters in arrival order; per client the position of its one
// wait (a connection blocks on one key at a time), so leaving the queue on timeout, disconnect
// or CLIENT UNBLOCK is O(1). The index listens to the keyspace: when a key with waiters is
// removed (for any reason) it is put on the ready list. The server drains the ready list after
// each command and at the end of each event-loop callback — never inside the removal itself,
// where the old entry is still in the table — and performs the hand-off: create the key for the
// head waiter, give it ownership, reply, unblock it. One removal, one hand-off.
//
// The same machinery will serve BLPOP-style commands: waiters carry their own payload.
#pragma once

#include <cstdint>
#include <list>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/keyspace_events.h"
#include "watch/watches.h"

namespace redistp {

struct BlockedWaiter {
  uint64_t client;
  std::string value;  // the value the waiter wants the key to hold
  bool fence;         // reply with a fencing token instead of 1
};

class BlockingQueues : public KeyspaceListener {
 public:
  // Every queued key is registered as an interest with the watch index, so a key with waiters
  // and a TTL is expired promptly and its hand-off is not left to active expiry.
  void set_interest(WatchIndex* index) { interest_ = index; }
  // `current` is the key's entry (the one the waiter waits to disappear).
  void Enqueue(int db, std::string_view key, BlockedWaiter waiter, Entry* current);
  // Removes the client from whatever queue it waits in. Returns true if it was waiting.
  bool Leave(uint64_t client);
  bool IsWaiting(uint64_t client) const { return where_.count(client) != 0; }
  // Pops the head waiter of (db, key); false if the queue is empty.
  bool PopHead(int db, std::string_view key, BlockedWaiter* out);
  size_t QueueLength(int db, std::string_view key) const;
  size_t waiter_count() const { return where_.size(); }
  // Keys whose removal may allow a hand-off, in the order they became ready.
  std::vector<std::pair<int, std::string>> TakeReady();
  bool has_ready() const { return !ready_.empty(); }
  // Puts a key on the ready list explicitly (a waiter arrived while the key was absent).
  void MarkReady(int db, const std::string& key);

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  using QueueKey = std::pair<int, std::string>;
  struct QueueKeyHash {
    size_t operator()(const QueueKey& k) const {
      return std::hash<std::string>()(k.second) ^ (static_cast<size_t>(k.first) * 31);
    }
  };
  using Queue = std::list<BlockedWaiter>;

  std::unordered_map<QueueKey, Queue, QueueKeyHash> queues_;
  std::unordered_map<uint64_t, std::pair<QueueKey, Queue::iterator>> where_;
  std::vector<QueueKey> ready_;
  WatchIndex* interest_ = nullptr;
};

}  // namespace redistp
