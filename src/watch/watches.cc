// WatchIndex implementation; the model and its costs are described in watches.h. Layout facts
// that the memory figures depend on are asserted here (KeyRecord header of 24 bytes).
#include "watch/watches.h"

#include <algorithm>
#include <cstring>
#include <new>
#include <tuple>
#include <utility>

#include "db/dict.h"

namespace redistp {

namespace {
// KeyRecord::heap_pos values that are not heap positions.
constexpr uint32_t kNotScheduled = UINT32_MAX;
constexpr uint32_t kRetired = UINT32_MAX - 1;
}  // namespace

// One allocation per watched (db, key): this 24-byte header, then the key bytes.
struct WatchIndex::KeyRecord {
  WatcherSet watchers;
  uint32_t heap_pos = kNotScheduled;  // index in deadlines_, kNotScheduled, or kRetired
  uint32_t interest = 0;              // AddInterest count; alive while watched or interested
  int32_t db = 0;
  uint32_t key_len : 31 = 0;   // keys are at most proto-max-bulk-len (512 MB) long
  uint32_t published : 1 = 0;  // AddPublished mark (see watches.h)

  char* key_data() { return reinterpret_cast<char*>(this + 1); }
  const char* key_data() const { return reinterpret_cast<const char*>(this + 1); }
  std::string_view key() const { return {key_data(), key_len}; }

  static KeyRecord* Create(int db, std::string_view key) {
    static_assert(sizeof(KeyRecord) == 24, "KeyRecord header must stay 24 bytes");
    void* mem = ::operator new(sizeof(KeyRecord) + key.size());
    auto* rec = new (mem) KeyRecord();
    rec->db = db;
    rec->key_len = static_cast<uint32_t>(key.size());
    if (!key.empty()) std::memcpy(rec->key_data(), key.data(), key.size());
    return rec;
  }
  static void Destroy(KeyRecord* rec) {
    size_t bytes = sizeof(KeyRecord) + rec->key_len;
    rec->~KeyRecord();
    ::operator delete(static_cast<void*>(rec), bytes);
  }
};

// One per connection that watches anything (16 bytes).
struct WatchIndex::ClientWatches {
  uint64_t id = 0;
  RecordSet keys;
};

uint64_t WatchIndex::ClientHash::Hash(const ClientWatches* c) { return MixBits(c->id); }

uint64_t WatchIndex::RecordPtrHash::Hash(const KeyRecord* r) {
  return MixBits(reinterpret_cast<uintptr_t>(r));
}

uint64_t WatchIndex::RecordKeyHash::Hash(const KeyRecord* r) { return HashDbKey(r->db, r->key()); }

uint64_t WatchIndex::HashDbKey(int db, std::string_view key) {
  // The multiplication spreads the db over the high bits too (the table's tag bits).
  return Dict::Hash(key) ^
         (static_cast<uint64_t>(static_cast<uint32_t>(db)) * 0x9e3779b97f4a7c15ULL);
}

// Defers the freeing of records dropped while it lives (see Retire).
class WatchIndex::RetireGuard {
 public:
  explicit RetireGuard(WatchIndex* w) : w_(w) { ++w_->notify_loops_; }
  ~RetireGuard() {
    if (--w_->notify_loops_ > 0) return;
    for (KeyRecord* rec : w_->retired_) KeyRecord::Destroy(rec);
    w_->retired_.clear();
  }
  RetireGuard(const RetireGuard&) = delete;
  RetireGuard& operator=(const RetireGuard&) = delete;

 private:
  WatchIndex* w_;
};

bool WatchIndex::IsRetired(const KeyRecord* rec) { return rec->heap_pos == kRetired; }

void WatchIndex::Retire(KeyRecord* rec) {
  if (notify_loops_ == 0) {
    KeyRecord::Destroy(rec);
    return;
  }
  rec->heap_pos = kRetired;
  retired_.push_back(rec);
}

WatchIndex::~WatchIndex() {
  clients_.ForEach([](ClientWatches* c) { delete c; });
  keys_.ForEach([](KeyRecord* rec) { KeyRecord::Destroy(rec); });
  for (KeyRecord* rec : retired_) KeyRecord::Destroy(rec);
}

WatchIndex::KeyRecord* WatchIndex::Find(int db, std::string_view key) {
  return keys_.Find(HashDbKey(db, key),
                    [db, key](const KeyRecord* r) { return r->db == db && r->key() == key; });
}

WatchIndex::KeyRecord* WatchIndex::FindOrCreate(int db, std::string_view key) {
  uint64_t hash = HashDbKey(db, key);
  KeyRecord* rec =
      keys_.Find(hash, [db, key](const KeyRecord* r) { return r->db == db && r->key() == key; });
  if (rec == nullptr) {
    rec = KeyRecord::Create(db, key);
    keys_.Insert(rec, hash);
  }
  return rec;
}

WatchIndex::ClientWatches* WatchIndex::FindClient(uint64_t client) const {
  return clients_.Find(MixBits(client),
                       [client](const ClientWatches* c) { return c->id == client; });
}

// Frees a record that has neither watchers nor interest: out of the heap, the table, memory.
void WatchIndex::DropIfUnused(KeyRecord* rec) {
  if (!rec->watchers.empty() || rec->interest > 0 || rec->published) return;
  Schedule(rec, 0);
  keys_.Erase(rec, HashDbKey(rec->db, rec->key()));
  Retire(rec);
}

void WatchIndex::AddInterest(int db, std::string_view key, Entry* entry, int64_t expire_ms) {
  KeyRecord* rec = FindOrCreate(db, key);
  ++rec->interest;
  if (entry != nullptr) entry->set_flag(Entry::kFlagWatched, true);
  if (entry != nullptr && expire_ms != 0 && DeadlineOf(rec) == 0) Schedule(rec, expire_ms);
}

void WatchIndex::RemoveInterest(int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr || rec->interest == 0) return;
  --rec->interest;
  DropIfUnused(rec);
}

void WatchIndex::AddPublished(int db, std::string_view key, Entry* entry, int64_t expire_ms) {
  KeyRecord* rec = FindOrCreate(db, key);
  rec->published = 1;
  if (entry != nullptr) entry->set_flag(Entry::kFlagWatched, true);
  if (entry != nullptr && expire_ms != 0 && DeadlineOf(rec) == 0) Schedule(rec, expire_ms);
}

void WatchIndex::RemovePublished(int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr || !rec->published) return;
  rec->published = 0;
  DropIfUnused(rec);
}

bool WatchIndex::IsPublished(int db, std::string_view key) {
  const KeyRecord* rec = Find(db, key);
  return rec != nullptr && rec->published;
}

bool WatchIndex::Add(uint64_t client, int db, std::string_view key, Entry* entry,
                     int64_t expire_ms) {
  KeyRecord* rec = FindOrCreate(db, key);
  if (entry != nullptr) entry->set_flag(Entry::kFlagWatched, true);
  ClientWatches* mine = FindClient(client);
  if (mine == nullptr) {
    mine = new ClientWatches();
    mine->id = client;
    clients_.Insert(mine);
  } else if (mine->keys.Contains(rec)) {
    return false;
  }
  // (A record created just now has no watches; it is kept because this watch is added next.)
  mine->keys.Insert(rec);
  rec->watchers.Insert(mine);
  ++watch_count_;
  if (entry != nullptr && expire_ms != 0 && DeadlineOf(rec) == 0) Schedule(rec, expire_ms);
  return true;
}

bool WatchIndex::Remove(uint64_t client, int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr) return false;
  ClientWatches* mine = FindClient(client);
  if (mine == nullptr || !mine->keys.Erase(rec)) return false;
  rec->watchers.Erase(mine);
  if (mine->keys.empty()) {
    clients_.Erase(mine);
    delete mine;
  }
  --watch_count_;
  DropIfUnused(rec);
  return true;
}

size_t WatchIndex::RemoveAll(uint64_t client) {
  ClientWatches* mine = FindClient(client);
  if (mine == nullptr) return 0;
  // Out of the client set first: whatever the sink does meanwhile, this client is gone.
  clients_.Erase(mine);
  size_t n = mine->keys.size();
  watch_count_ -= n;
  mine->keys.ForEach([this, mine](KeyRecord* rec) {
    rec->watchers.Erase(mine);
    DropIfUnused(rec);
  });
  delete mine;
  return n;
}

size_t WatchIndex::CountFor(uint64_t client) const {
  const ClientWatches* mine = FindClient(client);
  return mine == nullptr ? 0 : mine->keys.size();
}

std::vector<std::pair<int, std::string>> WatchIndex::KeysOf(uint64_t client) const {
  std::vector<std::pair<int, std::string>> out;
  const ClientWatches* mine = FindClient(client);
  if (mine == nullptr) return out;
  out.reserve(mine->keys.size());
  mine->keys.ForEach(
      [&out](KeyRecord* rec) { out.emplace_back(rec->db, std::string(rec->key())); });
  return out;
}

std::vector<std::pair<std::string, std::vector<uint64_t>>> WatchIndex::WatchesIn(int db) const {
  std::vector<std::pair<std::string, std::vector<uint64_t>>> out;
  keys_.ForEach([&out, db](KeyRecord* rec) {
    if (rec->db != db || rec->watchers.empty()) return;
    std::vector<uint64_t> ids;
    ids.reserve(rec->watchers.size());
    rec->watchers.ForEach([&ids](ClientWatches* c) { ids.push_back(c->id); });
    out.emplace_back(std::string(rec->key()), std::move(ids));
  });
  return out;
}

std::vector<uint64_t> WatchIndex::WatchersOf(int db, std::string_view key) {
  std::vector<uint64_t> ids;
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr) return ids;
  rec->watchers.ForEach([&ids](ClientWatches* c) { ids.push_back(c->id); });
  return ids;
}

// ---- Deadline heap ----------------------------------------------------------------------

int64_t WatchIndex::DeadlineOf(const KeyRecord* rec) const {
  return rec->heap_pos < kRetired ? deadlines_[rec->heap_pos].deadline : 0;
}

void WatchIndex::HeapSet(size_t pos, HeapItem item) {
  deadlines_[pos] = item;
  item.rec->heap_pos = static_cast<uint32_t>(pos);
}

void WatchIndex::SiftUp(size_t pos) {
  HeapItem item = deadlines_[pos];
  while (pos > 0) {
    size_t parent = (pos - 1) / 2;
    if (deadlines_[parent].deadline <= item.deadline) break;
    HeapSet(pos, deadlines_[parent]);
    pos = parent;
  }
  HeapSet(pos, item);
}

void WatchIndex::SiftDown(size_t pos) {
  HeapItem item = deadlines_[pos];
  size_t n = deadlines_.size();
  for (;;) {
    size_t child = 2 * pos + 1;
    if (child >= n) break;
    if (child + 1 < n && deadlines_[child + 1].deadline < deadlines_[child].deadline) ++child;
    if (item.deadline <= deadlines_[child].deadline) break;
    HeapSet(pos, deadlines_[child]);
    pos = child;
  }
  HeapSet(pos, item);
}

void WatchIndex::HeapRemove(size_t pos) {
  deadlines_[pos].rec->heap_pos = kNotScheduled;
  HeapItem last = deadlines_.back();
  deadlines_.pop_back();
  if (pos < deadlines_.size()) {
    HeapSet(pos, last);
    SiftUp(pos);
    SiftDown(last.rec->heap_pos);
  }
  // Give memory back when most volatile watched keys are gone.
  if (deadlines_.capacity() > 64 && deadlines_.size() < deadlines_.capacity() / 4) {
    deadlines_.shrink_to_fit();
  }
}

// Sets the record's prompt-expiry deadline (0 = none) and tells the sink when the earliest
// deadline of the index changes.
void WatchIndex::Schedule(KeyRecord* rec, int64_t expire_ms) {
  int64_t before = next_deadline();
  if (rec->heap_pos < kRetired) {
    if (expire_ms == 0) {
      HeapRemove(rec->heap_pos);
    } else {
      deadlines_[rec->heap_pos].deadline = expire_ms;
      SiftUp(rec->heap_pos);
      SiftDown(rec->heap_pos);
    }
  } else if (expire_ms != 0 && rec->heap_pos == kNotScheduled) {
    deadlines_.push_back({expire_ms, rec});
    SiftUp(deadlines_.size() - 1);
  }
  int64_t after = next_deadline();
  if (after != before) sink_->OnWatchDeadlineChanged(after);
}

std::vector<std::pair<int, std::string>> WatchIndex::DueExpiries(int64_t now_ms) {
  // A key expires when now > expire_ms (Redis's rule). The heap's due items form a subtree at
  // the root: walk it, then order by deadline (ties by db and key, so the order is stable).
  std::vector<HeapItem> due;
  std::vector<size_t> stack;
  if (!deadlines_.empty()) stack.push_back(0);
  while (!stack.empty()) {
    size_t i = stack.back();
    stack.pop_back();
    if (deadlines_[i].deadline >= now_ms) continue;
    due.push_back(deadlines_[i]);
    for (size_t child : {2 * i + 1, 2 * i + 2}) {
      if (child < deadlines_.size()) stack.push_back(child);
    }
  }
  std::sort(due.begin(), due.end(), [](const HeapItem& x, const HeapItem& y) {
    return std::make_tuple(x.deadline, x.rec->db, x.rec->key()) <
           std::make_tuple(y.deadline, y.rec->db, y.rec->key());
  });
  std::vector<std::pair<int, std::string>> out;
  out.reserve(due.size());
  for (const HeapItem& item : due) out.emplace_back(item.rec->db, std::string(item.rec->key()));
  return out;
}

// ---- Keyspace events --------------------------------------------------------------------

void WatchIndex::Notify(KeyRecord* rec, bool added) {
  bool published = rec->published;
  if (rec->watchers.empty()) {
    // Nothing between here and the sink can drop the record: its key is read in place.
    if (published) sink_->OnPublishedKeyEvent(rec->db, rec->key(), added);
    return;
  }
  // Copy the client ids first: a sink may close a client (output limit), editing the set.
  std::vector<uint64_t> clients;
  clients.reserve(rec->watchers.size());
  rec->watchers.ForEach([&clients](const ClientWatches* c) { clients.push_back(c->id); });
  int db = rec->db;
  std::string key(rec->key());
  sink_->OnWatchedKeyEvents(clients, db, key, added);
  // The Pub/Sub message follows the pushes of the same change (the order in Server::Server).
  if (published) sink_->OnPublishedKeyEvent(db, key, added);
}

void WatchIndex::OnKeyEvent(const KeyEvent& ev) {
  if (keys_.empty()) return;
  // Only an addition can concern a key whose entry is not flagged (the entry is new).
  if (ev.kind != KeyEventKind::kAdded && !ev.entry->has_flag(Entry::kFlagWatched)) return;
  KeyRecord* rec = Find(ev.db->index(), ev.entry->key());
  if (rec == nullptr) return;
  ev.entry->set_flag(Entry::kFlagWatched, true);
  switch (ev.kind) {
    case KeyEventKind::kAdded:
      Schedule(rec, ev.db->ExpireOf(ev.entry));
      if (!ev.replaced) Notify(rec, true);
      break;
    case KeyEventKind::kRemoved:
      Schedule(rec, 0);
      // An overwritten destination is replaced in the same operation: it never stops existing.
      if (ev.cause != RemoveCause::kOverwritten) Notify(rec, false);
      break;
    case KeyEventKind::kModified:
      if (const int64_t when = ev.db->ExpireOf(ev.entry); when != DeadlineOf(rec)) {
        Schedule(rec, when);
      }
      break;
  }
}

void WatchIndex::OnFlush(Database& db) {
  if (keys_.empty()) return;
  std::vector<KeyRecord*> hit;
  keys_.ForEach([&hit, &db](KeyRecord* rec) {
    if (rec->db == db.index() && db.FindRaw(rec->key()) != nullptr) hit.push_back(rec);
  });
  RetireGuard guard(this);
  for (KeyRecord* rec : hit) {
    if (IsRetired(rec)) continue;
    Schedule(rec, 0);
    Notify(rec, false);
  }
}

void WatchIndex::OnSwap(Database& a, Database& b) {
  if (keys_.empty()) return;
  std::vector<KeyRecord*> mine;
  keys_.ForEach([&mine, &a, &b](KeyRecord* rec) {
    if (rec->db == a.index() || rec->db == b.index()) mine.push_back(rec);
  });
  // After the swap, `a` holds what `b` had: a key of `a` existed before iff it now exists in b.
  struct Change {
    KeyRecord* rec;
    bool added;
    int64_t expire;
  };
  std::vector<Change> changes;
  RetireGuard guard(this);
  for (KeyRecord* rec : mine) {
    if (IsRetired(rec)) continue;
    Database* self = rec->db == a.index() ? &a : &b;
    Database* other = self == &a ? &b : &a;
    Entry* now = self->FindRaw(rec->key());
    bool before = other->FindRaw(rec->key()) != nullptr;
    // The entry now in this database came from the other one, unflagged perhaps.
    if (now != nullptr) now->set_flag(Entry::kFlagWatched, true);
    if ((now != nullptr) != before) {
      changes.push_back({rec, now != nullptr, self->ExpireOf(now)});
    } else if (now != nullptr && self->ExpireOf(now) != DeadlineOf(rec)) {
      Schedule(rec, self->ExpireOf(now));
    }
  }
  for (const Change& ch : changes) {
    if (IsRetired(ch.rec)) continue;
    Schedule(ch.rec, ch.expire);
    Notify(ch.rec, ch.added);
  }
}

}  // namespace redistp
