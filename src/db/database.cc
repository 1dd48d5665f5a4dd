#include "db/database.h"

#include <algorithm>
#include <memory>
#include <string>
#include <utility>

#include "db/lazy_free.h"
#include "types/hash.h"
#include "util/hash.h"

namespace redistp {
namespace {

// Monotonic µs from the context's clock (the system clock when none was installed).
int64_t MonotonicNowUs(const KeyspaceContext& ctx) {
  if (ctx.clock != nullptr) return ctx.clock->MonotonicUs();
  return SystemClock().MonotonicUs();
}

// LFU data in the entry's 24 access bits: the minute (mod 2^16) of the last decay in the high
// 16 bits, a logarithmic access counter in the low 8. New keys start at kLfuInitial so they are
// not evicted before they had a chance to be used.
constexpr uint32_t kLfuInitial = 5;

uint32_t MinutesNow(int64_t now_ms) { return static_cast<uint32_t>(now_ms / 60000) & 0xFFFF; }

uint32_t LfuDecayed(uint32_t data, int64_t now_ms, int decay_time) {
  uint32_t last = data >> 8;
  uint32_t counter = data & 0xFF;
  uint32_t now = MinutesNow(now_ms);
  uint32_t elapsed = now >= last ? now - last : 0xFFFF - last + now;
  uint32_t periods = decay_time > 0 ? elapsed / static_cast<uint32_t>(decay_time) : 0;
  return periods >= counter ? 0 : counter - periods;
}

// Increments the counter with probability 1 / ((counter - initial) * factor + 1), so it grows
// roughly logarithmically with the number of accesses and saturates at 255.
uint32_t LfuIncrement(uint32_t counter, int factor) {
  if (counter >= 255) return 255;
  static thread_local uint64_t rng = 0x2545F4914F6CDD1DULL;
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  double r = static_cast<double>(rng >> 11) / static_cast<double>(1ULL << 53);
  double base = counter > kLfuInitial ? counter - kLfuInitial : 0;
  return r < 1.0 / (base * factor + 1) ? counter + 1 : counter;
}

}  // namespace

uint32_t Database::LfuFrequency(uint32_t lfu_data, int64_t now_ms, int decay_time) {
  return LfuDecayed(lfu_data, now_ms, decay_time);
}

void Database::SampleEntries(bool volatile_only, size_t n, std::vector<Entry*>* out) {
  if (volatile_only) {
    // The TTL index is an open-addressing set: a run of slots from a random start. A sparse
    // stretch yields fewer than n, which sampling tolerates.
    if (expires_.size() == 0) return;
    expires_.Sample(static_cast<size_t>(RandomWord()), out->size() + n, n * 10, out);
    return;
  }
  for (size_t i = 0; i < n; ++i) {
    Entry* e = dict_.Random();
    if (e == nullptr) return;
    out->push_back(e);
  }
}

void Database::InitAccess(Entry* e) {
  if (ctx_->lfu) {
    e->set_lru((MinutesNow(ctx_->now_ms()) << 8) | kLfuInitial);
  } else {
    e->set_lru(ctx_->lru_clock());
  }
}

void Database::TouchAccess(Entry* e) {
  if (ctx_->lfu) {
    uint32_t counter = LfuDecayed(e->lru(), ctx_->now_ms(), ctx_->lfu_decay_time);
    counter = LfuIncrement(counter, ctx_->lfu_log_factor);
    e->set_lru((MinutesNow(ctx_->now_ms()) << 8) | counter);
  } else {
    e->set_lru(ctx_->lru_clock());
  }
}

Database::~Database() {
  field_ttls_.Clear();
  expires_.Clear();
  dict_.Clear();
}

void Database::Emit(KeyEventKind kind, Entry* e, KeyNotice notice, RemoveCause cause,
                    Entry* moved_from, bool replaced) {
  ++ctx_->dirty_;
  if (ctx_->listener == nullptr) return;
  KeyEvent ev{kind, cause, this, e, moved_from, replaced, notice};
  ctx_->listener->OnKeyEvent(ev);
}

Entry* Database::LookupInternal(std::string_view key) {
  Entry* e = dict_.Find(key);
  if (e != nullptr && IsExpired(e)) {
    if (ctx_->expiry.held()) return nullptr;  // absent, but kept until the pause ends
    ++ctx_->expired_keys;
    Remove(e, RemoveCause::kExpired);
    return nullptr;
  }
  return e;
}

Entry* Database::LookupRead(std::string_view key) {
  Entry* e = LookupInternal(key);
  if (e == nullptr) {
    ++ctx_->keyspace_misses;
    ReportMiss(key);
    return nullptr;
  }
  ++ctx_->keyspace_hits;
  if (MayTouch()) TouchAccess(e);
  return e;
}

Entry* Database::LookupWrite(std::string_view key) {
  Entry* e = LookupInternal(key);
  if (e != nullptr && MayTouch()) TouchAccess(e);
  return e;
}

Entry* Database::Peek(std::string_view key) { return LookupInternal(key); }

bool Mutation::Commit() {
  if (entry_ == nullptr) return true;
  Entry* e = entry_;
  entry_ = nullptr;
  // An edit in place keeps the entry, so a NO-TOUCH client's edit (or one while a child runs)
  // leaves its access data (a replaced value, Overwrite, is a new value with fresh access
  // data, as in Redis).
  if (db_->MayTouch()) db_->TouchAccess(e);
  db_->Emit(KeyEventKind::kModified, e, notice_);
  if (e->value.IsEmptyAggregate()) {
    db_->Remove(e, RemoveCause::kDeleted, notice::kDel);
    return false;
  }
  return true;
}

Entry* Database::Add(std::string_view key, Value&& value, KeyNotice notice, bool replaced) {
  Entry* e = Entry::Create(key, std::move(value));
  InitAccess(e);
  bool may_grow = true;
  if (ctx_->table_growth_allowed != nullptr && dict_.WouldGrow()) {
    may_grow = ctx_->table_growth_allowed(ctx_->table_growth_arg, dict_.GrowBytes());
  }
  dict_.Insert(e, may_grow);
  if (slot_index_ != nullptr) slot_index_->Insert(e);
  if (e->value.type() == ValueType::kHash) TrackFieldTtl(e);  // RESTORE, COPY
  Emit(KeyEventKind::kAdded, e, notice, RemoveCause::kDeleted, nullptr, replaced);
  return e;
}

void Database::Overwrite(Entry* e, Value&& value, bool keep_ttl, KeyNotice notice) {
  // The old value is freed lazily under lazyfree-lazy-server-del, as Redis's SET over a key.
  if (ctx_->lazyfree != nullptr && ctx_->lazy.server_del && e->value.is_aggregate()) {
    ctx_->lazyfree->Submit(std::move(e->value));
  }
  e->value = std::move(value);
  if (e->value.type() == ValueType::kHash) TrackFieldTtl(e);
  if (!keep_ttl && e->has_expire()) {
    expires_.Erase(e);
    e->set_flag(Entry::kFlagVolatile, false);
  }
  TouchAccess(e);
  Emit(KeyEventKind::kModified, e, notice);
}

Entry* Database::Upsert(std::string_view key, Value&& value, bool keep_ttl, KeyNotice notice) {
  Entry* e = LookupWrite(key);
  if (e != nullptr) {
    Overwrite(e, std::move(value), keep_ttl, notice);
    return e;
  }
  return Add(key, std::move(value), notice);
}

void Database::Detach(Entry* e) {
  if (e->has_expire()) expires_.Erase(e);
  if (e->has_flag(Entry::kFlagFieldTtl)) field_ttls_.Erase(e);
  dict_.Unlink(e->key());
  if (slot_index_ != nullptr) slot_index_->Erase(e);
}

void Database::Remove(Entry* e, RemoveCause cause) {
  KeyNotice n;
  switch (cause) {
    case RemoveCause::kDeleted:
      n = notice::kDel;
      break;
    case RemoveCause::kExpired:
      n = notice::kExpired;
      break;
    case RemoveCause::kEvicted:
      n = notice::kEvicted;
      break;
    case RemoveCause::kOwnerLeft:  // announced as the DEL that the owner's leaving amounts to
      n = notice::kDel;
      break;
    case RemoveCause::kSlotLost:
      n = notice::kDel;
      break;
    default:
      break;
  }
  Remove(e, cause, n);
}

void Database::Remove(Entry* e, RemoveCause cause, KeyNotice notice) {
  Emit(KeyEventKind::kRemoved, e, notice, cause);
  Detach(e);
  Free(e, cause);
}

bool Database::LazyFor(RemoveCause cause) const {
  const LazyFreePolicy& p = ctx_->lazy;
  switch (cause) {
    case RemoveCause::kExpired:
      return p.expire;
    case RemoveCause::kEvicted:
      return p.eviction;
    case RemoveCause::kDeleted:
      if (p.user_delete != LazyFreePolicy::UserDelete::kNone) {
        return p.user_delete == LazyFreePolicy::UserDelete::kLazy;
      }
      return p.server_del;
    case RemoveCause::kMovedOut:  // the value lives on under the new name
      return false;
    default:  // overwritten (RENAME/COPY/RESTORE REPLACE targets), an owner leaving
      return p.server_del;
  }
}

void Database::Free(Entry* e, RemoveCause cause) {
  if (ctx_->lazyfree != nullptr && e->value.is_aggregate() && LazyFor(cause)) {
    ctx_->lazyfree->Submit(std::move(e->value));
  }
  Entry::Destroy(e);
}

void Database::SetExpire(Entry* e, int64_t when_ms, KeyNotice notice) {
  expires_.Set(e, when_ms);
  e->set_flag(Entry::kFlagVolatile, true);
  Emit(KeyEventKind::kModified, e, notice);
}

bool Database::Persist(Entry* e, KeyNotice notice) {
  if (!e->has_expire()) return false;
  expires_.Erase(e);
  e->set_flag(Entry::kFlagVolatile, false);
  Emit(KeyEventKind::kModified, e, notice);
  return true;
}

Entry* Database::MoveEntry(Entry* src, Database& dst_db, std::string_view dst_key, KeyNotice from,
                           KeyNotice to) {
  bool replaced = false;
  if (Entry* old = dst_db.dict_.Find(dst_key); old != nullptr) {
    // An expired destination counts as absent: it is removed as expired, not overwritten.
    replaced = !dst_db.IsExpired(old);
    dst_db.Remove(old, replaced ? RemoveCause::kOverwritten : RemoveCause::kExpired);
  }
  Entry* moved = Entry::Create(dst_key, std::move(src->value));
  moved->lru_flags = src->lru_flags;
  Emit(KeyEventKind::kRemoved, src, from, RemoveCause::kMovedOut);
  int64_t expire = ExpireOf(src);
  Detach(src);
  dst_db.dict_.Insert(moved);
  if (dst_db.slot_index_ != nullptr) dst_db.slot_index_->Insert(moved);
  // The flag came with lru_flags; the time moves to the destination's index.
  if (expire != 0) dst_db.expires_.Set(moved, expire);
  // The flag came with lru_flags: the moved hash keeps its field times (RENAME, MOVE).
  if (moved->has_flag(Entry::kFlagFieldTtl)) dst_db.field_ttls_.Insert(moved);
  dst_db.Emit(KeyEventKind::kAdded, moved, to, RemoveCause::kDeleted, src, replaced);
  Entry::Destroy(src);
  return moved;
}

void Database::Flush(FlushCount count, bool async) {
  if (count == FlushCount::kCountKeys) ctx_->dirty_ += dict_.size();
  if (ctx_->listener != nullptr) ctx_->listener->OnFlush(*this);
  if (async && ctx_->lazyfree != nullptr && dict_.size() > 0) {
    // The old table and index become the job's only: empty ones take their place here.
    auto table = std::make_unique<Dict>();
    table->Swap(dict_);
    auto expires = std::make_unique<ExpireIndex>();
    expires->Swap(expires_);
    ctx_->lazyfree->SubmitTable(std::move(table), std::move(expires));
  } else {
    expires_.Clear();
    dict_.Clear();
  }
  field_ttls_.Clear();
  if (slot_index_ != nullptr) slot_index_->Clear();
  field_ttl_cursor_ = 0;
  expire_cursor_ = 0;
  avg_ttl_ms_ = 0;
}

void Database::Swap(Database& a, Database& b) {
  a.dict_.Swap(b.dict_);
  a.expires_.Swap(b.expires_);
  a.field_ttls_.Swap(b.field_ttls_);
  a.slot_index_.swap(b.slot_index_);
  a.field_ttl_cursor_ = b.field_ttl_cursor_ = 0;
  std::swap(a.avg_ttl_ms_, b.avg_ttl_ms_);
  a.expire_cursor_ = b.expire_cursor_ = 0;
  if (a.ctx_->listener != nullptr) a.ctx_->listener->OnSwap(a, b);
}

uint64_t Database::Scan(uint64_t cursor, const std::function<void(Entry*)>& fn) {
  sample_.clear();
  uint64_t next = dict_.Scan(cursor, [this](Entry* e) { sample_.push_back(e); });
  // Expired keys met by the scan are deleted, like a lookup would; the rest are reported.
  std::vector<Entry*> found;
  found.swap(sample_);
  for (Entry* e : found) {
    if (IsExpired(e)) {
      if (ctx_->expiry.held()) continue;  // not reported, kept until the pause ends
      ++ctx_->expired_keys;
      Remove(e, RemoveCause::kExpired);
    } else {
      fn(e);
    }
  }
  return next;
}

Entry* Database::RandomKey() {
  // Bounded: if every key sampled is expired (all volatile and stale), give up after a while
  // and return one anyway if all keys are volatile, as Redis does to avoid looping forever.
  for (int tries = 0; tries < 100; ++tries) {
    Entry* e = dict_.Random();
    if (e == nullptr) return nullptr;
    if (!IsExpired(e)) return e;
    if (dict_.size() == expires_.size() && tries >= 99) return e;
    if (ctx_->expiry.held()) continue;  // kept until the pause ends
    ++ctx_->expired_keys;
    Remove(e, RemoveCause::kExpired);
  }
  return nullptr;
}

size_t Database::ActiveExpireCycle(int64_t deadline_us, int effort) {
  if (expires_.size() == 0) return 0;
  const size_t per_loop = 20 + static_cast<size_t>(effort - 1) * 5;
  const size_t acceptable_stale = 10 - static_cast<size_t>(effort - 1);
  size_t total = 0;
  uint64_t ttl_sum = 0, ttl_n = 0;
  for (int loop = 0;; ++loop) {
    sample_.clear();
    expire_cursor_ = expires_.Sample(expire_cursor_, per_loop, per_loop * 20, &sample_);
    if (sample_.empty()) break;
    size_t expired = 0;
    std::vector<Entry*> batch;
    batch.swap(sample_);
    for (Entry* e : batch) {
      const int64_t when = expires_.Get(e);
      if (ctx_->now_ms() > when) {
        ++expired;
        ++ctx_->expired_keys;
        Remove(e, RemoveCause::kExpired);
      } else {
        ttl_sum += static_cast<uint64_t>(when - ctx_->now_ms());
        ++ttl_n;
      }
    }
    sample_.swap(batch);
    total += expired;
    if (expired * 100 / sample_.size() <= acceptable_stale) break;
    if ((loop & 15) == 15 && MonotonicNowUs(*ctx_) > deadline_us) break;
  }
  if (ttl_n > 0) {
    uint64_t avg = ttl_sum / ttl_n;
    avg_ttl_ms_ = avg_ttl_ms_ == 0 ? avg : (avg_ttl_ms_ / 50) * 49 + avg / 50;
  }
  return total;
}

// --- hash-field expiration ---

void Database::TrackFieldTtl(Entry* e) {
  if (e->has_flag(Entry::kFlagFieldTtl) || !HashOf(e->value).HasFieldExpires()) return;
  e->set_flag(Entry::kFlagFieldTtl, true);
  field_ttls_.Insert(e);
}

bool Database::ExpireFields(Entry* e, size_t max) {
  if (e->value.type() != ValueType::kHash) return true;
  HashObject& h = HashOf(e->value);
  const int64_t first = h.MinFieldExpire();
  if (first == 0 || !ctx_->expiry.enabled() || ctx_->expiry.held()) return true;
  // As for keys, a time is past when now is strictly after it.
  const int64_t now = ctx_->now_ms();
  if (now <= first) return true;
  std::vector<std::string> due = h.DueFields(now - 1, max);
  for (const std::string& f : due) h.Delete(f);
  // One change for the lot, which the propagator turns into one HDEL (and accounts for, so
  // the command that happened to trigger it is not taken for a write).
  ++ctx_->dirty_;
  if (ctx_->listener != nullptr) {
    KeyEvent ev{KeyEventKind::kModified,
                RemoveCause::kDeleted,
                this,
                e,
                nullptr,
                false,
                notice::kHExpired,
                &due};
    ctx_->listener->OnKeyEvent(ev);
  }
  if (h.size() > 0) return true;
  // The last field went: the key goes too, announced "del" as Redis 7.4 does. Its cause is
  // expiry, not the running command's doing.
  Remove(e, RemoveCause::kExpired, notice::kDel);
  return false;
}

size_t Database::ActiveExpireFields(int64_t deadline_us, int effort) {
  if (field_ttls_.size() == 0) return 0;
  const size_t per_loop = 20 + static_cast<size_t>(effort - 1) * 5;
  // Fields deleted per hash per visit: a hash with a million due fields is worked off over
  // several cycles, not in one long stall.
  const size_t per_hash = 100 * static_cast<size_t>(effort);
  size_t total = 0;
  std::vector<Entry*> batch;
  for (int loop = 0; loop < 64; ++loop) {
    batch.clear();
    field_ttl_cursor_ = field_ttls_.Sample(field_ttl_cursor_, per_loop, per_loop * 20, &batch);
    if (batch.empty()) break;
    // A sample may repeat an entry, and a visit may delete it: visit each once.
    std::sort(batch.begin(), batch.end());
    batch.erase(std::unique(batch.begin(), batch.end()), batch.end());
    size_t expired = 0;
    for (Entry* e : batch) {
      if (e->value.type() != ValueType::kHash || !HashOf(e->value).HasFieldExpires()) {
        e->set_flag(Entry::kFlagFieldTtl, false);  // its last field time went (HPERSIST)
        field_ttls_.Erase(e);
        continue;
      }
      const size_t before = HashOf(e->value).size();
      const bool kept = ExpireFields(e, per_hash);
      expired += kept ? before - HashOf(e->value).size() : before;
    }
    total += expired;
    if (expired == 0 || MonotonicNowUs(*ctx_) > deadline_us) break;
  }
  return total;
}

void Database::Cron(int64_t rehash_us) {
  dict_.MaybeShrink();
  if (dict_.rehashing()) dict_.RehashFor(rehash_us);
}

// --- persistence ---

Entry* Database::AddLoaded(std::string_view key, Value&& value, int64_t expire_ms) {
  Entry* e = Entry::Create(key, std::move(value));
  InitAccess(e);
  bool may_grow = true;
  if (ctx_->table_growth_allowed != nullptr && dict_.WouldGrow()) {
    may_grow = ctx_->table_growth_allowed(ctx_->table_growth_arg, dict_.GrowBytes());
  }
  dict_.Insert(e, may_grow);
  if (slot_index_ != nullptr) slot_index_->Insert(e);
  if (expire_ms != 0) {
    expires_.Set(e, expire_ms);
    e->set_flag(Entry::kFlagVolatile, true);
  }
  if (e->value.type() == ValueType::kHash) TrackFieldTtl(e);
  return e;
}

uint32_t Database::IdleSeconds(const Entry* e) const {
  uint32_t clock = ctx_->lru_clock();
  uint32_t lru = e->lru();
  return clock >= lru ? clock - lru : clock + (Entry::kLruMask - lru);
}

void Database::SetSavedAccess(Entry* e, int64_t idle_s, int freq) {
  if (ctx_->lfu) {
    if (freq >= 0)
      e->set_lru((MinutesNow(ctx_->now_ms()) << 8) | static_cast<uint32_t>(freq & 0xFF));
    return;
  }
  if (idle_s < 0) return;
  int64_t lru = static_cast<int64_t>(ctx_->lru_clock()) - idle_s;
  // The clock is 24 bits of seconds and wraps: an idle time past it wraps the same way.
  lru %= static_cast<int64_t>(Entry::kLruMask) + 1;
  if (lru < 0) lru += static_cast<int64_t>(Entry::kLruMask) + 1;
  e->set_lru(static_cast<uint32_t>(lru));
}

void Database::EnableSlotIndex() {
  if (slot_index_ != nullptr) return;
  slot_index_ = std::make_unique<SlotIndex>();
  dict_.ForEach([this](Entry* e) { slot_index_->Insert(e); });
}

}  // namespace redistp
