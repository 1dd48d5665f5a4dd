#include "watch/owners.h"

#include <vector>

namespace redistp {

void OwnerIndex::Adopt(Entry* e, Database* db, uint64_t owner, uint64_t fence) {
  e->set_flag(Entry::kFlagTemporary, true);
  Record rec{owner, db, fence};
  rec.since_ms = time_source_ != nullptr ? time_source_->now_ms() : 0;
  by_entry_[e] = rec;
  by_owner_[owner].insert(e);
}

void OwnerIndex::CreateOwned(Database& db, std::string_view key, std::string_view value,
                             uint64_t owner, uint64_t fence) {
  Entry* e = db.Add(key, Value::String(value), notice::kSet);
  Adopt(e, &db, owner, fence);
}

uint64_t OwnerIndex::OwnerOf(const Entry* e) const {
  if (!e->has_flag(Entry::kFlagTemporary)) return 0;
  auto it = by_entry_.find(e);
  return it == by_entry_.end() ? 0 : it->second.owner;
}

uint64_t OwnerIndex::FenceOf(const Entry* e) const {
  if (!e->has_flag(Entry::kFlagTemporary)) return 0;
  auto it = by_entry_.find(e);
  return it == by_entry_.end() ? 0 : it->second.fence;
}

uint64_t OwnerIndex::HoldsOf(const Entry* e) const {
  if (!e->has_flag(Entry::kFlagTemporary)) return 0;
  auto it = by_entry_.find(e);
  return it == by_entry_.end() ? 0 : it->second.holds;
}

int64_t OwnerIndex::SinceOf(const Entry* e) const {
  if (!e->has_flag(Entry::kFlagTemporary)) return 0;
  auto it = by_entry_.find(e);
  return it == by_entry_.end() ? 0 : it->second.since_ms;
}

uint64_t OwnerIndex::AddHold(Entry* e) {
  auto it = by_entry_.find(e);
  if (it == by_entry_.end()) return 0;
  return ++it->second.holds;
}

bool OwnerIndex::DropHold(Entry* e) {
  auto it = by_entry_.find(e);
  if (it == by_entry_.end() || it->second.holds <= 1) return false;
  --it->second.holds;
  return true;
}

std::vector<std::pair<Entry*, Database*>> OwnerIndex::EntriesOf(uint64_t owner) const {
  std::vector<std::pair<Entry*, Database*>> out;
  auto oit = by_owner_.find(owner);
  if (oit == by_owner_.end()) return out;
  out.reserve(oit->second.size());
  for (Entry* e : oit->second) out.emplace_back(e, by_entry_.at(e).db);
  return out;
}

size_t OwnerIndex::CountOwnedBy(uint64_t owner) const {
  auto it = by_owner_.find(owner);
  return it == by_owner_.end() ? 0 : it->second.size();
}

void OwnerIndex::Forget(Entry* e) {
  auto it = by_entry_.find(e);
  if (it == by_entry_.end()) return;
  auto oit = by_owner_.find(it->second.owner);
  if (oit != by_owner_.end()) {
    oit->second.erase(e);
    if (oit->second.empty()) by_owner_.erase(oit);
  }
  by_entry_.erase(it);
}

size_t OwnerIndex::ReleaseAll(uint64_t owner) {
  auto oit = by_owner_.find(owner);
  if (oit == by_owner_.end()) return 0;
  // Copy first: each Remove emits kRemoved, which edits the index we are walking.
  std::vector<std::pair<Entry*, Database*>> doomed;
  for (Entry* e : oit->second) doomed.emplace_back(e, by_entry_.at(e).db);
  size_t n = 0;
  for (auto& [e, db] : doomed) {
    // A hand-off triggered by an earlier removal cannot touch these entries: they are ours.
    if (by_entry_.count(e) == 0) continue;
    db->Remove(e, RemoveCause::kOwnerLeft);
    ++n;
  }
  return n;
}

size_t OwnerIndex::Transfer(uint64_t from, uint64_t to,
                            std::vector<std::pair<Database*, Entry*>>* moved) {
  auto oit = by_owner_.find(from);
  if (oit == by_owner_.end() || from == to) return 0;
  std::unordered_set<Entry*> entries = std::move(oit->second);
  by_owner_.erase(oit);
  std::unordered_set<Entry*>& dest = by_owner_[to];
  for (Entry* e : entries) {
    Record& r = by_entry_.at(e);
    r.owner = to;
    dest.insert(e);
    if (moved != nullptr) moved->emplace_back(r.db, e);
  }
  return entries.size();
}

bool OwnerIndex::SetOwner(Entry* e, uint64_t owner) {
  auto it = by_entry_.find(e);
  if (it == by_entry_.end()) return false;
  uint64_t from = it->second.owner;
  if (from == owner) return true;
  auto oit = by_owner_.find(from);
  if (oit != by_owner_.end()) {
    oit->second.erase(e);
    if (oit->second.empty()) by_owner_.erase(oit);
  }
  it->second.owner = owner;
  by_owner_[owner].insert(e);
  return true;
}

bool OwnerIndex::SetExact(Entry* e, uint64_t owner, uint64_t fence, uint64_t holds) {
  if (!SetOwner(e, owner)) return false;
  Record& r = by_entry_.at(e);
  r.fence = fence;
  r.holds = holds < 1 ? 1 : holds;
  return true;
}

std::vector<uint64_t> OwnerIndex::InheritedOwners() const {
  std::vector<uint64_t> out;
  for (const auto& [owner, entries] : by_owner_) {
    if (IsInherited(owner) && !entries.empty()) out.push_back(owner);
  }
  return out;
}

void OwnerIndex::OnKeyEvent(const KeyEvent& ev) {
  switch (ev.kind) {
    case KeyEventKind::kRemoved:
      if (!ev.entry->has_flag(Entry::kFlagTemporary)) break;
      if (ev.cause == RemoveCause::kMovedOut) {
        auto it = by_entry_.find(ev.entry);
        if (it != by_entry_.end()) {
          const Record& r = it->second;
          pending_move_ = PendingMove{true, ev.entry, r.owner, r.fence, r.holds, r.since_ms};
        }
      }
      Forget(ev.entry);
      break;
    case KeyEventKind::kAdded:
      if (ev.moved_from != nullptr && ev.entry->has_flag(Entry::kFlagTemporary)) {
        // The source was forgotten by its kRemoved(kMovedOut); that event carried the record
        // into pending_move_ so it can be re-attached here.
        if (pending_move_.valid && pending_move_.from == ev.moved_from) {
          Adopt(ev.entry, ev.db, pending_move_.owner, pending_move_.fence);
          Record& moved = by_entry_.at(ev.entry);
          moved.holds = pending_move_.holds;  // a rename is neither a release nor a hand-over
          moved.since_ms = pending_move_.since_ms;
          pending_move_.valid = false;
        } else {
          ev.entry->set_flag(Entry::kFlagTemporary, false);
        }
      }
      break;
    case KeyEventKind::kModified:
      break;
  }
}

void OwnerIndex::OnFlush(Database& db) {
  std::vector<Entry*> doomed;
  for (auto& [e, rec] : by_entry_) {
    if (rec.db == &db) doomed.push_back(const_cast<Entry*>(e));
  }
  for (Entry* e : doomed) Forget(e);
}

void OwnerIndex::OnSwap(Database& a, Database& b) {
  for (auto& [e, rec] : by_entry_) {
    if (rec.db == &a) {
      rec.db = &b;
    } else if (rec.db == &b) {
      rec.db = &a;
    }
  }
}

}  // namespace redistp
