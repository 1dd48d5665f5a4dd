#include "watch/watches.h"

#include "db/dict.h"

namespace redistp {

size_t WatchIndex::DbKeyHash::operator()(const DbKey& k) const {
  return static_cast<size_t>(Dict::Hash(k.key) ^ (static_cast<uint64_t>(k.db) * 0x9e3779b97f4a7c15ULL));
}

WatchIndex::~WatchIndex() {
  for (auto& [client, m] : by_client_) {
    for (auto& [rec, w] : m) delete w;
  }
  for (auto& [k, rec] : keys_) delete rec;
}

WatchIndex::KeyRecord* WatchIndex::Find(int db, std::string_view key) const {
  auto it = keys_.find(DbKey{db, key});
  return it == keys_.end() ? nullptr : it->second;
}

WatchIndex::KeyRecord* WatchIndex::FindOrCreate(int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr) {
    rec = new KeyRecord{db, std::string(key), {}, 0, 0};
    keys_.emplace(DbKey{db, rec->key}, rec);
  }
  return rec;
}

void WatchIndex::DropIfUnused(KeyRecord* rec) {
  if (!rec->watches.empty() || rec->interest > 0) return;
  Schedule(rec, 0);
  keys_.erase(DbKey{rec->db, rec->key});
  delete rec;
}

void WatchIndex::AddInterest(int db, std::string_view key, Entry* entry) {
  KeyRecord* rec = FindOrCreate(db, key);
  ++rec->interest;
  if (entry != nullptr) entry->set_flag(Entry::kFlagWatched, true);
  if (entry != nullptr && entry->expire_ms != 0 && rec->deadline == 0) {
    Schedule(rec, entry->expire_ms);
  }
}

void WatchIndex::RemoveInterest(int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr || rec->interest == 0) return;
  --rec->interest;
  DropIfUnused(rec);
}

bool WatchIndex::Add(uint64_t client, int db, std::string_view key, Entry* entry) {
  KeyRecord* rec = FindOrCreate(db, key);
  if (entry != nullptr) entry->set_flag(Entry::kFlagWatched, true);
  auto& mine = by_client_[client];
  if (mine.count(rec) != 0) return false;
  // (A record created just now has no watches; it is kept because this watch is added next.)
  auto* w = new Watch{rec, client, rec->watches.size()};
  rec->watches.push_back(w);
  mine.emplace(rec, w);
  ++watch_count_;
  if (entry != nullptr && entry->expire_ms != 0 && rec->deadline == 0) {
    Schedule(rec, entry->expire_ms);
  }
  return true;
}

void WatchIndex::DropWatch(Watch* w) {
  KeyRecord* rec = w->key;
  // Swap-remove from the key's vector, fixing the moved watch's slot.
  Watch* last = rec->watches.back();
  rec->watches[w->slot] = last;
  last->slot = w->slot;
  rec->watches.pop_back();
  delete w;
  --watch_count_;
  DropIfUnused(rec);
}

bool WatchIndex::Remove(uint64_t client, int db, std::string_view key) {
  KeyRecord* rec = Find(db, key);
  if (rec == nullptr) return false;
  auto cit = by_client_.find(client);
  if (cit == by_client_.end()) return false;
  auto wit = cit->second.find(rec);
  if (wit == cit->second.end()) return false;
  Watch* w = wit->second;
  cit->second.erase(wit);
  if (cit->second.empty()) by_client_.erase(cit);
  DropWatch(w);
  return true;
}

size_t WatchIndex::RemoveAll(uint64_t client) {
  auto cit = by_client_.find(client);
  if (cit == by_client_.end()) return 0;
  std::unordered_map<KeyRecord*, Watch*> mine;
  mine.swap(cit->second);
  by_client_.erase(cit);
  for (auto& [rec, w] : mine) DropWatch(w);
  return mine.size();
}

size_t WatchIndex::CountFor(uint64_t client) const {
  auto it = by_client_.find(client);
  return it == by_client_.end() ? 0 : it->second.size();
}

void WatchIndex::Schedule(KeyRecord* rec, int64_t expire_ms) {
  int64_t before = next_deadline();
  if (rec->deadline != 0) deadlines_.erase({rec->deadline, rec});
  rec->deadline = expire_ms;
  if (expire_ms != 0) deadlines_.insert({expire_ms, rec});
  int64_t after = next_deadline();
  if (after != before) sink_->OnWatchDeadlineChanged(after);
}

std::vector<std::pair<int, std::string>> WatchIndex::DueExpiries(int64_t now_ms) {
  std::vector<std::pair<int, std::string>> due;
  // A key expires when now > expire_ms (Redis's rule).
  for (auto it = deadlines_.begin(); it != deadlines_.end() && it->first < now_ms; ++it) {
    due.emplace_back(it->second->db, it->second->key);
  }
  return due;
}

void WatchIndex::Notify(KeyRecord* rec, bool added) {
  // Copy the client ids first: a sink may close a client (output limit), editing the vector.
  std::vector<uint64_t> clients;
  clients.reserve(rec->watches.size());
  for (Watch* w : rec->watches) clients.push_back(w->client);
  int db = rec->db;
  std::string key = rec->key;
  for (uint64_t c : clients) sink_->OnWatchedKeyEvent(c, db, key, added);
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
      Schedule(rec, ev.entry->expire_ms);
      if (!ev.replaced) Notify(rec, true);
      break;
    case KeyEventKind::kRemoved:
      Schedule(rec, 0);
      // An overwritten destination is replaced in the same operation: it never stops existing.
      if (ev.cause != RemoveCause::kOverwritten) Notify(rec, false);
      break;
    case KeyEventKind::kModified:
      if (ev.entry->expire_ms != rec->deadline) Schedule(rec, ev.entry->expire_ms);
      break;
  }
}

void WatchIndex::OnFlush(Database& db) {
  if (keys_.empty()) return;
  std::vector<KeyRecord*> hit;
  for (auto& [k, rec] : keys_) {
    if (rec->db == db.index() && db.dict().Find(rec->key) != nullptr) hit.push_back(rec);
  }
  for (KeyRecord* rec : hit) {
    Schedule(rec, 0);
    Notify(rec, false);
  }
}

void WatchIndex::OnSwap(Database& a, Database& b) {
  if (keys_.empty()) return;
  // After the swap, `a` holds what `b` had: a key of `a` existed before iff it now exists in b.
  struct Change {
    KeyRecord* rec;
    bool added;
    int64_t expire;
  };
  std::vector<Change> changes;
  for (auto& [k, rec] : keys_) {
    Database* self = rec->db == a.index() ? &a : rec->db == b.index() ? &b : nullptr;
    if (self == nullptr) continue;
    Database* other = self == &a ? &b : &a;
    Entry* now = self->dict().Find(rec->key);
    bool before = other->dict().Find(rec->key) != nullptr;
    // The entry now in this database came from the other one, unflagged perhaps.
    if (now != nullptr) now->set_flag(Entry::kFlagWatched, true);
    if ((now != nullptr) != before) changes.push_back({rec, now != nullptr, now ? now->expire_ms : 0});
    else if (now != nullptr && now->expire_ms != rec->deadline) Schedule(rec, now->expire_ms);
  }
  for (const Change& ch : changes) {
    Schedule(ch.rec, ch.expire);
    Notify(ch.rec, ch.added);
  }
}

}  // namespace redistp
