// A stream read from an RDB file or a DUMP payload (RDB_TYPE_STREAM_LISTPACKS, _2 and _3).
//
// The payload (Redis 7.0's layout, which SerializeStream in stream.cc writes):
//   nodes:     count, then per node its master id (a 16-byte big-endian string) and its
//              listpack (a string, possibly LZF-compressed);
//   metadata:  length, last id; in _2 also the first id, the max deleted id and entries-added;
//   groups:    count, then per group its name, last id (and entries-read in _2), its PEL
//              (count; per entry a raw 16-byte id, an 8-byte little-endian delivery time and a
//              delivery count) and its consumers (count; per consumer its name, an 8-byte seen
//              time, in _3 an 8-byte active time, and the raw ids of its pending entries, each
//              of which must be in the group's PEL and belong to no other consumer).
// _3 is Redis 7.2's (RDB 11): 7.2 split a consumer's time into the last attempt (seen) and the
// last success (active). We keep 7.0's one time, which is the seen time (7.0 moves it on every
// attempt too), so the active time is read and left.
// Everything is checked (StreamObject::AdoptNode checks each node's inside), so a corrupt or
// hostile payload is an error, never a crash. A 6.x payload gets 7.0's metadata derived as Redis
// 7.0 derives it: first id from the entries, entries-added = length, entries-read estimated.
#include <memory>
#include <optional>
#include <string>

#include "types/serialize.h"
#include "types/stream.h"

namespace redistp {
namespace {

Status Corrupt(std::string_view what) {
  return Status::Error("corrupt stream: " + std::string(what));
}

Status ReadId(RdbReader& r, StreamID* id) {
  Status st = r.Length(&id->ms);
  if (st.ok()) st = r.Length(&id->seq);
  return st;
}

Status ReadRawId(RdbReader& r, StreamID* id) {
  std::string_view raw;
  Status st = r.Raw(16, &raw);
  if (st.ok()) *id = StreamID::DecodeBE(reinterpret_cast<const unsigned char*>(raw.data()));
  return st;
}

Status ReadMs(RdbReader& r, int64_t* ms) {
  std::string_view raw;
  Status st = r.Raw(8, &raw);
  if (!st.ok()) return st;
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(raw[i]);
  *ms = static_cast<int64_t>(v);
  return Status::Ok();
}

Status LoadGroups(RdbReader& r, StreamObject& s, int format) {
  const bool v2 = format >= 2;
  uint64_t groups;
  Status st = r.Length(&groups);
  if (!st.ok()) return st;
  for (uint64_t gi = 0; gi < groups; ++gi) {
    std::string name;
    StreamID last;
    if (!(st = r.String(&name)).ok() || !(st = ReadId(r, &last)).ok()) return st;
    int64_t entries_read;
    if (v2) {
      uint64_t raw;
      if (!(st = r.Length(&raw)).ok()) return st;
      entries_read = static_cast<int64_t>(raw);
    } else {
      entries_read = s.EstimateEntriesRead(last);
    }
    StreamGroup* g = s.CreateGroup(name, last, entries_read);
    if (g == nullptr) return Corrupt("duplicate group");
    uint64_t pending;
    if (!(st = r.Length(&pending)).ok()) return st;
    if (pending > r.remaining() / 17) return Corrupt("PEL longer than the payload");
    for (uint64_t i = 0; i < pending; ++i) {
      StreamID id;
      auto rec = std::make_unique<StreamPending>();
      if (!(st = ReadRawId(r, &id)).ok() || !(st = ReadMs(r, &rec->delivery_time)).ok() ||
          !(st = r.Length(&rec->delivery_count)).ok()) {
        return st;
      }
      if (!g->pel.emplace(id, std::move(rec)).second) return Corrupt("duplicate PEL entry");
    }
    uint64_t consumers;
    if (!(st = r.Length(&consumers)).ok()) return st;
    for (uint64_t ci = 0; ci < consumers; ++ci) {
      std::string cname;
      int64_t seen;
      if (!(st = r.String(&cname)).ok() || !(st = ReadMs(r, &seen)).ok()) return st;
      int64_t active;
      if (format >= 3 && !(st = ReadMs(r, &active)).ok()) return st;
      bool created = false;
      StreamConsumer* c = g->CreateConsumer(cname, seen, &created);
      if (!created) return Corrupt("Duplicate stream consumer detected.");
      uint64_t owned;
      if (!(st = r.Length(&owned)).ok()) return st;
      if (owned > r.remaining() / 16) return Corrupt("consumer PEL longer than the payload");
      for (uint64_t i = 0; i < owned; ++i) {
        StreamID id;
        if (!(st = ReadRawId(r, &id)).ok()) return st;
        auto it = g->pel.find(id);
        if (it == g->pel.end() || it->second->consumer != nullptr) {
          return Corrupt("consumer PEL entry not in the group's PEL");
        }
        it->second->consumer = c;
        c->pel.emplace(id, it->second.get());
      }
    }
    for (const auto& [id, rec] : g->pel) {
      if (rec->consumer == nullptr) return Corrupt("PEL entry without a consumer");
    }
  }
  return Status::Ok();
}

// `format` is the layout's number: 1 (_LISTPACKS), 2 (_2) or 3 (_3).
Result<Value> Load(RdbReader& r, int format) {
  const bool v2 = format >= 2;
  auto* obj = new StreamObject();
  Value v = Value::Object(ValueType::kStream, obj);  // frees the object on every error path
  uint64_t nodes;
  Status st = r.Length(&nodes);
  if (!st.ok()) return st;
  for (uint64_t i = 0; i < nodes; ++i) {
    std::string key, blob;
    if (!(st = r.String(&key)).ok() || !(st = r.String(&blob)).ok()) return st;
    if (key.size() != 16) return Corrupt("Stream node key entry is not the size of a stream ID");
    std::optional<Listpack> lp = Listpack::FromBlob(blob);
    if (!lp) return Corrupt("Stream listpack integrity check failed.");
    if (lp->Empty()) return Corrupt("Empty listpack inside stream");
    StreamID master = StreamID::DecodeBE(reinterpret_cast<const unsigned char*>(key.data()));
    // A node whose entries do not walk (bad counts, flags, ids or lengths inside the listpack)
    // is a listpack integrity failure in Redis 7.0's words, the line operators grep for.
    if (!obj->AdoptNode(master, std::move(*lp))) {
      return Corrupt("Stream listpack integrity check failed.");
    }
  }
  uint64_t length;
  StreamID last;
  if (!(st = r.Length(&length)).ok() || !(st = ReadId(r, &last)).ok()) return st;
  if (length != obj->length()) return Corrupt("Stream length inconsistent with rax entries");
  if (obj->node_count() != 0 && last < obj->LastNodeEntryId()) {
    return Corrupt("last id below the last entry");
  }
  obj->set_last_id(last);
  StreamObject::Iterator first(*obj, StreamID::Min(), StreamID::Max(), false);
  StreamEntryView entry;
  obj->set_first_id(first.Next(&entry) ? entry.id : StreamID::Min());
  if (v2) {
    StreamID first_id, max_deleted;
    uint64_t added;
    if (!(st = ReadId(r, &first_id)).ok() || !(st = ReadId(r, &max_deleted)).ok() ||
        !(st = r.Length(&added)).ok()) {
      return st;
    }
    obj->set_first_id(first_id);
    obj->set_max_deleted_id(max_deleted);
    obj->set_entries_added(added);
  } else {
    obj->set_entries_added(length);
  }
  st = LoadGroups(r, *obj, format);
  if (!st.ok()) return st;
  return v;  // an empty stream is a key like any other (XADD then XDEL leaves one)
}

}  // namespace

Result<Value> LoadStreamListpacks(RdbReader& r, const TypeLimits& /*limits*/) { return Load(r, 1); }

Result<Value> LoadStreamListpacks2(RdbReader& r, const TypeLimits& /*limits*/) {
  return Load(r, 2);
}

Result<Value> LoadStreamListpacks3(RdbReader& r, const TypeLimits& /*limits*/) {
  return Load(r, 3);
}

}  // namespace redistp
