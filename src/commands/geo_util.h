// Shared pieces of the geo commands (geo.cc: GEOADD GEODIST GEOHASH GEOPOS; geo_search.cc: the
// GEORADIUS family, GEOSEARCH and GEOSEARCHSTORE).
//
// Replies follow Redis 7.0: a distance is a bulk string with exactly four decimals (the value
// times 10^4 rounded to the nearest integer, ties to even) in both protocols; a coordinate is
// "%.17f" of the value with trailing zeros (and a trailing dot) removed, a bulk string in RESP2
// and a double in RESP3. A coordinate argument, a radius or a box side parses like a ZADD score
// (the whole text a double, no NaN, no overflow).
#pragma once

#include <string_view>
#include <vector>

#include "db/keyspace_events.h"
#include "protocol/reply_builder.h"
#include "server/command.h"

namespace redistp {

namespace notice {
inline constexpr KeyNotice kGeoRadiusStore{kNotifyZset, "georadiusstore"};
inline constexpr KeyNotice kGeoSearchStore{kNotifyZset, "geosearchstore"};
}  // namespace notice

// The metres in one `unit` (m, km, ft, mi in any case); false when it is none of them.
bool ParseGeoUnit(std::string_view unit, double* to_m);
// Parses a longitude and a latitude; on failure replies Redis's error (not a float, or outside
// the storable limits) and returns false.
bool ParseLonLatOrReply(CommandContext& c, std::string_view lon_text, std::string_view lat_text,
                        double* lon, double* lat);
// One distance, one coordinate, as described above.
void ReplyGeoDistance(ReplyBuilder& reply, double value);
void ReplyGeoCoordinate(ReplyBuilder& reply, double value);

// Registers GEORADIUS*, GEOSEARCH and GEOSEARCHSTORE (geo_search.cc); RegisterGeoCommands calls
// it.
void RegisterGeoSearchCommands(CommandTable& table);

}  // namespace redistp
