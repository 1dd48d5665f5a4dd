#include "types/stream.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <iterator>

#include "types/digest.h"
#include "types/serialize.h"
#include "util/memory.h"
#include "util/numbers.h"

namespace redistp {

// ---- ids ----

bool StreamID::Increment() {
  if (seq != UINT64_MAX) {
    ++seq;
    return true;
  }
  if (ms == UINT64_MAX) return false;
  ++ms;
  seq = 0;
  return true;
}

bool StreamID::Decrement() {
  if (seq != 0) {
    --seq;
    return true;
  }
  if (ms == 0) return false;
  --ms;
  seq = UINT64_MAX;
  return true;
}

namespace {

// Writes v's decimal digits at buf; returns how many.
size_t FormatU64(uint64_t v, char* buf) {
  char tmp[20];
  size_t n = 0;
  do {
    tmp[n++] = static_cast<char>('0' + v % 10);
    v /= 10;
  } while (v != 0);
  for (size_t i = 0; i < n; ++i) buf[i] = tmp[n - 1 - i];
  return n;
}

}  // namespace

size_t StreamID::Format(char* buf) const {
  size_t n = FormatU64(ms, buf);
  buf[n++] = '-';
  return n + FormatU64(seq, buf + n);
}

std::string StreamID::ToString() const {
  char buf[kMaxChars];
  return std::string(buf, Format(buf));
}

void StreamID::EncodeBE(unsigned char out[16]) const {
  for (int i = 0; i < 8; ++i) {
    out[i] = static_cast<unsigned char>(ms >> (56 - 8 * i));
    out[8 + i] = static_cast<unsigned char>(seq >> (56 - 8 * i));
  }
}

StreamID StreamID::DecodeBE(const unsigned char in[16]) {
  StreamID id;
  for (int i = 0; i < 8; ++i) {
    id.ms = (id.ms << 8) | in[i];
    id.seq = (id.seq << 8) | in[8 + i];
  }
  return id;
}

namespace {

// One part of an id, read as Redis reads unsigned numbers: a canonical signed integer that is not
// negative, or else whatever strtoull accepts whole without overflow (so " 7", "+7" and "007"
// pass; "-01" wraps as strtoull wraps it). The part is NUL-terminated by the caller.
bool ParseIdPart(const char* s, size_t len, uint64_t* out) {
  int64_t v;
  if (ParseInt64(std::string_view(s, len), &v)) {
    if (v < 0) return false;
    *out = static_cast<uint64_t>(v);
    return true;
  }
  if (len == 0) return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long r = std::strtoull(s, &end, 10);
  if (errno == EINVAL || errno == ERANGE || end != s + len) return false;
  *out = r;
  return true;
}

}  // namespace

bool ParseStreamID(std::string_view s, StreamID* out, uint64_t missing_seq, bool strict,
                   bool* seq_star) {
  if (seq_star != nullptr) *seq_star = false;
  if (s.size() > 127) return false;
  char buf[128];
  std::memcpy(buf, s.data(), s.size());
  buf[s.size()] = '\0';
  const size_t len = std::strlen(buf);  // an argument with a NUL ends there, as in Redis
  if (len == 1 && !strict && (buf[0] == '-' || buf[0] == '+')) {
    *out = buf[0] == '-' ? StreamID::Min() : StreamID::Max();
    return true;
  }
  char* dash = static_cast<char*>(std::memchr(buf, '-', len));
  if (dash == nullptr) {
    if (!ParseIdPart(buf, len, &out->ms)) return false;
    out->seq = missing_seq;
    return true;
  }
  *dash = '\0';
  const char* seq_part = dash + 1;
  const size_t seq_len = len - static_cast<size_t>(seq_part - buf);
  if (!ParseIdPart(buf, static_cast<size_t>(dash - buf), &out->ms)) return false;
  if (seq_star != nullptr && seq_len == 1 && seq_part[0] == '*') {
    out->seq = 0;
    *seq_star = true;
    return true;
  }
  return ParseIdPart(seq_part, seq_len, &out->seq);
}

// ---- nodes ----

namespace {

constexpr int64_t kFlagDeleted = 1;
constexpr int64_t kFlagSameFields = 2;

int64_t IntAt(const Listpack& lp, Listpack::Pos p) {
  ListpackEntry e = lp.Get(p);
  if (e.is_int) return e.num;
  int64_t v = 0;
  ParseInt64(e.str, &v);  // nodes we build hold integers; loaded ones are validated
  return v;
}

// The master entry of a node: where its parts are and what they say.
struct NodeHeader {
  int64_t count = 0;    // live entries
  int64_t deleted = 0;  // deleted entries still in the node
  int64_t num_fields = 0;
  Listpack::Pos count_pos = Listpack::kNone;
  Listpack::Pos deleted_pos = Listpack::kNone;
  Listpack::Pos first_field = Listpack::kNone;  // kNone when num_fields is 0
  Listpack::Pos first_entry = Listpack::kNone;  // flags of the first entry; kNone if none
};

NodeHeader ReadHeader(const Listpack& lp) {
  NodeHeader h;
  h.count_pos = lp.First();
  h.count = IntAt(lp, h.count_pos);
  h.deleted_pos = lp.Next(h.count_pos);
  h.deleted = IntAt(lp, h.deleted_pos);
  Listpack::Pos p = lp.Next(h.deleted_pos);
  h.num_fields = IntAt(lp, p);
  p = lp.Next(p);
  h.first_field = h.num_fields > 0 ? p : Listpack::kNone;
  for (int64_t i = 0; i < h.num_fields; ++i) p = lp.Next(p);
  h.first_entry = lp.Next(p);  // past the master terminator
  return h;
}

// One entry of a node, decoded at its flags element.
struct RawEntry {
  int64_t flags = 0;
  StreamID id;
  int64_t num_fields = 0;
  Listpack::Pos flags_pos = Listpack::kNone;
  Listpack::Pos fields_pos = Listpack::kNone;  // first value (same fields) or first field
  Listpack::Pos lp_count_pos = Listpack::kNone;
  bool same_fields() const { return (flags & kFlagSameFields) != 0; }
  bool deleted() const { return (flags & kFlagDeleted) != 0; }
};

RawEntry ReadEntry(const Listpack& lp, Listpack::Pos p, StreamID master, int64_t master_fields) {
  RawEntry e;
  e.flags_pos = p;
  e.flags = IntAt(lp, p);
  p = lp.Next(p);
  e.id.ms = master.ms + static_cast<uint64_t>(IntAt(lp, p));
  p = lp.Next(p);
  e.id.seq = master.seq + static_cast<uint64_t>(IntAt(lp, p));
  p = lp.Next(p);
  int64_t elements;
  if (e.same_fields()) {
    e.num_fields = master_fields;
    elements = master_fields;
  } else {
    e.num_fields = IntAt(lp, p);
    p = lp.Next(p);
    elements = 2 * e.num_fields;
  }
  e.fields_pos = p;
  for (int64_t i = 0; i < elements; ++i) p = lp.Next(p);
  e.lp_count_pos = p;
  return e;
}

// The flags element of the entry whose lp-count element is at `p`.
Listpack::Pos EntryStartFromEnd(const Listpack& lp, Listpack::Pos lp_count_pos) {
  int64_t n = IntAt(lp, lp_count_pos);
  Listpack::Pos p = lp_count_pos;
  for (int64_t i = 0; i < n; ++i) p = lp.Prev(p);
  return p;
}

void SetHeaderCounts(Listpack& lp, int64_t count, int64_t deleted) {
  Listpack::Pos p = lp.ReplaceInt(lp.First(), count);
  lp.ReplaceInt(lp.Next(p), deleted);
}

// Marks the entry at flags_pos deleted (a same-size integer rewrite).
void MarkDeleted(Listpack& lp, Listpack::Pos flags_pos) {
  lp.ReplaceInt(flags_pos, IntAt(lp, flags_pos) | kFlagDeleted);
}

}  // namespace

// ---- the stream ----

StreamNodes::const_iterator NodeAfter(const StreamNodes& nodes, StreamID id) {
  return std::upper_bound(nodes.begin(), nodes.end(), id,
                          [](StreamID v, const auto& node) { return v < node.first; });
}

StreamObject::~StreamObject() = default;

bool StreamObject::NextAutoId(uint64_t now_ms, StreamID* out) const {
  if (now_ms > last_id_.ms) {
    *out = {now_ms, 0};
    return true;
  }
  *out = last_id_;
  return out->Increment();
}

void StreamObject::Append(StreamID id, const std::vector<std::string_view>& field_values,
                          const TypeLimits& limits) {
  const int64_t pairs = static_cast<int64_t>(field_values.size() / 2);
  size_t element_bytes = 0;
  for (std::string_view s : field_values) element_bytes += s.size();

  // The tail node takes the entry unless it is full; its master entry is read once, for the
  // fullness test, the same-fields test and the count update.
  Listpack* lp = nullptr;
  StreamID master;
  NodeHeader h;
  if (!nodes_.empty()) {
    auto tail = std::prev(nodes_.end());
    size_t max_bytes = limits.stream_node_max_bytes;
    if (max_bytes == 0 || max_bytes > Listpack::kMaxSafeBytes) max_bytes = Listpack::kMaxSafeBytes;
    bool full = tail->second.Bytes() + element_bytes >= max_bytes;
    if (!full) {
      h = ReadHeader(tail->second);
      full = limits.stream_node_max_entries != 0 &&
             static_cast<size_t>(h.count + h.deleted) >= limits.stream_node_max_entries;
    }
    if (!full) {
      lp = &tail->second;
      master = tail->first;
    }
  }
  bool same_fields = true;
  if (lp == nullptr) {
    // A new node: its master entry takes this entry's fields.
    Listpack fresh;
    fresh.AppendInt(0);  // count, set below
    fresh.AppendInt(0);  // deleted
    fresh.AppendInt(pairs);
    for (int64_t i = 0; i < pairs; ++i) fresh.Append(field_values[2 * i]);
    fresh.AppendInt(0);  // master terminator
    master = id;
    lp = &nodes_.emplace_back(id, std::move(fresh)).second;
    h = NodeHeader{};
  } else {
    same_fields = h.num_fields == pairs;
    Listpack::Pos f = h.first_field;
    for (int64_t i = 0; same_fields && i < pairs; ++i, f = lp->Next(f)) {
      same_fields = lp->Get(f).Equals(field_values[2 * i]);
    }
  }
  SetHeaderCounts(*lp, h.count + 1, h.deleted);
  lp->AppendInt(same_fields ? kFlagSameFields : 0);
  lp->AppendInt(static_cast<int64_t>(id.ms - master.ms));
  lp->AppendInt(static_cast<int64_t>(id.seq - master.seq));
  if (same_fields) {
    for (int64_t i = 0; i < pairs; ++i) lp->Append(field_values[2 * i + 1]);
    lp->AppendInt(pairs + 3);
  } else {
    lp->AppendInt(pairs);
    for (std::string_view s : field_values) lp->Append(s);
    lp->AppendInt(2 * pairs + 4);
  }
  if (length_ == 0) first_id_ = id;
  ++length_;
  ++entries_added_;
  last_id_ = id;
}

bool StreamObject::Contains(StreamID id) const {
  Iterator it(*this, id, id, false);
  StreamEntryView v;
  return it.Next(&v);
}

bool StreamObject::Delete(StreamID id) {
  auto found = NodeAfter(nodes_, id);
  if (found == nodes_.begin()) return false;
  auto node = nodes_.begin() + (found - nodes_.begin() - 1);
  Listpack& lp = node->second;
  NodeHeader h = ReadHeader(lp);
  for (Listpack::Pos p = h.first_entry; p != Listpack::kNone;) {
    RawEntry e = ReadEntry(lp, p, node->first, h.num_fields);
    if (e.id > id) break;
    if (e.id == id) {
      if (e.deleted()) return false;
      MarkDeleted(lp, e.flags_pos);
      if (h.count == 1) {
        nodes_.erase(node);
      } else {
        SetHeaderCounts(lp, h.count - 1, h.deleted + 1);
      }
      --length_;
      if (id > max_deleted_) max_deleted_ = id;
      if (id == first_id_) RecomputeFirstId();
      return true;
    }
    p = lp.Next(e.lp_count_pos);
  }
  return false;
}

int64_t StreamObject::Trim(const TrimSpec& spec) {
  int64_t removed = 0;
  while (!nodes_.empty()) {
    if (spec.by == TrimBy::kMaxLen && length_ <= spec.maxlen) break;
    auto node = nodes_.begin();
    Listpack& lp = node->second;
    NodeHeader h = ReadHeader(lp);
    bool whole;
    if (spec.by == TrimBy::kMaxLen) {
      whole = length_ - static_cast<size_t>(h.count) >= spec.maxlen;
    } else {
      // The node's last entry, deleted or not, decides whether everything in it is below minid.
      RawEntry last = ReadEntry(lp, EntryStartFromEnd(lp, lp.Last()), node->first, h.num_fields);
      whole = last.id < spec.minid;
    }
    if (whole) {
      if (spec.limit != 0 && removed + h.count > spec.limit) break;
      length_ -= static_cast<size_t>(h.count);
      removed += h.count;
      nodes_.erase(node);
      continue;
    }
    if (spec.approx) break;
    // Exact trimming inside the first node: mark entries deleted until the bound is met.
    int64_t count = h.count, deleted = h.deleted;
    for (Listpack::Pos p = h.first_entry; p != Listpack::kNone;) {
      if (spec.by == TrimBy::kMaxLen && length_ <= spec.maxlen) break;
      RawEntry e = ReadEntry(lp, p, node->first, h.num_fields);
      if (spec.by == TrimBy::kMinId && e.id >= spec.minid) break;
      if (!e.deleted()) {
        MarkDeleted(lp, e.flags_pos);
        --count;
        ++deleted;
        --length_;
        ++removed;
      }
      p = lp.Next(e.lp_count_pos);
    }
    if (count == 0) {
      nodes_.erase(node);
    } else {
      SetHeaderCounts(lp, count, deleted);
    }
    break;
  }
  if (removed > 0) RecomputeFirstId();
  return removed;
}

void StreamObject::RecomputeFirstId() {
  first_id_ = StreamID::Min();
  if (length_ == 0) return;
  Iterator it(*this, StreamID::Min(), StreamID::Max(), false);
  StreamEntryView v;
  if (it.Next(&v)) first_id_ = v.id;
}

// ---- loading ----

StreamID StreamObject::LastNodeEntryId() const {
  if (nodes_.empty()) return StreamID::Min();
  auto tail = std::prev(nodes_.end());
  const Listpack& lp = tail->second;
  NodeHeader h = ReadHeader(lp);
  return ReadEntry(lp, EntryStartFromEnd(lp, lp.Last()), tail->first, h.num_fields).id;
}

bool StreamObject::AdoptNode(StreamID master, Listpack lp) {
  // Every step checks that the element exists and is an integer where one belongs, so a
  // hostile node is refused before the readers above (which trust their nodes) ever see it.
  auto int_at = [&lp](Listpack::Pos p, int64_t* v) {
    if (p == Listpack::kNone) return false;
    ListpackEntry e = lp.Get(p);
    if (e.is_int) {
      *v = e.num;
      return true;
    }
    return ParseInt64(e.str, v);
  };
  auto skip = [&lp](Listpack::Pos p, int64_t n) {
    for (int64_t i = 0; i < n && p != Listpack::kNone; ++i) p = lp.Next(p);
    return p;
  };
  Listpack::Pos p = lp.First();
  int64_t count, deleted, master_fields, terminator;
  if (!int_at(p, &count)) return false;
  p = lp.Next(p);
  if (!int_at(p, &deleted)) return false;
  p = lp.Next(p);
  if (!int_at(p, &master_fields) || master_fields < 0 ||
      static_cast<uint64_t>(master_fields) > lp.Size()) {
    return false;
  }
  p = skip(lp.Next(p), master_fields);
  if (!int_at(p, &terminator) || terminator != 0) return false;
  p = lp.Next(p);
  const bool have_prev = !nodes_.empty();
  StreamID prev = have_prev ? LastNodeEntryId() : StreamID::Min();
  if (have_prev && master <= prev) return false;
  int64_t live = 0, dead = 0;
  while (p != Listpack::kNone) {
    int64_t flags, ms_diff, seq_diff, fields, lp_count;
    if (!int_at(p, &flags) || flags < 0 || flags > (kFlagDeleted | kFlagSameFields)) return false;
    p = lp.Next(p);
    if (!int_at(p, &ms_diff)) return false;
    p = lp.Next(p);
    if (!int_at(p, &seq_diff)) return false;
    p = lp.Next(p);
    const StreamID id{master.ms + static_cast<uint64_t>(ms_diff),
                      master.seq + static_cast<uint64_t>(seq_diff)};
    if (id < master || ((live + dead > 0 || have_prev) && id <= prev)) return false;
    int64_t elements;
    if ((flags & kFlagSameFields) != 0) {
      fields = master_fields;
      elements = 3 + fields;
      p = skip(p, fields);
    } else {
      if (!int_at(p, &fields) || fields < 0 || static_cast<uint64_t>(fields) > lp.Size()) {
        return false;
      }
      elements = 4 + 2 * fields;
      p = skip(lp.Next(p), 2 * fields);
    }
    if (!int_at(p, &lp_count) || lp_count != elements) return false;
    p = lp.Next(p);
    ((flags & kFlagDeleted) != 0 ? dead : live) += 1;
    prev = id;
  }
  if (live != count || dead != deleted || live == 0) return false;
  nodes_.emplace_back(master, std::move(lp));
  length_ += static_cast<size_t>(live);
  return true;
}

// ---- iteration ----

StreamObject::Iterator::Iterator(const StreamObject& s, StreamID start, StreamID end, bool reverse)
    : s_(s), start_(start), end_(end), reverse_(reverse) {
  if (start > end || s.nodes_.empty()) {
    done_ = true;
    return;
  }
  if (!reverse) {
    node_ = NodeAfter(s.nodes_, start);
    if (node_ != s.nodes_.begin()) --node_;
  } else {
    node_ = NodeAfter(s.nodes_, end);
    if (node_ == s.nodes_.begin()) {
      done_ = true;
      return;
    }
    --node_;
  }
  LoadNode(true);
}

// Positions pos_ at the first (or, reverse, last) entry of node_ and caches its master fields.
bool StreamObject::Iterator::LoadNode(bool /*first*/) {
  const Listpack& lp = node_->second;
  NodeHeader h = ReadHeader(lp);
  master_ = node_->first;
  first_entry_ = h.first_entry;
  master_fields_.clear();
  for (Listpack::Pos f = h.first_field; master_fields_.size() < static_cast<size_t>(h.num_fields);
       f = lp.Next(f)) {
    master_fields_.push_back(lp.Get(f));
  }
  if (!reverse_) {
    pos_ = h.first_entry;
  } else {
    Listpack::Pos last = lp.Last();
    pos_ = last == Listpack::kNone || h.first_entry == Listpack::kNone
               ? Listpack::kNone
               : EntryStartFromEnd(lp, last);
  }
  return pos_ != Listpack::kNone;
}

bool StreamObject::Iterator::Next(StreamEntryView* out) {
  while (!done_) {
    const Listpack& lp = node_->second;
    if (pos_ == Listpack::kNone) {
      // This node is exhausted: on to the next one in the walk's direction.
      if (!reverse_) {
        if (++node_ == s_.nodes_.end() || node_->first > end_) {
          done_ = true;
          return false;
        }
      } else {
        if (node_ == s_.nodes_.begin()) {
          done_ = true;
          return false;
        }
        --node_;
      }
      LoadNode(false);
      continue;
    }
    RawEntry e = ReadEntry(lp, pos_, master_, static_cast<int64_t>(master_fields_.size()));
    if (!reverse_) {
      pos_ = lp.Next(e.lp_count_pos);
      if (e.id > end_) {
        done_ = true;
        return false;
      }
      if (e.deleted() || e.id < start_) continue;
    } else {
      Listpack::Pos before = lp.Prev(e.flags_pos);
      // The element before an entry is either the previous entry's lp-count or the master
      // terminator; the first entry follows the terminator.
      pos_ = e.flags_pos == first_entry_ ? Listpack::kNone : EntryStartFromEnd(lp, before);
      if (e.id < start_) {
        done_ = true;
        return false;
      }
      if (e.deleted() || e.id > end_) continue;
    }
    fields_.clear();
    Listpack::Pos p = e.fields_pos;
    for (int64_t i = 0; i < e.num_fields; ++i) {
      if (e.same_fields()) {
        fields_.push_back(master_fields_[static_cast<size_t>(i)]);
      } else {
        fields_.push_back(lp.Get(p));
        p = lp.Next(p);
      }
      fields_.push_back(lp.Get(p));
      p = lp.Next(p);
    }
    out->id = e.id;
    out->fields = &fields_;
    return true;
  }
  return false;
}

// ---- consumer groups ----

StreamConsumer* StreamGroup::FindConsumer(std::string_view name) const {
  auto it = consumers.find(name);
  return it == consumers.end() ? nullptr : it->second.get();
}

StreamConsumer* StreamGroup::CreateConsumer(std::string_view name, int64_t now_ms, bool* created) {
  auto it = consumers.find(name);
  if (created != nullptr) *created = it == consumers.end();
  if (it != consumers.end()) return it->second.get();
  auto c = std::make_unique<StreamConsumer>();
  c->name = std::string(name);
  c->seen_time = now_ms;
  StreamConsumer* raw = c.get();
  consumers.emplace(raw->name, std::move(c));
  return raw;
}

size_t StreamGroup::DeleteConsumer(std::string_view name) {
  auto it = consumers.find(name);
  if (it == consumers.end()) return 0;
  const size_t pending = it->second->pel.size();
  for (const auto& [id, rec] : it->second->pel) pel.erase(id);
  consumers.erase(it);
  return pending;
}

StreamPending* StreamGroup::AddPending(StreamID id, StreamConsumer* c, int64_t now_ms) {
  auto [it, inserted] = pel.try_emplace(id);
  if (inserted) it->second = std::make_unique<StreamPending>();
  StreamPending* rec = it->second.get();
  if (!inserted && rec->consumer != nullptr) rec->consumer->pel.erase(id);
  rec->consumer = c;
  rec->delivery_time = now_ms;
  rec->delivery_count = 1;
  c->pel[id] = rec;
  return rec;
}

void StreamGroup::MovePending(StreamID id, StreamPending* p, StreamConsumer* c) {
  if (p->consumer == c) return;
  if (p->consumer != nullptr) p->consumer->pel.erase(id);
  p->consumer = c;
  c->pel[id] = p;
}

bool StreamGroup::Ack(StreamID id) {
  auto it = pel.find(id);
  if (it == pel.end()) return false;
  if (it->second->consumer != nullptr) it->second->consumer->pel.erase(id);
  pel.erase(it);
  return true;
}

StreamGroup* StreamObject::FindGroup(std::string_view name) const {
  auto it = groups_.find(name);
  return it == groups_.end() ? nullptr : it->second.get();
}

StreamGroup* StreamObject::CreateGroup(std::string_view name, StreamID last_id,
                                       int64_t entries_read) {
  if (groups_.find(name) != groups_.end()) return nullptr;
  auto g = std::make_unique<StreamGroup>();
  g->last_id = last_id;
  g->entries_read = entries_read;
  StreamGroup* raw = g.get();
  groups_.emplace(std::string(name), std::move(g));
  return raw;
}

bool StreamObject::DestroyGroup(std::string_view name) {
  auto it = groups_.find(name);
  if (it == groups_.end()) return false;
  groups_.erase(it);
  return true;
}

// ---- 7.0's entries-read accounting ----
//
// entries_added counts every entry ever appended, so the n-th entry ever added has the counter
// n. A group's entries_read is the counter of the last entry it read, which tells its lag
// (entries_added - entries_read) without walking the stream, as long as no entry between the
// group's position and the end was deleted by XDEL ("tombstones": max_deleted at or after the
// position). When that cannot be known the counter is re-derived from the stream's ends, or
// given up (kEntriesReadUnknown, lag nil).

bool StreamObject::RangeHasTombstones(StreamID start, StreamID end) const {
  if (length_ == 0 || max_deleted_.IsZero()) return false;
  if (first_id_ > max_deleted_) return false;  // every XDEL hit entries before the first one
  return start <= max_deleted_ && max_deleted_ <= end;
}

int64_t StreamObject::EstimateEntriesRead(StreamID id) const {
  const auto added = static_cast<int64_t>(entries_added_);
  if (entries_added_ == 0) return 0;
  if (length_ == 0 && id <= last_id_) return added;
  if (id == last_id_) return added;
  if (id > last_id_) return StreamGroup::kEntriesReadUnknown;
  // Only below the first entry, or at it, is the counter known, and only with no hole ahead.
  const bool no_holes = max_deleted_.IsZero() || max_deleted_ < first_id_;
  if (no_holes) {
    if (id < first_id_) return added - static_cast<int64_t>(length_);
    if (id == first_id_) return added - static_cast<int64_t>(length_) + 1;
  }
  return StreamGroup::kEntriesReadUnknown;
}

void StreamObject::AdvanceGroup(StreamGroup& g, StreamID id) const {
  if (g.entries_read != StreamGroup::kEntriesReadUnknown &&
      !RangeHasTombstones(id, StreamID::Max())) {
    ++g.entries_read;
  } else if (entries_added_ != 0) {
    g.entries_read = EstimateEntriesRead(id);
  }
  g.last_id = id;
}

std::optional<int64_t> StreamObject::GroupLag(const StreamGroup& g) const {
  const auto added = static_cast<int64_t>(entries_added_);
  if (entries_added_ == 0) return 0;
  if (g.entries_read != StreamGroup::kEntriesReadUnknown &&
      !RangeHasTombstones(g.last_id, StreamID::Max())) {
    return added - g.entries_read;
  }
  const int64_t read = EstimateEntriesRead(g.last_id);
  if (read == StreamGroup::kEntriesReadUnknown) return std::nullopt;
  return added - read;
}

// ---- the TypeOps row ----

StreamObject* StreamObject::Clone() const {
  auto* copy = new StreamObject();
  for (const auto& [master, lp] : nodes_) copy->nodes_.emplace_back(master, lp.Clone());
  copy->length_ = length_;
  copy->last_id_ = last_id_;
  copy->first_id_ = first_id_;
  copy->max_deleted_ = max_deleted_;
  copy->entries_added_ = entries_added_;
  for (const auto& [name, g] : groups_) {
    StreamGroup* ng = copy->CreateGroup(name, g->last_id, g->entries_read);
    for (const auto& [cname, c] : g->consumers) {
      StreamConsumer* nc = ng->CreateConsumer(cname, c->seen_time);
      for (const auto& [id, rec] : c->pel) {
        StreamPending* nr = ng->AddPending(id, nc, rec->delivery_time);
        nr->delivery_count = rec->delivery_count;
      }
    }
  }
  return copy;
}

namespace {

// What one std::map node holding `payload` bytes costs: three pointers and the color before the
// payload, rounded up to 16 as the allocator's small size classes are.
constexpr size_t MapNodeBytes(size_t payload) { return (32 + payload + 15) / 16 * 16; }

}  // namespace

size_t StreamObject::MemoryBytes(size_t samples) const {
  size_t bytes = sizeof(StreamObject);
  size_t seen = 0, node_bytes = 0;
  for (const auto& [master, lp] : nodes_) {
    if (samples != 0 && seen == samples) break;
    node_bytes += sizeof(StreamNodes::value_type) + lp.AllocatedBytes();
    ++seen;
  }
  if (seen != 0) bytes += node_bytes / seen * nodes_.size();
  for (const auto& [name, g] : groups_) {
    bytes +=
        MapNodeBytes(sizeof(std::string) + sizeof(void*)) + name.capacity() +
        AllocationSize(g.get()) +
        g->pel.size() * (MapNodeBytes(sizeof(StreamID) + sizeof(void*)) + sizeof(StreamPending));
    for (const auto& [cname, c] : g->consumers) {
      bytes += MapNodeBytes(sizeof(std::string) + sizeof(void*)) + AllocationSize(c.get()) +
               c->pel.size() * MapNodeBytes(sizeof(StreamID) + sizeof(void*));
    }
  }
  return bytes;
}

namespace {

const StreamObject& S(const void* obj) { return *static_cast<const StreamObject*>(obj); }

void DigestStream(const void* obj, ValueDigest& d) {
  StreamObject::Iterator it(S(obj), StreamID::Min(), StreamID::Max(), false);
  StreamEntryView v;
  char buf[StreamID::kMaxChars];
  char num[kMaxInt64Chars + 1];
  while (it.Next(&v)) {
    // Redis digests an id as "<ms>.<seq>".
    const size_t n = v.id.Format(buf);
    *static_cast<char*>(std::memchr(buf, '-', n)) = '.';
    d.Mix(d.current(), buf, n);
    for (const ListpackEntry& e : *v.fields) {
      if (e.is_int) {
        d.Mix(d.current(), num, FormatInt64(e.num, num));
      } else {
        d.Mix(d.current(), e.str);
      }
    }
  }
}

void WriteMs(RdbWriter& w, int64_t ms) {
  for (int i = 0; i < 8; ++i) w.Byte(static_cast<uint8_t>(static_cast<uint64_t>(ms) >> (8 * i)));
}

void WriteRawId(RdbWriter& w, StreamID id) {
  unsigned char raw[16];
  id.EncodeBE(raw);
  w.out()->append(reinterpret_cast<const char*>(raw), sizeof(raw));
}

// RDB_TYPE_STREAM_LISTPACKS_2 (Redis 7.0; _3 in 7.2's RDB 11, see stream_rdb.cc): the nodes as
// (master id, listpack) strings, the stream's metadata, then each group with its PEL and consumers.
void SerializeStream(const void* obj, RdbWriter& w) {
  const StreamObject& s = S(obj);
  w.Length(s.nodes().size());
  for (const auto& [master, lp] : s.nodes()) {
    unsigned char raw[16];
    master.EncodeBE(raw);
    w.String(std::string_view(reinterpret_cast<const char*>(raw), sizeof(raw)));
    w.String(lp.Blob());
  }
  w.Length(s.length());
  w.Length(s.last_id().ms);
  w.Length(s.last_id().seq);
  w.Length(s.first_id().ms);
  w.Length(s.first_id().seq);
  w.Length(s.max_deleted_id().ms);
  w.Length(s.max_deleted_id().seq);
  w.Length(s.entries_added());
  w.Length(s.groups().size());
  for (const auto& [name, g] : s.groups()) {
    w.String(name);
    w.Length(g->last_id.ms);
    w.Length(g->last_id.seq);
    w.Length(static_cast<uint64_t>(g->entries_read));
    w.Length(g->pel.size());
    for (const auto& [id, rec] : g->pel) {
      WriteRawId(w, id);
      WriteMs(w, rec->delivery_time);
      w.Length(rec->delivery_count);
    }
    w.Length(g->consumers.size());
    for (const auto& [cname, c] : g->consumers) {
      w.String(cname);
      WriteMs(w, c->seen_time);
      // _3's active time (the last successful read or claim, 7.2's split of the seen time):
      // we keep one time per consumer, so both carry it.
      if (w.version() >= kRdbVersion72) WriteMs(w, c->seen_time);
      w.Length(c->pel.size());
      for (const auto& [id, rec] : c->pel) WriteRawId(w, id);
    }
  }
}

}  // namespace

const TypeOps kStreamOps = {
    ValueType::kStream,
    [](const void*) -> const char* { return "stream"; },
    [](void* obj) { delete static_cast<StreamObject*>(obj); },
    [](const void* obj) -> void* { return S(obj).Clone(); },
    [](const void* obj, size_t samples) { return S(obj).MemoryBytes(samples); },
    [](const void* obj) { return S(obj).length(); },
    DigestStream,
    [](const void*, int version) -> uint8_t {
      return version >= kRdbVersion72 ? kRdbStreamListpacks3 : kRdbStreamListpacks2;
    },
    SerializeStream,
    /*keep_when_empty=*/true,
};

}  // namespace redistp
