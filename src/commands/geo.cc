// Geo commands, part one: adding points and reading them back.
//
//   GEOADD key [NX|XX] [CH] longitude latitude member [longitude latitude member ...]
//   GEODIST key member1 member2 [M|KM|FT|MI]
//   GEOHASH key [member ...]        GEOPOS key [member ...]
//
// A geo set is a sorted set whose scores are the points' 52-bit geohashes (types/geohash.h), so
// every sorted-set command works on it and its encoding (listpack or skiplist) is the zset's.
//
// GEOADD (Redis 7.0's model): the options NX, XX and CH in any order and number come first;
// what follows must be whole triples, and NX with XX is a syntax error too. Every coordinate is
// checked before anything changes, in argument order (a bad float first for each triple, then its
// range). Then the triples are a ZADD of (geohash, member) pairs: NX leaves existing members, XX
// adds none, and the reply counts the added members, plus the moved ones with CH. Like Redis,
// the write is announced as "zadd" and replicated as the ZADD it amounts to (the options as
// given, each score as its integer). No triple at all (only options) answers like ZADD with no
// pairs: a syntax error.
//
// The readers answer nil for a missing member (GEOPOS a null array, as Redis does) and treat a
// missing key as an empty set.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
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

bool ParseGeoUnit(std::string_view unit, double* to_m) {
  if (EqualsIgnoreCase(unit, "m")) {
    *to_m = 1;
  } else if (EqualsIgnoreCase(unit, "km")) {
    *to_m = 1000;
  } else if (EqualsIgnoreCase(unit, "ft")) {
    *to_m = 0.3048;
  } else if (EqualsIgnoreCase(unit, "mi")) {
    *to_m = 1609.34;
  } else {
    return false;
  }
  return true;
}

bool ParseLonLatOrReply(CommandContext& c, std::string_view lon_text, std::string_view lat_text,
                        double* lon, double* lat) {
  if (!ParseScore(lon_text, lon) || !ParseScore(lat_text, lat)) {
    c.reply.Error(err::kNotFloat);
    return false;
  }
  if (!geo::ValidPoint(*lon, *lat)) {
    c.reply.Error(err::GeoInvalidPair(*lon, *lat));
    return false;
  }
  return true;
}

void ReplyGeoDistance(ReplyBuilder& reply, double value) {
  char buf[48];
  size_t n;
  if (value == 0) {
    n = static_cast<size_t>(std::snprintf(buf, sizeof(buf), "0.0000"));
  } else {
    // Fixed point with four decimals: the value scaled and rounded once, then printed as an
    // integer part and a zero-padded fraction.
    long long scaled = std::llrint(value * 10000);
    const bool negative = scaled < 0;
    unsigned long long mag = negative ? 0ULL - static_cast<unsigned long long>(scaled)
                                      : static_cast<unsigned long long>(scaled);
    n = static_cast<size_t>(std::snprintf(buf, sizeof(buf), "%s%llu.%04llu", negative ? "-" : "",
                                          mag / 10000, mag % 10000));
  }
  reply.Bulk(std::string_view(buf, n));
}

void ReplyGeoCoordinate(ReplyBuilder& reply, double value) {
  char buf[400];
  int len = std::snprintf(buf, sizeof(buf), "%.17f", value);
  size_t n = len > 0 && static_cast<size_t>(len) < sizeof(buf) ? static_cast<size_t>(len) : 0;
  std::string_view text(buf, n);
  if (text.find('.') != std::string_view::npos) {
    while (!text.empty() && text.back() == '0') text.remove_suffix(1);
    if (!text.empty() && text.back() == '.') text.remove_suffix(1);
  }
  if (text == "-0") text = "0";
  if (reply.resp() >= 3) {
    std::string frame;
    frame.reserve(text.size() + 3);
    frame.append(",").append(text).append("\r\n");
    reply.Raw(frame);
  } else {
    reply.Bulk(text);
  }
}

namespace {

enum GeoAddFlag : unsigned { kGeoAddNx = 1, kGeoAddXx = 2, kGeoAddCh = 4 };

void GeoAddCommand(CommandContext& c) {
  const std::vector<std::string_view>& args = c.args;
  unsigned flags = 0;
  size_t first = 2;
  for (; first < args.size(); ++first) {
    if (EqualsIgnoreCase(args[first], "nx")) {
      flags |= kGeoAddNx;
    } else if (EqualsIgnoreCase(args[first], "xx")) {
      flags |= kGeoAddXx;
    } else if (EqualsIgnoreCase(args[first], "ch")) {
      flags |= kGeoAddCh;
    } else {
      break;
    }
  }
  const size_t triples = (args.size() - first) / 3;
  if ((args.size() - first) % 3 != 0 || triples == 0 ||
      ((flags & kGeoAddNx) && (flags & kGeoAddXx))) {
    c.reply.Error(err::kSyntax);
    return;
  }
  std::vector<uint64_t> scores(triples);
  for (size_t j = 0; j < triples; ++j) {
    double lon, lat;
    if (!ParseLonLatOrReply(c, args[first + 3 * j], args[first + 3 * j + 1], &lon, &lat)) return;
    scores[j] = geo::EncodeScore(lon, lat);
  }

  Entry* e;
  if (!LookupTyped(c, args[1], ValueType::kZSet, Access::kWrite, &e)) return;
  const TypeLimits& limits = c.server.keyspace().limits;
  size_t added = 0, updated = 0;
  auto apply = [&](ZSetObject& z) {
    for (size_t j = 0; j < triples; ++j) {
      const auto score = static_cast<double>(scores[j]);
      z.Upsert(args[first + 3 * j + 2], limits,
               [&](const double* current) -> std::optional<double> {
                 if (current == nullptr) {
                   if (flags & kGeoAddXx) return std::nullopt;
                   ++added;
                   return score;
                 }
                 if ((flags & kGeoAddNx) || *current == score) return std::nullopt;
                 ++updated;
                 return score;
               });
    }
  };
  if (e == nullptr) {
    if (!(flags & kGeoAddXx)) {
      Value v = NewZSetValue(args[first + 2], limits);
      apply(ZSetOf(v));
      c.db.Add(args[1], std::move(v), notice::kZAdd);
    }
  } else {
    Mutation m = c.db.Mutate(e, notice::kZAdd);
    apply(ZSetOf(m.value()));
    if (added + updated == 0) m.Abandon();
  }
  // Replicas and the AOF see the ZADD this amounts to.
  std::vector<std::string> argv;
  argv.reserve(first + 2 * triples);
  argv.emplace_back("zadd");
  for (size_t i = 1; i < first; ++i) argv.emplace_back(args[i]);
  for (size_t j = 0; j < triples; ++j) {
    argv.push_back(std::to_string(scores[j]));
    argv.emplace_back(args[first + 3 * j + 2]);
  }
  c.ReplicateAs(std::move(argv));
  c.reply.Int(static_cast<int64_t>((flags & kGeoAddCh) ? added + updated : added));
}

// GEODIST: the unit is checked before the key; nil when the key or either member is missing.
void GeoDistCommand(CommandContext& c) {
  double to_m = 1;
  if (c.args.size() == 5) {
    if (!ParseGeoUnit(c.args[4], &to_m)) {
      c.reply.Error(err::kGeoUnit);
      return;
    }
  } else if (c.args.size() > 5) {
    c.reply.Error(err::kSyntax);
    return;
  }
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  std::optional<double> s1, s2;
  if (e != nullptr) {
    ZSetObject& z = ZSetOf(e->value);
    s1 = z.Score(c.args[2]);
    if (s1) s2 = z.Score(c.args[3]);
  }
  if (!s1 || !s2) {
    c.reply.Null();
    return;
  }
  geo::Point a = geo::DecodeScore(*s1), b = geo::DecodeScore(*s2);
  ReplyGeoDistance(c.reply, geo::Distance(a.lon, a.lat, b.lon, b.lat) / to_m);
}

// GEOHASH and GEOPOS: one element per member named from args[2] on, in their order; `missing`
// writes the element of a member (or the whole key) that is not there, `found` that of a member
// with its score.
template <typename Missing, typename Found>
void ReplyPerMember(CommandContext& c, Missing missing, Found found) {
  Entry* e;
  if (!LookupTyped(c, c.args[1], ValueType::kZSet, Access::kRead, &e)) return;
  c.reply.Array(c.args.size() - 2);
  for (size_t i = 2; i < c.args.size(); ++i) {
    std::optional<double> s;
    if (e != nullptr) s = ZSetOf(e->value).Score(c.args[i]);
    if (s) {
      found(*s);
    } else {
      missing();
    }
  }
}

void GeoHashCommand(CommandContext& c) {
  ReplyPerMember(
      c, [&] { c.reply.Null(); },
      [&](double score) {
        std::array<char, 11> h = geo::StandardHashString(score);
        c.reply.Bulk(std::string_view(h.data(), h.size()));
      });
}

void GeoPosCommand(CommandContext& c) {
  ReplyPerMember(
      c, [&] { c.reply.NullArray(); },
      [&](double score) {
        geo::Point p = geo::DecodeScore(score);
        c.reply.Array(2);
        ReplyGeoCoordinate(c.reply, p.lon);
        ReplyGeoCoordinate(c.reply, p.lat);
      });
}

}  // namespace

using docs::Block;
using docs::Double;
using docs::Key;
using docs::OneOf;
using docs::PureToken;
using docs::String;

void RegisterGeoCommands(CommandTable& t) {
  constexpr uint64_t kReadAcl = kAclRead | kAclGeo | kAclSlow;
  const KeySpec ro_access{.flags = kKeyRO | kKeyAccess, .index = 1};
  t.Register(
      {.name = "geoadd",
       .arity = -5,
       .flags = kCmdWrite | kCmdDenyOom,
       .first_key = 1,
       .last_key = 1,
       .key_step = 1,
       .acl = kAclWrite | kAclGeo | kAclSlow,
       .doc = {.summary = "Adds points, given by longitude and latitude, to a geospatial index "
                          "kept in a sorted set",
               .since = "3.2.0",
               .group = "geo",
               .complexity = "O(log(N)) for each item added, where N is the number of elements "
                             "in the sorted set.",
               .history = {{"6.2.0", "The `CH`, `NX` and `XX` options."}},
               .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
               .args = {Key("key", 0),
                        OneOf("condition", {PureToken("NX"), PureToken("XX")})
                            .Since("6.2.0")
                            .Optional(),
                        PureToken("CH").Named("change").Since("6.2.0").Optional(),
                        Block("longitude_latitude_member",
                              {Double("longitude"), Double("latitude"), String("member")})
                            .Multiple()}},
       .handler = GeoAddCommand});
  t.Register({.name = "geodist",
              .arity = -4,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the distance between two points of a geospatial index",
                      .since = "3.2.0",
                      .group = "geo",
                      .complexity = "O(log(N))",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member1"), String("member2"),
                               OneOf("unit", {PureToken("M"), PureToken("KM"), PureToken("FT"),
                                              PureToken("MI")})
                                   .Optional()}},
              .handler = GeoDistCommand});
  t.Register({.name = "geohash",
              .arity = -2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the standard geohash strings of points of a "
                                 "geospatial index",
                      .since = "3.2.0",
                      .group = "geo",
                      .complexity = "O(log(N)) for each member requested, where N is the number "
                                    "of elements in the sorted set.",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member").Multiple()}},
              .handler = GeoHashCommand});
  t.Register({.name = "geopos",
              .arity = -2,
              .flags = kCmdReadOnly,
              .first_key = 1,
              .last_key = 1,
              .key_step = 1,
              .acl = kReadAcl,
              .doc = {.summary = "Returns the longitude and latitude of points of a geospatial "
                                 "index",
                      .since = "3.2.0",
                      .group = "geo",
                      .complexity = "O(N) where N is the number of members requested.",
                      .key_specs = {ro_access},
                      .args = {Key("key", 0), String("member").Multiple()}},
              .handler = GeoPosCommand});
  RegisterGeoSearchCommands(t);
}

}  // namespace redistp
