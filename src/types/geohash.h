// Geohash: the arithmetic behind the geo commands, kept apart from any sorted set.
//
// A geo set is a sorted set whose scores are 52-bit interleaved geohashes. Each coordinate is
// scaled into [0, 1) of its range and cut to `step` bits (26 for a stored point): longitude in
// [-180, 180], latitude in [-85.05112878, 85.05112878] (the Web Mercator limits Redis stores),
// and the two bit strings are interleaved, latitude on the even bits and longitude on the odd
// ones, so the longitude bit comes first (is more significant) at every level. A hash of `step`
// bits per coordinate names a cell; its 2*step bits shifted left to 52 are the lowest score in
// the cell, and the next cell's hash shifted likewise is the first score past it: every cell is
// one score interval [min, max) of the sorted set.
//
// Decoding a stored score gives the cell's centre, clamped to the limits; that centre is the
// position the commands report (GEOPOS) and measure from. GEOHASH's strings re-encode that centre
// over the standard ranges (latitude +-90) into 11 base32 characters; the last carries no bits.
//
// An area search (a circle of a radius, or a box of a width and a height, around a centre) picks
// a cell size from the radius and the latitude, the cell holding the centre and its eight
// neighbours, and drops the neighbours the shape's bounding box cannot reach. Neighbours wrap
// around the antimeridian, since adding one to the longitude bits of the last column overflows
// into the first. The cells come in a fixed order (centre, N, S, E, W, NE, NW, SE, SW), which is
// the order of unsorted results; a cell equal to the one just searched is skipped, so a huge
// radius does not return members twice. Distances are haversine on a sphere of Redis's earth
// radius (6372797.560856 m). Every formula here keeps the operation order that gives Redis's
// results to the last bit, since replies print coordinates with 17 decimals.
#pragma once

#include <array>
#include <cstdint>

namespace redistp::geo {

inline constexpr double kLonMin = -180;
inline constexpr double kLonMax = 180;
inline constexpr double kLatMin = -85.05112878;
inline constexpr double kLatMax = 85.05112878;
inline constexpr int kStepMax = 26;  // bits per coordinate of a stored point
inline constexpr double kEarthRadiusM = 6372797.560856;

struct Range {
  double min;
  double max;
};

// The storage ranges, and GEOHASH's standard ones.
inline constexpr Range kLonRange{kLonMin, kLonMax};
inline constexpr Range kLatRange{kLatMin, kLatMax};
inline constexpr Range kStdLatRange{-90, 90};

// A cell: `step` bits per coordinate interleaved into the low 2*step bits. step 0 marks "no
// cell" (a neighbour dropped from a search).
struct Hash {
  uint64_t bits = 0;
  uint8_t step = 0;
  bool none() const { return step == 0 && bits == 0; }
};

struct Area {
  Range lon;
  Range lat;
};

struct Point {
  double lon;
  double lat;
};

// Whether (lon, lat) may be stored: inside the storage limits.
bool ValidPoint(double lon, double lat);
// The cell of `step` bits holding (lon, lat) over the given ranges; false when the point is
// outside the storage limits or outside the ranges.
bool Encode(const Range& lon_range, const Range& lat_range, double lon, double lat, int step,
            Hash* out);
// The stored score of a point (a 52-bit integer), assuming ValidPoint.
uint64_t EncodeScore(double lon, double lat);
// The cell's bounds over the given ranges.
Area Decode(const Range& lon_range, const Range& lat_range, const Hash& h);
// The position a stored score stands for: its cell's centre, clamped to the storage limits.
Point DecodeScore(double score);
// GEOHASH's 11-character string for a stored score.
std::array<char, 11> StandardHashString(double score);

// The eight neighbours of a cell, each the same size.
struct Neighbours {
  Hash north, south, east, west, north_east, north_west, south_east, south_west;
};
Neighbours NeighboursOf(const Hash& h);

// The lowest score inside a cell and the first score past it.
uint64_t CellMinScore(const Hash& h);
uint64_t CellMaxScore(const Hash& h);

// The shape of a search around a centre, its sizes in a unit of `to_m` metres (kept apart
// because Redis rounds each product where it forms it).
struct Shape {
  Point centre;
  bool box = false;
  double radius = 0;  // circle
  double width = 0;   // box
  double height = 0;  // box
  double to_m = 1;
};

// The cells to search for `shape`, in result order, with the dropped ones as none().
std::array<Hash, 9> SearchCells(const Shape& shape);
// The cell size (bits per coordinate) for a search of `radius_m` around latitude `lat`.
int EstimateStep(double radius_m, double lat);

// Haversine distance in metres between two points given in degrees.
double Distance(double lon1, double lat1, double lon2, double lat2);
// Distance along a meridian between two latitudes, in metres.
double LatDistance(double lat1, double lat2);
// Whether `p` lies inside `shape`; on true *dist_m is its distance from the centre.
bool Contains(const Shape& shape, const Point& p, double* dist_m);

}  // namespace redistp::geo
