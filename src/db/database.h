// Database: one numbered keyspace (SELECT 0..databases-1).
//
// Owns a Dict of entries and the index of entries that carry a TTL. All key changes go through
// the methods below, which keep both structures consistent and emit the key events described in
// keyspace_events.h. Expiry follows Redis: a key whose expire time is strictly in the past
// (now > expire_ms) does not exist; lookups delete it on sight (lazy expiry) and the server's
// cron samples the TTL index (active expiry). "Now" is the shared KeyspaceContext's cached
// command time (its CommandClock, keyspace_state.h), so one command sees one consistent clock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "db/dict.h"
#include "db/entry.h"
#include "db/keyspace_events.h"
#include "db/keyspace_state.h"
#include "db/ptr_set.h"
#include "db/slot_index.h"
#include "types/type_limits.h"
#include "util/clock.h"
#include "util/status.h"

namespace redistp {

class LazyFree;

// Which removals free their value on the lazy free thread (db/lazy_free.h): the lazyfree-lazy-*
// parameters, kept current by the server's config, plus the mode of the command running now.
struct LazyFreePolicy {
  bool expire = false;      // lazyfree-lazy-expire: cause kExpired
  bool eviction = false;    // lazyfree-lazy-eviction: cause kEvicted
  bool server_del = false;  // lazyfree-lazy-server-del: overwritten values, server-side deletes
  // DEL and UNLINK set this for the length of the command (DEL to lazyfree-lazy-user-del,
  // UNLINK to kLazy): removals with cause kDeleted follow it instead of server_del.
  enum class UserDelete : uint8_t { kNone, kSync, kLazy };
  UserDelete user_delete = UserDelete::kNone;
};

// State shared by all databases of a server.
struct KeyspaceContext {
  // The time commands see and the LRU clock; changed only through its API and scopes
  // (keyspace_state.h), so nobody can forget to put a script's or a loader's time back.
  CommandClock command_clock;
  // Whether keys expire now: loading suspends it, CLIENT PAUSE holds expired keys (absent but
  // not deleted, not counted in expired_keys, until the pause ends, as in Redis 7.0, so the
  // data does not change while paused), a write run during the pause lifts that, DEBUG
  // SET-ACTIVE-EXPIRE turns the cron's sampling off (keyspace_state.h).
  ExpiryGate expiry;
  int64_t now_ms() const { return command_clock.now_ms(); }
  uint32_t lru_clock() const { return command_clock.lru_clock(); }
  // Access tracking: LRU clock (default) or LFU counters when maxmemory-policy is *-lfu.
  bool lfu = false;
  int lfu_log_factor = 10;
  int lfu_decay_time = 1;
  KeyspaceListener* listener = nullptr;
  // Read misses are reported to listener->OnKeyMiss (keyspace notifications with class m);
  // false keeps the miss path free of any call.
  bool report_misses = false;
  // While a command of a CLIENT NO-TOUCH connection runs (TOUCH excepted), lookups leave the
  // keys' LRU/LFU data as it is; set and restored by the dispatcher around the handler.
  bool no_touch = false;
  // While a forked child (BGSAVE, AOF rewrite, a full sync's RDB) shares the memory, lookups
  // and in-place edits leave the LRU/LFU data as it is, as Redis does: writing it would make
  // the kernel copy a page for the child on every read. Set by the server (OnChildChanged).
  bool child_active = false;
  // Encoding thresholds of the aggregate types (the *-max-listpack-*, set-max-intset-entries
  // and list-* parameters), kept current by the server's config.
  TypeLimits limits;
  // Asked before the key table grows its bucket array for a new key, with the bytes the new
  // array takes; false keeps the old array (until its load passes 1.618). The server answers
  // whether those bytes fit under maxmemory, as Redis does, so that growing the table does not
  // itself evict keys. Null allows always.
  bool (*table_growth_allowed)(const void* arg, size_t bytes) = nullptr;
  const void* table_growth_arg = nullptr;
  // The background freeing thread; null frees everything inline (unit tests, tools).
  LazyFree* lazyfree = nullptr;
  LazyFreePolicy lazy;
  // Monotonic time for work budgets (active expiry); set by the server, never null there.
  const Clock* clock = nullptr;
  // Stats (INFO stats).
  uint64_t expired_keys = 0;
  uint64_t keyspace_hits = 0;
  uint64_t keyspace_misses = 0;
  uint64_t expired_stale_perc_samples = 0;
  // Key changes since the last save (Redis's server.dirty): one per key event that Database
  // emits, one per key a FLUSHDB/FLUSHALL drops, plus Database::CountChanges; INFO's
  // rdb_changes_since_last_save, the save points and propagation (a command wrote when it
  // moved) read it. Only Database moves it, so it is exact by construction.
  uint64_t dirty() const { return dirty_; }

 private:
  friend class Database;
  uint64_t dirty_ = 0;
};

class Database;

// How a lookup counts: kRead counts keyspace hits/misses and touches the LRU/LFU data (read
// commands), kWrite only touches it (write commands), kPeek does neither (TYPE, OBJECT,
// EXISTS-like helpers). All three delete an expired key on sight.
enum class Access : uint8_t { kRead, kWrite, kPeek };

// A scoped in-place edit of one key's value (APPEND, SETRANGE, SETBIT, LPUSH onto an existing
// list, HSET ...), obtained from Database::Mutate. While it lives the caller edits value();
// when it ends (Commit() or the destructor) the Database emits one kModified event carrying
// the notice, which counts `dirty` and reaches MULTI WATCH, watches, blocking, notifications
// and propagation; and if the edit left an aggregate empty the key is deleted, with its own
// kRemoved event (cause kDeleted, notice "del"), as Redis deletes emptied keys. Abandon() ends
// it with no event, for an edit that turned out to change nothing. The entry must not be
// removed, renamed or overwritten while the handle lives.
class Mutation {
 public:
  Mutation(Database* db, Entry* e, KeyNotice notice) : db_(db), entry_(e), notice_(notice) {}
  Mutation(Mutation&& o) noexcept : db_(o.db_), entry_(o.entry_), notice_(o.notice_) {
    o.entry_ = nullptr;
  }
  Mutation(const Mutation&) = delete;
  Mutation& operator=(const Mutation&) = delete;
  Mutation& operator=(Mutation&&) = delete;
  ~Mutation() { Commit(); }

  Value& value() { return entry_->value; }
  Entry* entry() { return entry_; }
  // Ends the edit now. Returns false if the key was deleted because it became empty.
  bool Commit();
  void Abandon() { entry_ = nullptr; }

 private:
  Database* db_;
  Entry* entry_;
  KeyNotice notice_;
};

class Database {
 public:
  Database(int index, KeyspaceContext* ctx) : index_(index), ctx_(ctx) {}
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  int index() const { return index_; }
  size_t size() const { return dict_.size(); }
  size_t volatile_size() const { return expires_.size(); }
  // Read-only view of the table (DEBUG DIGEST, KEYS, INFO): nothing outside Database changes
  // it; logically expired keys not yet reclaimed are still in it.
  const Dict& dict() const { return dict_; }
  // Read-only view of the index of keys that carry a TTL (DEBUG HTSTATS).
  const ExpireIndex& expires() const { return expires_; }
  // The entry of `key` with no expiry check and no access tracking (DEBUG OBJECT, the watch
  // index's flush/swap bookkeeping), or nullptr. Not for changing the value.
  Entry* FindRaw(std::string_view key) { return dict_.Find(key); }
  // Starts fetching the key table's bucket for `key` (loading: before its value is decoded).
  void PrefetchKey(std::string_view key) const { dict_.Prefetch(key); }

  // Lookups delete an expired key on sight. LookupRead counts keyspace hits/misses and touches
  // the LRU clock; LookupWrite does neither (Redis semantics for write commands).
  Entry* LookupRead(std::string_view key);
  Entry* LookupWrite(std::string_view key);
  // A lookup that neither counts stats nor touches LRU (EXISTS-like helpers, TYPE, OBJECT).
  Entry* Peek(std::string_view key);
  // Announces that a read of `key` found nothing (keyspace notification "keymiss"), for the
  // read lookups built on Peek (EXISTS, TYPE, TTL); LookupRead does it itself.
  void ReportMiss(std::string_view key) {
    if (ctx_->report_misses && ctx_->listener != nullptr) ctx_->listener->OnKeyMiss(*this, key);
  }
  // The typed lookup commands use: the entry of `key` when it holds a `type` value, nullptr
  // when the key does not exist, or wrong_type (the WRONGTYPE error, entry nullptr) when it
  // holds another type (counted as a hit, like Redis, which looks the key up before checking
  // its type). Inline and allocation-free: it runs for nearly every command.
  struct Typed {
    Entry* entry;
    bool wrong_type;
  };
  Typed Lookup(std::string_view key, ValueType type, Access access = Access::kRead) {
    Entry* e = access == Access::kRead    ? LookupRead(key)
               : access == Access::kWrite ? LookupWrite(key)
                                          : Peek(key);
    if (e != nullptr && e->value.type() != type) return {nullptr, true};
    return {e, false};
  }
  bool IsExpired(const Entry* e) const {
    return e->has_expire() && ctx_->expiry.enabled() && ctx_->now_ms() > expires_.Get(e);
  }
  // e's TTL as an absolute unix time in ms, or 0 if it has none or e is null (no such key). It
  // is kept in the expires index (entry.h).
  int64_t ExpireOf(const Entry* e) const {
    return e != nullptr && e->has_expire() ? expires_.Get(e) : 0;
  }

  // Every change below emits one key event carrying a KeyNotice (how notifications name it).
  //
  // Creates a key that does not exist (the caller checked). Emits kAdded. `replaced` is true
  // when the caller just removed the key's previous entry with cause kOverwritten (COPY
  // REPLACE), so existence listeners see no change.
  Entry* Add(std::string_view key, Value&& value, KeyNotice notice, bool replaced = false);
  // Replaces the value of an existing key; the entry (and its ownership) survives. Clears the
  // TTL unless keep_ttl. Emits kModified.
  void Overwrite(Entry* e, Value&& value, bool keep_ttl, KeyNotice notice);
  // SET semantics: overwrite if present (see Overwrite), else Add. Returns the entry.
  Entry* Upsert(std::string_view key, Value&& value, bool keep_ttl, KeyNotice notice);
  // Starts an in-place edit of e's value; see Mutation.
  [[nodiscard]] Mutation Mutate(Entry* e, KeyNotice notice) { return Mutation(this, e, notice); }
  // Removes a key: emits kRemoved(cause) then frees. The notice defaults to the cause's
  // ("del" for kDeleted and kOwnerLeft, "expired", "evicted"; none for kOverwritten and
  // kMovedOut).
  void Remove(Entry* e, RemoveCause cause = RemoveCause::kDeleted);
  void Remove(Entry* e, RemoveCause cause, KeyNotice notice);

  void SetExpire(Entry* e, int64_t when_ms, KeyNotice notice = notice::kExpire);
  // Returns true if a TTL was removed.
  bool Persist(Entry* e, KeyNotice notice = notice::kPersist);

  // RENAME/MOVE: moves `src` (existing) to `dst_key` in `dst_db` (may be this), replacing any
  // existing destination (cause kOverwritten). TTL and flags travel with the value. `from` and
  // `to` name the two halves ("rename_from"/"rename_to", "move_from"/"move_to").
  // Returns the new entry.
  Entry* MoveEntry(Entry* src, Database& dst_db, std::string_view dst_key, KeyNotice from,
                   KeyNotice to);

  // Drops every key (OnFlush is emitted first). kCountKeys (FLUSHDB, FLUSHALL) counts each key
  // dropped as a change since the last save, as Redis does, before OnFlush; kUncounted
  // empties the keyspace for a load (DEBUG RELOAD, DEBUG LOADAOF), which changes nothing
  // a save would not restore.
  // `async` hands the keys to the lazy free thread (FLUSHDB ASYNC, lazyfree-lazy-user-flush,
  // replica-lazy-flush): the database is empty at once either way.
  enum class FlushCount : uint8_t { kCountKeys, kUncounted };
  void Flush(FlushCount count, bool async = false);
  // Changes that are not one key event each but that Redis counts as `n` changes since the last
  // save (SORT ... STORE: one per element stored; its Upsert counted one already). Moves the
  // counter propagation reads: call it only for a change the command also records.
  void CountChanges(uint64_t n) { ctx_->dirty_ += n; }
  // SWAPDB: exchanges contents; emits OnSwap.
  static void Swap(Database& a, Database& b);

  // SCAN over live keys: calls fn(entry) for unexpired entries of the cursor's bucket(s).
  uint64_t Scan(uint64_t cursor, const std::function<void(Entry*)>& fn);
  // RANDOMKEY: a random unexpired key (expired ones met on the way are deleted), or nullptr.
  Entry* RandomKey();

  // Eviction (maxmemory): appends up to n entries picked at random, from the whole table or,
  // when volatile_only, from the keys that carry a TTL. An entry may repeat; logically expired
  // entries not yet reclaimed may be among them. Appends nothing when there is nothing.
  void SampleEntries(bool volatile_only, size_t n, std::vector<Entry*>* out);
  // The LFU counter of LFU access data (Entry::lru() under an LFU policy) after the decay owed
  // at now_ms: one step per decay_time minutes (0 = no decay). Reads, never writes, the entry.
  static uint32_t LfuFrequency(uint32_t lfu_data, int64_t now_ms, int decay_time);

  // One slice of active expiry: samples the TTL index and deletes expired keys, until the
  // deadline (steady-clock µs) or until few sampled keys are expired. Returns keys expired.
  size_t ActiveExpireCycle(int64_t deadline_us, int effort);

  // --- hash-field expiration (Redis 7.4) ---
  // Records that hash entry e now carries field expire times (after HEXPIRE and the like), so
  // active expiry visits it. Idempotent; cheap when already recorded.
  void NoteFieldTtl(Entry* e) {
    if (!e->has_flag(Entry::kFlagFieldTtl)) TrackFieldTtl(e);
  }
  // Deletes the fields of hash entry e whose expire time has passed (at most `max`), as one
  // "hexpired" change (propagated as HDEL of those fields), and the key with its last field
  // ("del"). Nothing while expiry is suspended or held (loading, a pause, a replica: the
  // master's HDEL does it). Returns false if the key was deleted (e is gone).
  bool ExpireFields(Entry* e, size_t max = SIZE_MAX);
  // One slice of active field expiry: visits sampled hashes of the field-TTL index and deletes
  // their due fields, bounded per hash and by the deadline. Returns fields deleted.
  size_t ActiveExpireFields(int64_t deadline_us, int effort);
  size_t field_ttl_hashes() const { return field_ttls_.size(); }
  // --- cluster mode ---
  // Starts keeping the keys grouped by hash slot (db/slot_index.h), with the keys present now;
  // from then on every insert and removal keeps it exact. Called once by a cluster node
  // before it loads its data; a server that never calls it pays nothing.
  void EnableSlotIndex();
  // The index, or null when not enabled.
  const SlotIndex* slot_index() const { return slot_index_.get(); }

  // Cron housekeeping: incremental rehash for `us` microseconds, shrink when sparse.
  void Cron(int64_t rehash_us);

  uint64_t avg_ttl_ms() const { return avg_ttl_ms_; }

  // --- persistence ---
  // Loading (RDB, the AOF's base, DEBUG RELOAD): inserts `key`, which must not exist, with its
  // absolute expire time (0 = none) and fresh access data. No key event and no dirty count:
  // loading is not a change anyone is told about, as in Redis.
  Entry* AddLoaded(std::string_view key, Value&& value, int64_t expire_ms);
  // The access data a save records (RDB IDLE / FREQ, DUMP): seconds since the last access
  // under the LRU clock, and the LFU counter after its decay.
  uint32_t IdleSeconds(const Entry* e) const;
  uint32_t LfuCounter(const Entry* e) const {
    return LfuFrequency(e->lru(), ctx_->now_ms(), ctx_->lfu_decay_time);
  }
  // Restores saved access data (RESTORE IDLETIME/FREQ, loading IDLE/FREQ): idle_s >= 0 sets
  // the LRU clock that many seconds back (LRU policies only), freq >= 0 the LFU counter (LFU
  // policies only); -1 leaves that part as it is.
  void SetSavedAccess(Entry* e, int64_t idle_s, int freq);
  // Loading: room for `n` keys at once (an RDB file's RESIZEDB hint), as Redis expands its
  // table to the hint, so the loaded table is not still rehashing afterwards.
  void Reserve(size_t n) { dict_.Reserve(n); }

 private:
  Entry* LookupInternal(std::string_view key);
  // Records an access: the LRU clock, or an LFU counter step (see database.cc).
  void TouchAccess(Entry* e);
  // Whether a lookup or an in-place edit records the access (KeyspaceContext's no_touch and
  // child_active).
  bool MayTouch() const { return !ctx_->no_touch && !ctx_->child_active; }
  void InitAccess(Entry* e);
  friend class Mutation;
  void Emit(KeyEventKind kind, Entry* e, KeyNotice notice,
            RemoveCause cause = RemoveCause::kDeleted, Entry* moved_from = nullptr,
            bool replaced = false);
  // Unlinks e from the dict and the TTL index without emitting or freeing.
  void Detach(Entry* e);
  // Adds e to the field-TTL index if its value is a hash with field expire times.
  void TrackFieldTtl(Entry* e);
  // Frees a removed entry (already detached), its value on the lazy free thread when the
  // policy says so for `cause` and the value is big enough (LazyFree::Submit).
  void Free(Entry* e, RemoveCause cause);
  // Whether a removal with this cause frees lazily under the current policy.
  bool LazyFor(RemoveCause cause) const;

  int index_;
  KeyspaceContext* ctx_;
  Dict dict_;
  ExpireIndex expires_;
  size_t expire_cursor_ = 0;
  // Hashes with field expire times (Entry::kFlagFieldTtl), for active field expiry.
  PtrSet field_ttls_;
  size_t field_ttl_cursor_ = 0;
  uint64_t avg_ttl_ms_ = 0;
  std::vector<Entry*> sample_;
  std::unique_ptr<SlotIndex> slot_index_;  // cluster mode only
};

}  // namespace redistp
