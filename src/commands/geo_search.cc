// Geo commands, part two: area searches.
//
//   GEORADIUS key lon lat radius unit [WITH*] [COUNT n [ANY]] [ASC|DESC] [STORE k] [STOREDIST k]
//   GEORADIUSBYMEMBER key member radius unit [same options]
//   GEORADIUS_RO / GEORADIUSBYMEMBER_RO   the same without STORE/STOREDIST
//   GEOSEARCH key FROMMEMBER m | FROMLONLAT lon lat  BYRADIUS r unit | BYBOX w h unit
//             [ASC|DESC] [COUNT n [ANY]] [WITHCOORD] [WITHDIST] [WITHHASH]
//   GEOSEARCHSTORE dest src <GEOSEARCH's from/by/order/count> [STOREDIST]
//
// All six share one parser and one search, as in Redis 7.0, and the order of its checks is part
// of the behaviour: the source key's type first (WRONGTYPE); then the fixed arguments of the
// GEORADIUS forms (centre, then radius and unit); then the options left to right, each failing
// at once (a bad float, a bad unit, COUNT not an integer or not positive, a member FROMMEMBER
// or GEORADIUSBYMEMBER cannot find, an unknown or misplaced word as "syntax error"); then STORE
// with a WITH* option, a missing FROM*, a missing BY*, ANY without COUNT. A missing source key
// skips whatever needed it (the member of GEORADIUSBYMEMBER and its radius are not even parsed)
// and answers an empty array, or 0 after deleting the destination of a STORE form.
//
// The search (geohash.h's SearchCells): the nine cells, each one score interval of the set,
// walked in ascending score order; a member counts if it is inside the shape, and with COUNT ANY
// the walk stops as soon as that many were found. The results stay in that order unless ASC or
// DESC (COUNT without ANY implies ASC) sorts them by distance; the sort keeps the walk's order
// among equal distances. Then COUNT cuts the list. Redis sorts a cut list with a partial
// quicksort, so among members at exactly the same distance it may pick and order them
// differently; every other result equals Redis's.
//
// STORE/STOREDIST/GEOSEARCHSTORE write the results into a new sorted set (scores the geohashes,
// or the distances in the asked unit) that replaces the destination whatever it held (its TTL
// too), announced as "georadiusstore" / "geosearchstore"; no result deletes the destination
// ("del"). The store reads everything it needs before it writes, so the destination may be the
// source.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/geo_util.h"
#include "commands/lookup.h"
#include "commands/register.h"
#include "commands/zset_util.h"
#include "db/database.h"
#include "protocol/errors.h"
#include "server/server.h"
#include "types/geohash.h"
#include "types/zset.h"
#include "util/numbers.h"

namespace redistp {
namespace {

enum SearchKind : unsigned {
  kByCoords = 1 << 0,     // GEORADIUS, GEORADIUS_RO
  kByMember = 1 << 1,     // GEORADIUSBYMEMBER, GEORADIUSBYMEMBER_RO
  kNoStore = 1 << 2,      // the _RO forms
  kSearch = 1 << 3,       // GEOSEARCH, GEOSEARCHSTORE
  kSearchStore = 1 << 4,  // GEOSEARCHSTORE
};

enum class Order : uint8_t { kNone, kAsc, kDesc };

struct SearchRequest {
  geo::Shape shape;
  Order order = Order::kNone;
  bool any = false;
  int64_t count = 0;  // 0: no limit
  bool with_dist = false, with_hash = false, with_coord = false;
  std::optional<std::string_view> store_key;
  bool store_dist = false;
};

// One member found inside the shape (a copy: a listpack walk formats integer members into a
// buffer that lives for one call).
struct Found {
  std::string member;
  double score;
  double dist;  // metres while searching, then in the asked unit
  geo::Point pos;
};

// The position of `member` in z, or nullopt.
std::optional<geo::Point> MemberPosition(ZSetObject& z, std::string_view member) {
  std::optional<double> s = z.Score(member);
  if (!s) return std::nullopt;
  return geo::DecodeScore(*s);
}

// A radius and its unit at args[i], args[i + 1]; replies the error and returns false if bad.
bool ParseRadiusOrReply(CommandContext& c, size_t i, geo::Shape* shape) {
  double r;
  if (!ParseScore(c.args[i], &r)) {
    c.reply.Error(err::kGeoNeedRadius);
    return false;
  }
  if (r < 0) {
    c.reply.Error(err::kGeoNegativeRadius);
    return false;
  }
  if (!ParseGeoUnit(c.args[i + 1], &shape->to_m)) {
    c.reply.Error(err::kGeoUnit);
    return false;
  }
  shape->radius = r;
  shape->box = false;
  return true;
}

// A box's width, height and unit at args[i..i+2].
bool ParseBoxOrReply(CommandContext& c, size_t i, geo::Shape* shape) {
  double w, h;
  if (!ParseScore(c.args[i], &w)) {
    c.reply.Error(err::kGeoNeedWidth);
    return false;
  }
  if (!ParseScore(c.args[i + 1], &h)) {
    c.reply.Error(err::kGeoNeedHeight);
    return false;
  }
  if (h < 0 || w < 0) {
    c.reply.Error(err::kGeoNegativeBox);
    return false;
  }
  if (!ParseGeoUnit(c.args[i + 2], &shape->to_m)) {
    c.reply.Error(err::kGeoUnit);
    return false;
  }
  shape->width = w;
  shape->height = h;
  shape->box = true;
  return true;
}

// Parses everything after the source lookup (see the file comment for the order of checks).
// `z` is the source set or nullptr. Replies the error and returns false when the command fails.
bool ParseSearch(CommandContext& c, unsigned kind, ZSetObject* z, SearchRequest* req) {
  const std::vector<std::string_view>& args = c.args;
  size_t base;
  if (kind & kByCoords) {
    base = 6;
    if (!ParseLonLatOrReply(c, args[2], args[3], &req->shape.centre.lon, &req->shape.centre.lat)) {
      return false;
    }
    if (!ParseRadiusOrReply(c, 4, &req->shape)) return false;
  } else if (kind & kByMember) {
    base = 5;
    if (z != nullptr) {
      std::optional<geo::Point> p = MemberPosition(*z, args[2]);
      if (!p) {
        c.reply.Error(err::kGeoMemberNotFound);
        return false;
      }
      req->shape.centre = *p;
      if (!ParseRadiusOrReply(c, 3, &req->shape)) return false;
    }
  } else {
    base = 2;
    if (kind & kSearchStore) {
      base = 3;
      req->store_key = args[1];
    }
  }

  const bool search = kind & kSearch;
  const bool may_store = !(kind & kNoStore) && !search;
  bool from_member = false, from_lonlat = false, by_radius = false, by_box = false;
  for (size_t i = base; i < args.size(); ++i) {
    const std::string_view a = args[i];
    const size_t left = args.size() - i - 1;  // arguments after this one
    if (EqualsIgnoreCase(a, "withdist")) {
      req->with_dist = true;
    } else if (EqualsIgnoreCase(a, "withhash")) {
      req->with_hash = true;
    } else if (EqualsIgnoreCase(a, "withcoord")) {
      req->with_coord = true;
    } else if (EqualsIgnoreCase(a, "any")) {
      req->any = true;
    } else if (EqualsIgnoreCase(a, "asc")) {
      req->order = Order::kAsc;
    } else if (EqualsIgnoreCase(a, "desc")) {
      req->order = Order::kDesc;
    } else if (EqualsIgnoreCase(a, "count") && left >= 1) {
      if (!ParseInt64(args[i + 1], &req->count)) {
        c.reply.Error(err::kNotInteger);
        return false;
      }
      if (req->count <= 0) {
        c.reply.Error(err::kGeoCountNotPositive);
        return false;
      }
      ++i;
    } else if ((EqualsIgnoreCase(a, "store") || EqualsIgnoreCase(a, "storedist")) && left >= 1 &&
               may_store) {
      req->store_key = args[i + 1];
      req->store_dist = a.size() == 9;
      ++i;
    } else if (EqualsIgnoreCase(a, "storedist") && (kind & kSearchStore)) {
      req->store_dist = true;
    } else if (EqualsIgnoreCase(a, "frommember") && left >= 1 && search && !from_lonlat) {
      if (z != nullptr) {
        std::optional<geo::Point> p = MemberPosition(*z, args[i + 1]);
        if (!p) {
          c.reply.Error(err::kGeoMemberNotFound);
          return false;
        }
        req->shape.centre = *p;
      }
      from_member = true;
      ++i;
    } else if (EqualsIgnoreCase(a, "fromlonlat") && left >= 2 && search && !from_member) {
      if (!ParseLonLatOrReply(c, args[i + 1], args[i + 2], &req->shape.centre.lon,
                              &req->shape.centre.lat)) {
        return false;
      }
      from_lonlat = true;
      i += 2;
    } else if (EqualsIgnoreCase(a, "byradius") && left >= 2 && search && !by_box) {
      if (!ParseRadiusOrReply(c, i + 1, &req->shape)) return false;
      by_radius = true;
      i += 2;
    } else if (EqualsIgnoreCase(a, "bybox") && left >= 3 && search && !by_radius) {
      if (!ParseBoxOrReply(c, i + 1, &req->shape)) return false;
      by_box = true;
      i += 3;
    } else {
      c.reply.Error(err::kSyntax);
      return false;
    }
  }

  if (req->store_key && (req->with_dist || req->with_hash || req->with_coord)) {
    c.reply.Error((kind & kSearchStore) ? err::kGeoSearchStoreWith : err::kGeoRadiusStoreWith);
    return false;
  }
  if (search && !from_member && !from_lonlat) {
    c.reply.Error(err::GeoNeedFrom(err::UpToNul(args[0])));
    return false;
  }
  if (search && !by_radius && !by_box) {
    c.reply.Error(err::GeoNeedBy(err::UpToNul(args[0])));
    return false;
  }
  if (req->any && req->count == 0) {
    c.reply.Error(err::kGeoAnyNeedsCount);
    return false;
  }
  return true;
}

// Appends to *out the members of z inside the shape, cell by cell (see the file comment);
// `limit` > 0 stops after that many.
void CollectMembers(const ZSetObject& z, const geo::Shape& shape, size_t limit,
                    std::vector<Found>* out) {
  const std::array<geo::Hash, 9> cells = geo::SearchCells(shape);
  size_t last = 0;  // index of the last cell searched, 0 before any but the centre
  for (size_t i = 0; i < cells.size(); ++i) {
    const geo::Hash& cell = cells[i];
    if (cell.none()) continue;
    // A huge radius makes neighbours coincide; a cell equal to the last one searched is skipped
    // (the centre is never compared, as in Redis).
    if (last != 0 && cell.bits == cells[last].bits && cell.step == cells[last].step) continue;
    if (limit != 0 && out->size() >= limit) break;
    const ScoreRange range{static_cast<double>(geo::CellMinScore(cell)),
                           static_cast<double>(geo::CellMaxScore(cell)), false, true};
    auto visit = [&](std::string_view member, double score) {
      geo::Point p = geo::DecodeScore(score);
      double dist;
      if (geo::Contains(shape, p, &dist)) out->push_back({std::string(member), score, dist, p});
    };
    if (limit == 0) {
      z.WalkRange(range, false, 0, -1, visit);
    } else {
      // Walk in slices no longer than the results still wanted, so the walk stops right after
      // the member that completes the count.
      size_t offset = 0;
      while (out->size() < limit) {
        const size_t want = limit - out->size();
        const size_t visited = z.WalkRange(range, false, offset, static_cast<int64_t>(want), visit);
        offset += visited;
        if (visited < want) break;
      }
    }
    last = i;
  }
}

// The reply of a search without STORE.
void ReplyResults(ReplyBuilder& reply, const SearchRequest& req, const std::vector<Found>& found,
                  size_t n) {
  const size_t extras = size_t{req.with_dist} + req.with_hash + req.with_coord;
  reply.Array(n);
  for (size_t i = 0; i < n; ++i) {
    const Found& f = found[i];
    if (extras > 0) reply.Array(extras + 1);
    reply.Bulk(f.member);
    if (req.with_dist) ReplyGeoDistance(reply, f.dist);
    if (req.with_hash) reply.Int(static_cast<int64_t>(f.score));
    if (req.with_coord) {
      reply.Array(2);
      ReplyGeoCoordinate(reply, f.pos.lon);
      ReplyGeoCoordinate(reply, f.pos.lat);
    }
  }
}

// Replaces the destination with the first n results, or deletes it when there are none.
void StoreResults(CommandContext& c, unsigned kind, const SearchRequest& req,
                  const std::vector<Found>& found, size_t n) {
  const std::string_view dest = *req.store_key;
  if (n == 0) {
    if (Entry* e = c.db.LookupWrite(dest)) c.db.Remove(e);
    c.reply.Int(0);
    return;
  }
  const TypeLimits& limits = c.server.keyspace().limits;
  Value v = NewZSetValue(found[0].member, limits);
  ZSetObject& z = ZSetOf(v);
  for (size_t i = 0; i < n; ++i) {
    z.Add(found[i].member, req.store_dist ? found[i].dist : found[i].score, limits);
  }
  // The new set is complete before the old value goes, so the source may be the destination.
  c.db.Upsert(dest, std::move(v), false,
              (kind & kSearch) ? notice::kGeoSearchStore : notice::kGeoRadiusStore);
  c.reply.Int(static_cast<int64_t>(n));
}

void GeoSearchGeneric(CommandContext& c, size_t src_index, unsigned kind) {
  Entry* e;
  if (!LookupTyped(c, c.args[src_index], ValueType::kZSet, Access::kRead, &e)) return;
  ZSetObject* z = e == nullptr ? nullptr : &ZSetOf(e->value);
  SearchRequest req;
  if (!ParseSearch(c, kind, z, &req)) return;
  if (z == nullptr) {
    if (req.store_key) {
      if (Entry* d = c.db.LookupWrite(*req.store_key)) c.db.Remove(d);
      c.reply.Int(0);
    } else {
      c.reply.EmptyArray();
    }
    return;
  }
  // COUNT alone asks for the nearest ones.
  if (req.count != 0 && req.order == Order::kNone && !req.any) req.order = Order::kAsc;

  std::vector<Found> found;
  CollectMembers(*z, req.shape, req.any ? static_cast<size_t>(req.count) : 0, &found);
  if (found.empty() && !req.store_key) {
    c.reply.EmptyArray();
    return;
  }
  if (req.order == Order::kAsc) {
    std::stable_sort(found.begin(), found.end(),
                     [](const Found& a, const Found& b) { return a.dist < b.dist; });
  } else if (req.order == Order::kDesc) {
    std::stable_sort(found.begin(), found.end(),
                     [](const Found& a, const Found& b) { return a.dist > b.dist; });
  }
  const size_t n = req.count == 0 || found.size() < static_cast<size_t>(req.count)
                       ? found.size()
                       : static_cast<size_t>(req.count);
  for (size_t i = 0; i < n; ++i) found[i].dist /= req.shape.to_m;
  if (req.store_key) {
    StoreResults(c, kind, req, found, n);
  } else {
    ReplyResults(c.reply, req, found, n);
  }
}

void GeoRadiusCommand(CommandContext& c) { GeoSearchGeneric(c, 1, kByCoords); }
void GeoRadiusRoCommand(CommandContext& c) { GeoSearchGeneric(c, 1, kByCoords | kNoStore); }
void GeoRadiusByMemberCommand(CommandContext& c) { GeoSearchGeneric(c, 1, kByMember); }
void GeoRadiusByMemberRoCommand(CommandContext& c) { GeoSearchGeneric(c, 1, kByMember | kNoStore); }
void GeoSearchCommand(CommandContext& c) { GeoSearchGeneric(c, 1, kSearch); }
void GeoSearchStoreCommand(CommandContext& c) { GeoSearchGeneric(c, 2, kSearch | kSearchStore); }

}  // namespace

using docs::Block;
using docs::Double;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

namespace {

ArgDoc Unit() {
  return OneOf("unit", {PureToken("M"), PureToken("KM"), PureToken("FT"), PureToken("MI")});
}
ArgDoc OrderArg() { return OneOf("order", {PureToken("ASC"), PureToken("DESC")}).Optional(); }
ArgDoc CountBlock(bool any_since_62) {
  ArgDoc any = PureToken("ANY").Optional();
  if (any_since_62) any = std::move(any).Since("6.2.0");
  return Block("count", {Integer("count").Token("COUNT"), std::move(any)}).Optional();
}
std::vector<ArgDoc> WithFlags() {
  return {PureToken("WITHCOORD").Optional(), PureToken("WITHDIST").Optional(),
          PureToken("WITHHASH").Optional()};
}
// The GEORADIUS forms' arguments: centre (a point or a member), radius, unit, options.
std::vector<ArgDoc> RadiusArgs(bool by_member, bool any_since_62, bool store) {
  std::vector<ArgDoc> a = {Key("key", 0)};
  if (by_member) {
    a.push_back(String("member"));
  } else {
    a.push_back(Double("longitude"));
    a.push_back(Double("latitude"));
  }
  a.push_back(Double("radius"));
  a.push_back(Unit());
  for (ArgDoc& w : WithFlags()) a.push_back(std::move(w));
  a.push_back(CountBlock(any_since_62));
  a.push_back(OrderArg());
  if (store) {
    a.push_back(Key("key", 1).Token("STORE").Optional());
    a.push_back(Key("key", 2).Token("STOREDIST").Optional());
  }
  return a;
}
// GEOSEARCH's from/by/order/count part.
std::vector<ArgDoc> SearchArgs() {
  return {OneOf("from", {String("member").Token("FROMMEMBER"),
                         Block("longitude_latitude", {Double("longitude"), Double("latitude")})
                             .Token("FROMLONLAT")}),
          OneOf("by", {Block("circle", {Double("radius").Token("BYRADIUS"), Unit()}),
                       Block("box", {Double("width").Token("BYBOX"), Double("height"), Unit()})}),
          OrderArg(), CountBlock(false)};
}

constexpr std::string_view kRadiusComplexity =
    "O(N+log(M)) where N is the number of elements inside the bounding box of the circular area "
    "delimited by center and radius and M is the number of items inside the index.";
constexpr std::string_view kSearchComplexity =
    "O(N+log(M)) where N is the number of elements in the grid-aligned bounding box area around "
    "the shape provided as the filter and M is the number of items inside the shape";

// GEORADIUS and GEORADIUSBYMEMBER: a read key, then STORE and STOREDIST destinations found by
// keyword from the first optional argument on.
// GEORADIUS's and GEORADIUSBYMEMBER's key procedure, as Redis's: the source, and of the STORE
// and STOREDIST destinations (searched from argument 5 on) only the last one, which is the one
// the command writes.
std::vector<KeyRef> GeoRadiusKeys(const std::vector<std::string_view>& args) {
  std::vector<KeyRef> keys;
  const int argc = static_cast<int>(args.size());
  if (argc < 2) return keys;
  keys.push_back({1, kKeyRO | kKeyAccess});
  int stored = -1;
  for (int i = 5; i + 1 < argc; ++i) {
    const std::string_view a = args[static_cast<size_t>(i)];
    if (EqualsIgnoreCase(a, "store") || EqualsIgnoreCase(a, "storedist")) stored = ++i;
  }
  if (stored > 0) keys.push_back({stored, kKeyOW | kKeyUpdate});
  return keys;
}

std::vector<KeySpec> StoreKeySpecs(int options_from) {
  return {{.flags = kKeyRO | kKeyAccess, .index = 1},
          {.flags = kKeyOW | kKeyUpdate,
           .begin = KeyBegin::kKeyword,
           .keyword = "STORE",
           .start_from = options_from},
          {.flags = kKeyOW | kKeyUpdate,
           .begin = KeyBegin::kKeyword,
           .keyword = "STOREDIST",
           .start_from = options_from}};
}

}  // namespace

void RegisterGeoSearchCommands(CommandTable& t) {
  constexpr uint64_t kWriteAcl = kAclWrite | kAclGeo | kAclSlow;
  constexpr uint64_t kReadAcl = kAclRead | kAclGeo | kAclSlow;
  const KeySpec ro_access{.flags = kKeyRO | kKeyAccess, .index = 1};
  const HistoryEntry upper_units{"7.0.0", "Unit names accepted in upper case."};
  t.Register({.name = "georadius",
              .arity = -6,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteAcl,
              .doc = {.summary = "Finds the points of a geospatial index within a distance of a "
                                 "position, optionally storing them",
                      .since = "3.2.0",
                      .group = "geo",
                      .complexity = kRadiusComplexity,
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` "
                                     "argument",
                      .history = {{"6.2.0", "The `ANY` option of `COUNT`."}, upper_units},
                      .key_specs = StoreKeySpecs(6),
                      .find_keys = GeoRadiusKeys,
                      .args = RadiusArgs(false, true, true)},
              .handler = GeoRadiusCommand});
  t.Register({.name = "georadiusbymember",
              .arity = -5,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kWriteAcl,
              .doc = {.summary = "Finds the points of a geospatial index within a distance of one "
                                 "of its members, optionally storing them",
                      .since = "3.2.0",
                      .group = "geo",
                      .complexity = kRadiusComplexity,
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`GEOSEARCH` and `GEOSEARCHSTORE` with the `BYRADIUS` and "
                                     "`FROMMEMBER` arguments",
                      .history = {upper_units},
                      .key_specs = StoreKeySpecs(5),
                      .find_keys = GeoRadiusKeys,
                      .args = RadiusArgs(true, false, true)},
              .handler = GeoRadiusByMemberCommand});
  t.Register({.name = "georadius_ro",
              .arity = -6,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "The read-only form of GEORADIUS",
                      .since = "3.2.10",
                      .group = "geo",
                      .complexity = kRadiusComplexity,
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`GEOSEARCH` with the `BYRADIUS` argument",
                      .history = {{"6.2.0", "The `ANY` option of `COUNT`."}},
                      .key_specs = {ro_access},
                      .args = RadiusArgs(false, true, false)},
              .handler = GeoRadiusRoCommand});
  t.Register({.name = "georadiusbymember_ro",
              .arity = -5,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "The read-only form of GEORADIUSBYMEMBER",
                      .since = "3.2.10",
                      .group = "geo",
                      .complexity = kRadiusComplexity,
                      .doc_flags = kDocDeprecated,
                      .deprecated_since = "6.2.0",
                      .replaced_by = "`GEOSEARCH` with the `BYRADIUS` and `FROMMEMBER` arguments",
                      .key_specs = {ro_access},
                      .args = RadiusArgs(true, false, false)},
              .handler = GeoRadiusByMemberRoCommand});

  std::vector<ArgDoc> search_args = {Key("key", 0)};
  for (ArgDoc& a : SearchArgs()) search_args.push_back(std::move(a));
  for (ArgDoc& w : WithFlags()) search_args.push_back(std::move(w));
  t.Register({.name = "geosearch",
              .arity = -7,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Finds the points of a geospatial index inside a circle or a box",
                      .since = "6.2.0",
                      .group = "geo",
                      .complexity = kSearchComplexity,
                      .history = {upper_units},
                      .key_specs = {ro_access},
                      .args = std::move(search_args)},
              .handler = GeoSearchCommand});
  std::vector<ArgDoc> store_args = {Key("destination", 0), Key("source", 1)};
  for (ArgDoc& a : SearchArgs()) store_args.push_back(std::move(a));
  store_args.push_back(PureToken("STOREDIST").Optional());
  t.Register({.name = "geosearchstore",
              .arity = -8,
              .flags = kCmdWrite | kCmdDenyOom,
              .first_key = 1,
              .last_key = 2,
              .key_step = 1,
              .acl = kWriteAcl,
              .doc = {.summary = "Finds the points of a geospatial index inside a circle or a "
                                 "box and stores them in a sorted set",
                      .since = "6.2.0",
                      .group = "geo",
                      .complexity = kSearchComplexity,
                      .history = {upper_units},
                      .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1},
                                    {.flags = kKeyRO | kKeyAccess, .index = 2}},
                      .args = std::move(store_args)},
              .handler = GeoSearchStoreCommand});
}

}  // namespace redistp
