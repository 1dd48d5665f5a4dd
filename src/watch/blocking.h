// BlockingCore: the one place where connections wait for keys, for every kind of blocking
// command: BSETTP (watch/bsettp_kind.h), BLPOP/BRPOP/BLMOVE/BRPOPLPUSH/BLMPOP
// (commands/list_blocking.cc), BZPOPMIN/BZPOPMAX/BZMPOP (commands/zset_blocking.cc) and
// XREAD/XREADGROUP BLOCK (commands/stream_blocking.cc).
//
// Model. A waiter is one blocked connection: its client id, its kind, kind-specific state (the
// value BSETTP wants to store, the direction BLPOP pops from ...), a deadline (0 = forever), and
// one or more (db, key) it waits on. Each (db, key) with waiters has a FIFO queue of them, shared
// by all kinds, so the connection that blocked first on a key is offered it first, whatever
// command each one runs. The core knows nothing about connections or replies: a kind writes its
// own replies (BlockKind below), and the server decides what a reply means for the connection.
//
// Readiness. The core listens to the keyspace. Any event on a key with waiters — added,
// modified or removed, whatever caused it (a command, expiry, eviction, FLUSHDB, SWAPDB, an owner
// leaving) — puts the key on the ready list once. Nothing is served inside the event (the entry
// may be half-changed there): the server drains the ready list when the command that made the
// key ready has completed (after EXEC as a whole), as Redis's handleClientsBlockedOnKeys does,
// and repeats while serving made other keys ready. Serving a key offers it to its waiters in
// FIFO order; the kind decides (TryServe). A served waiter leaves every queue it was in (a
// connection blocked on several keys is served once). What a deleted key, or one of another
// type, means is the kind's decision too: a BLPOP waiter on a key that became a string keeps
// waiting until its kind can serve it or its deadline passes, as in Redis, while a blocked
// XREADGROUP whose stream or group is gone is answered with an error.
//
// Interests. Every queued key is registered with the watch index, which flags its entry
// (Entry::kFlagWatched) so events of other keys cost one bit test here, and keeps the key's TTL
// in its deadline heap so a waiter is served promptly when the key expires.
//
// Deadlines: one ordered set of (deadline, arrival) for all waiters; the server arms a single
// timer for the earliest and takes the expired waiters (TakeExpired) when it fires.
#pragma once

#include <cstdint>
#include <functional>
#include <list>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "db/keyspace_events.h"
#include "protocol/reply_builder.h"

namespace redistp {

class Database;
class WatchIndex;
class BlockKind;

// Kind-specific state of one waiter; each kind derives its own.
struct BlockState {
  virtual ~BlockState() = default;
};

struct BlockedClient {
  uint64_t client = 0;
  BlockKind* kind = nullptr;
  std::unique_ptr<BlockState> state;
  int64_t deadline_ms = 0;  // absolute; 0 = no timeout
  uint64_t seq = 0;         // arrival order (ties of equal deadlines)
  int64_t since_ms = 0;     // Unix ms the wait began (set by the server; TPWAITERS)
  // Where the waiter sits: one (db, key) queue position per key it waits on.
  struct Slot {
    int db;
    std::string key;
    std::list<BlockedClient*>::iterator pos;
  };
  std::vector<Slot> slots;
};

enum class ServeResult : uint8_t {
  kServed,     // the waiter got its reply; it leaves every queue
  kNotServed,  // the waiter stays; later waiters of the key are still offered it
  kKindDone,   // the waiter stays, and no waiter of this kind can be served from this key now
};

// One kind of blocking command: how a ready key serves a waiter and what a timeout replies.
class BlockKind {
 public:
  virtual ~BlockKind() = default;
  // (db, key) is ready and `w` waits on it: serve it if the key allows (writing the reply to
  // `reply`, changing the keyspace as the command would) or leave it waiting. A kind that does
  // not serve must not change the key (beyond expiring it), or serving would never settle.
  virtual ServeResult TryServe(BlockedClient& w, Database& db, std::string_view key,
                               ReplyBuilder& reply) = 0;
  // The wait ended by its timeout (or CLIENT UNBLOCK ... TIMEOUT): write the kind's reply.
  virtual void TimeoutReply(BlockedClient& w, ReplyBuilder& reply) = 0;
};

class BlockingCore : public KeyspaceListener {
 public:
  // Calls TryServe for one waiter of a ready key (the server wraps it with the connection's
  // bookkeeping; tests call the kind directly).
  using ServeFn = std::function<ServeResult(BlockedClient& w, Database& db, std::string_view key)>;

  BlockingCore() = default;
  ~BlockingCore() override;
  BlockingCore(const BlockingCore&) = delete;
  BlockingCore& operator=(const BlockingCore&) = delete;

  // Registers each queued key as an interest with the watch index (see the essay).
  void set_interest(WatchIndex* index) { interest_ = index; }

  // Blocks `client` on `keys` of `db` (duplicates count once) with `kind` and its state;
  // deadline_ms 0 waits forever. The client must not be blocked already.
  void Block(uint64_t client, Database& db, const std::vector<std::string_view>& keys,
             BlockKind* kind, std::unique_ptr<BlockState> state, int64_t deadline_ms);
  // Takes the client out of every queue (disconnect, CLIENT UNBLOCK, timeout). Returns its
  // record, or nullptr if it was not blocked. No reply is written.
  std::unique_ptr<BlockedClient> Remove(uint64_t client);
  bool IsBlocked(uint64_t client) const { return waiters_.count(client) != 0; }
  size_t blocked_count() const { return waiters_.size(); }
  // Waiters with a deadline (INFO clients_in_timeout_table).
  size_t timeout_count() const { return deadlines_.size(); }
  // Number of waiters (of any kind) on (db, key).
  size_t QueueLength(int db, std::string_view key) const;
  // Read-only view of (db, key)'s queue: its waiters of `kind` (every kind when nullptr), first
  // in line first. The pointers are valid until the core changes (no command may run between).
  std::vector<const BlockedClient*> Waiters(int db, std::string_view key,
                                            const BlockKind* kind = nullptr) const;
  // The waiter record of `client`, or nullptr; for the server's bookkeeping (its start time).
  BlockedClient* Find(uint64_t client) {
    auto it = waiters_.find(client);
    return it == waiters_.end() ? nullptr : it->second.get();
  }
  // Calls fn(const BlockedClient&) for every waiter, in no particular order; fn must not
  // change the core (collect first, then act). For the cluster's check of its blocked clients
  // after a change of its slots or state (cluster/cluster_route.cc). O(waiters).
  template <typename Fn>
  void ForEachWaiter(Fn&& fn) const {
    for (const auto& [id, w] : waiters_) fn(static_cast<const BlockedClient&>(*w));
  }
  // INFO coordination: waiters of `kind`, and the queues holding at least one of them. O(n).
  size_t CountWaiters(const BlockKind* kind) const;
  size_t CountQueues(const BlockKind* kind) const;

  // Puts a key on the ready list explicitly (e.g. a waiter arrived while the key was free).
  void MarkReady(int db, std::string_view key);
  bool has_ready() const { return !ready_.empty(); }
  // The ready keys in the order they became ready; the list is emptied.
  std::vector<std::pair<int, std::string>> TakeReady();
  // Offers (db, key) to its waiters in FIFO order through `serve`; served waiters leave every
  // queue and are returned (in service order) for the caller's connection bookkeeping.
  std::vector<std::unique_ptr<BlockedClient>> ServeKey(Database& db, std::string_view key,
                                                       const ServeFn& serve);

  // Earliest deadline of any waiter, 0 if none has one.
  int64_t next_deadline() const;
  // Removes and returns the waiters whose deadline is <= now, earliest first.
  std::vector<std::unique_ptr<BlockedClient>> TakeExpired(int64_t now_ms);

  void OnKeyEvent(const KeyEvent& ev) override;
  void OnFlush(Database& db) override;
  void OnSwap(Database& a, Database& b) override;

 private:
  using QueueKey = std::pair<int, std::string>;
  struct QueueKeyHash {
    size_t operator()(const QueueKey& k) const {
      return std::hash<std::string>()(k.second) ^ (static_cast<size_t>(k.first) * 0x9e3779b9u);
    }
  };
  struct Queue {
    std::list<BlockedClient*> waiters;
    bool ready = false;  // on ready_ already
  };
  void MarkReady(const QueueKey& qk, Queue& q);
  // Unlinks `w` from every queue and the deadline set (does not free it).
  void Unlink(BlockedClient& w);

  std::unordered_map<QueueKey, Queue, QueueKeyHash> queues_;
  std::unordered_map<uint64_t, std::unique_ptr<BlockedClient>> waiters_;
  std::set<std::pair<int64_t, uint64_t>> deadlines_;   // (deadline, seq)
  std::unordered_map<uint64_t, uint64_t> seq_client_;  // seq -> client, for deadlines_
  std::vector<QueueKey> ready_;
  uint64_t next_seq_ = 1;
  WatchIndex* interest_ = nullptr;
};

}  // namespace redistp
