#include "types/rdb_legacy.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "types/hash.h"
#include "types/list.h"
#include "types/listpack.h"
#include "types/quicklist.h"
#include "types/ziplist.h"
#include "types/zset.h"

namespace redistp {
namespace {

// The listpack holding the entries of ziplist `blob`, or nullopt if the blob is malformed.
// Strings that are canonical integers become integers, as in any listpack.
std::optional<Listpack> ListpackFromZiplist(std::string_view blob) {
  std::vector<ZiplistEntry> entries;
  if (!DecodeZiplist(blob, &entries)) return std::nullopt;
  Listpack lp;
  for (const ZiplistEntry& e : entries) {
    if (e.is_int) {
      lp.AppendInt(e.num);
    } else {
      lp.Append(e.str);
    }
  }
  return lp;
}

// Reads one string from r and converts it as a ziplist; a bad one fails with Redis's words,
// which name the type ("List ziplist integrity check failed.").
Result<Listpack> ReadZiplist(RdbReader& r, const char* type) {
  std::string blob;
  Status st = r.String(&blob);
  if (!st.ok()) return st;
  std::optional<Listpack> lp = ListpackFromZiplist(blob);
  if (!lp) return Status::Error(std::string(type) + " ziplist integrity check failed.");
  return std::move(*lp);
}

// Zipmap (Redis 2.4 and earlier small hashes):
//   <zmlen u8> { <len> field <len> <free u8> value <free unused bytes> } <0xFF>
// zmlen counts the pairs when below 254 (254: count them); a <len> is one byte below 254, or
// 254 followed by a little-endian u32; 255 where a field's <len> would start ends the map.
constexpr uint8_t kZipmapBigLen = 254;
constexpr uint8_t kZipmapEnd = 255;

// Reads a zipmap <len> at *at, advancing it; false if it runs past `size` or is the end mark.
bool ZipmapLength(const uint8_t* zm, size_t size, size_t* at, uint64_t* len) {
  if (*at >= size || zm[*at] == kZipmapEnd) return false;
  if (zm[*at] < kZipmapBigLen) {
    *len = zm[(*at)++];
    return true;
  }
  if (size - *at < 5) return false;
  *len = 0;
  for (int i = 4; i >= 1; --i) *len = (*len << 8) | zm[*at + i];
  *at += 5;
  return true;
}

// Validates zipmap `blob` whole and appends its fields and values to lp. False if the blob is
// malformed.
bool ListpackFromZipmap(std::string_view blob, Listpack* lp) {
  const auto* zm = reinterpret_cast<const uint8_t*>(blob.data());
  const size_t size = blob.size();
  if (size < 2) return false;
  size_t at = 1;
  uint64_t pairs = 0;
  while (at < size && zm[at] != kZipmapEnd) {
    uint64_t flen, vlen;
    if (!ZipmapLength(zm, size, &at, &flen) || size - at < flen) return false;
    const auto* field = reinterpret_cast<const char*>(zm + at);
    at += flen;
    if (!ZipmapLength(zm, size, &at, &vlen) || at >= size) return false;
    const uint64_t free = zm[at++];
    if (size - at < vlen || size - at - vlen < free) return false;
    const auto* value = reinterpret_cast<const char*>(zm + at);
    at += vlen + free;
    lp->Append(std::string_view(field, flen));
    lp->Append(std::string_view(value, vlen));
    ++pairs;
  }
  if (at != size - 1) return false;  // the end mark must be the last byte
  return zm[0] >= kZipmapBigLen || zm[0] == pairs;
}

}  // namespace

Result<Value> LoadListZiplist(RdbReader& r, const TypeLimits& limits) {
  Result<Listpack> lp = ReadZiplist(r, "List");
  if (!lp.ok()) return lp.status();
  if (lp.value().Empty()) return Status::Error(std::string(kRdbEmptyKey));
  Value v = NewListValue(limits);
  ListOf(v).AppendNode(std::move(lp.value()));
  return v;
}

Result<Value> LoadListQuicklist(RdbReader& r, const TypeLimits& limits) {
  uint64_t nodes;
  Status st = r.Length(&nodes);
  if (!st.ok()) return st;
  Value v = NewListValue(limits);
  Quicklist& ql = ListOf(v);
  for (uint64_t i = 0; i < nodes; ++i) {
    std::string blob;
    if (!(st = r.String(&blob)).ok()) return st;
    if (blob.empty()) return Status::Error("empty quicklist node");  // as Redis refuses it
    std::optional<Listpack> lp = ListpackFromZiplist(blob);
    if (!lp) return Status::Error("Ziplist integrity check failed.");
    ql.AppendNode(std::move(*lp));  // an empty node is skipped, as by Redis
  }
  if (ql.Size() == 0) return Status::Error(std::string(kRdbEmptyKey));
  return v;
}

Result<Value> LoadHashZipmap(RdbReader& r, const TypeLimits& limits) {
  std::string blob;
  Status st = r.String(&blob);
  if (!st.ok()) return st;
  Listpack lp;
  // An empty zipmap is refused as malformed (as Redis 7.0 words it), not as an empty key.
  if (!ListpackFromZipmap(blob, &lp) || lp.Empty()) {
    return Status::Error("Zipmap integrity check failed.");
  }
  return HashFromLoadedListpack(std::move(lp), limits, /*check_lengths=*/true, "Zipmap");
}

Result<Value> LoadHashZiplist(RdbReader& r, const TypeLimits& limits) {
  Result<Listpack> lp = ReadZiplist(r, "Hash");
  if (!lp.ok()) return lp.status();
  return HashFromLoadedListpack(std::move(lp.value()), limits, /*check_lengths=*/false,
                                "Hash ziplist");
}

Result<Value> LoadZSetZiplist(RdbReader& r, const TypeLimits& limits) {
  Result<Listpack> lp = ReadZiplist(r, "Zset");
  if (!lp.ok()) return lp.status();
  return ZSetFromLoadedListpack(std::move(lp.value()), limits, "Zset ziplist");
}

}  // namespace redistp
