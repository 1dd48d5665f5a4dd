#include "types/geohash.h"

#include <cmath>

namespace redistp::geo {
namespace {

constexpr double kDegToRad = M_PI / 180.0;
// The Web Mercator half-width of the world, in metres: the scale the step estimate starts from.
constexpr double kMercatorMax = 20037726.37;
constexpr char kBase32[] = "0123456789bcdefghjkmnpqrstuvwxyz";

double ToRad(double deg) { return deg * kDegToRad; }
double ToDeg(double rad) { return rad / kDegToRad; }

// Moves the 32 bits of v to the even bit positions of the result.
uint64_t Spread(uint32_t v) {
  uint64_t x = v;
  x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x << 2)) & 0x3333333333333333ULL;
  x = (x | (x << 1)) & 0x5555555555555555ULL;
  return x;
}

// The inverse of Spread: gathers the even bits of v into 32 bits.
uint32_t Gather(uint64_t v) {
  uint64_t x = v & 0x5555555555555555ULL;
  x = (x | (x >> 1)) & 0x3333333333333333ULL;
  x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
  x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
  x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
  x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
  return static_cast<uint32_t>(x);
}

// A score as the integer its bits are read from. Scores of geo members are integers below
// 2^52; anything else (a member added by ZADD) converts the way the C cast does on x86-64, so a
// strange score decodes to the same strange place as in Redis. That cast converts below 2^63 as a
// signed conversion would (-5 becomes 2^64 - 5); from 2^63 it converts score - 2^63 and flips the
// top bit; an out-of-range signed conversion yields 2^63.
uint64_t ScoreBits(double score) {
  constexpr double kTwo63 = 9223372036854775808.0;
  constexpr uint64_t kTop = 0x8000000000000000ULL;
  auto signed_bits = [](double v) -> uint64_t {
    if (v >= -kTwo63 && v < kTwo63) return static_cast<uint64_t>(static_cast<int64_t>(v));
    return kTop;
  };
  if (score < kTwo63) return signed_bits(score);
  return signed_bits(score - kTwo63) ^ kTop;
}

// Shifts a cell one column east (d > 0) or west (d < 0), wrapping around the world.
Hash MoveLon(Hash h, int d) {
  const uint64_t lon = h.bits & 0xAAAAAAAAAAAAAAAAULL;
  const uint64_t lat = h.bits & 0x5555555555555555ULL;
  // The latitude positions of the cell's width: adding one past them carries between longitude
  // bits; or-ing them first lets a subtraction borrow the same way.
  const uint64_t fill = 0x5555555555555555ULL >> (64 - h.step * 2);
  uint64_t x = d > 0 ? lon + (fill + 1) : (lon | fill) - (fill + 1);
  x &= 0xAAAAAAAAAAAAAAAAULL >> (64 - h.step * 2);
  h.bits = x | lat;
  return h;
}

// Shifts a cell one row north (d > 0) or south (d < 0), wrapping at the limits.
Hash MoveLat(Hash h, int d) {
  const uint64_t lon = h.bits & 0xAAAAAAAAAAAAAAAAULL;
  const uint64_t lat = h.bits & 0x5555555555555555ULL;
  const uint64_t fill = 0xAAAAAAAAAAAAAAAAULL >> (64 - h.step * 2);
  uint64_t y = d > 0 ? lat + (fill + 1) : (lat | fill) - (fill + 1);
  y &= 0x5555555555555555ULL >> (64 - h.step * 2);
  h.bits = lon | y;
  return h;
}

// The bounding box of a shape: {min lon, min lat, max lon, max lat}. The longitude span is
// taken at the box's edge nearer the pole, where a degree is shortest.
void BoundingBox(const Shape& s, double* bounds) {
  const double half_h = s.to_m * (s.box ? s.height / 2 : s.radius);
  const double half_w = s.to_m * (s.box ? s.width / 2 : s.radius);
  const double lon = s.centre.lon, lat = s.centre.lat;
  const double lat_delta = ToDeg(half_h / kEarthRadiusM);
  const double lon_delta_top = ToDeg(half_w / kEarthRadiusM / std::cos(ToRad(lat + lat_delta)));
  const double lon_delta_bottom = ToDeg(half_w / kEarthRadiusM / std::cos(ToRad(lat - lat_delta)));
  const double lon_delta = lat < 0 ? lon_delta_bottom : lon_delta_top;
  bounds[0] = lon - lon_delta;
  bounds[1] = lat - lat_delta;
  bounds[2] = lon + lon_delta;
  bounds[3] = lat + lat_delta;
}

}  // namespace

bool ValidPoint(double lon, double lat) {
  return !(lon > kLonMax || lon < kLonMin || lat > kLatMax || lat < kLatMin);
}

bool Encode(const Range& lon_range, const Range& lat_range, double lon, double lat, int step,
            Hash* out) {
  if (!ValidPoint(lon, lat)) return false;
  if (lat < lat_range.min || lat > lat_range.max || lon < lon_range.min || lon > lon_range.max) {
    return false;
  }
  double lat_off = (lat - lat_range.min) / (lat_range.max - lat_range.min);
  double lon_off = (lon - lon_range.min) / (lon_range.max - lon_range.min);
  lat_off *= static_cast<double>(1ULL << step);
  lon_off *= static_cast<double>(1ULL << step);
  out->bits =
      Spread(static_cast<uint32_t>(lat_off)) | (Spread(static_cast<uint32_t>(lon_off)) << 1);
  out->step = static_cast<uint8_t>(step);
  return true;
}

uint64_t EncodeScore(double lon, double lat) {
  Hash h;
  if (!Encode(kLonRange, kLatRange, lon, lat, kStepMax, &h)) return 0;
  return CellMinScore(h);
}

Area Decode(const Range& lon_range, const Range& lat_range, const Hash& h) {
  const uint32_t lat_bits = Gather(h.bits);
  const uint32_t lon_bits = Gather(h.bits >> 1);
  const double cells = static_cast<double>(1ULL << h.step);
  const double lat_scale = lat_range.max - lat_range.min;
  const double lon_scale = lon_range.max - lon_range.min;
  Area a;
  a.lat.min = lat_range.min + (lat_bits * 1.0 / cells) * lat_scale;
  a.lat.max = lat_range.min + ((lat_bits + 1.0) / cells) * lat_scale;
  a.lon.min = lon_range.min + (lon_bits * 1.0 / cells) * lon_scale;
  a.lon.max = lon_range.min + ((lon_bits + 1.0) / cells) * lon_scale;
  return a;
}

Point DecodeScore(double score) {
  Hash h{ScoreBits(score), kStepMax};
  Area a = Decode(kLonRange, kLatRange, h);
  Point p{(a.lon.min + a.lon.max) / 2, (a.lat.min + a.lat.max) / 2};
  if (p.lon > kLonMax) p.lon = kLonMax;
  if (p.lon < kLonMin) p.lon = kLonMin;
  if (p.lat > kLatMax) p.lat = kLatMax;
  if (p.lat < kLatMin) p.lat = kLatMin;
  return p;
}

std::array<char, 11> StandardHashString(double score) {
  Point p = DecodeScore(score);
  Hash h;
  Encode(kLonRange, kStdLatRange, p.lon, p.lat, kStepMax, &h);
  std::array<char, 11> out;
  // Ten characters take 50 of the 52 bits; the eleventh, kept for the traditional length,
  // has none and is always '0'.
  for (int i = 0; i < 10; ++i) out[i] = kBase32[(h.bits >> (52 - (i + 1) * 5)) & 0x1f];
  out[10] = kBase32[0];
  return out;
}

Neighbours NeighboursOf(const Hash& h) {
  Neighbours n;
  n.east = MoveLon(h, 1);
  n.west = MoveLon(h, -1);
  n.south = MoveLat(h, -1);
  n.north = MoveLat(h, 1);
  n.north_west = MoveLat(MoveLon(h, -1), 1);
  n.south_west = MoveLat(MoveLon(h, -1), -1);
  n.north_east = MoveLat(MoveLon(h, 1), 1);
  n.south_east = MoveLat(MoveLon(h, 1), -1);
  return n;
}

uint64_t CellMinScore(const Hash& h) { return h.bits << (52 - h.step * 2); }
uint64_t CellMaxScore(const Hash& h) { return (h.bits + 1) << (52 - h.step * 2); }

int EstimateStep(double radius_m, double lat) {
  if (radius_m == 0) return kStepMax;
  int step = 1;
  while (radius_m < kMercatorMax) {
    radius_m *= 2;
    ++step;
  }
  step -= 2;  // a margin, so the nine cells cover the radius in the usual cases
  // Cells narrow towards the poles: take bigger ones there.
  if (lat > 66 || lat < -66) {
    --step;
    if (lat > 80 || lat < -80) --step;
  }
  if (step < 1) step = 1;
  if (step > kStepMax) step = kStepMax;
  return step;
}

std::array<Hash, 9> SearchCells(const Shape& shape) {
  double bounds[4];
  BoundingBox(shape, bounds);
  const double min_lon = bounds[0], min_lat = bounds[1], max_lon = bounds[2], max_lat = bounds[3];
  // A box is estimated by the circle through its corners.
  double radius_m = shape.box ? std::sqrt((shape.width / 2) * (shape.width / 2) +
                                          (shape.height / 2) * (shape.height / 2))
                              : shape.radius;
  radius_m *= shape.to_m;
  const double lon = shape.centre.lon, lat = shape.centre.lat;
  int step = EstimateStep(radius_m, lat);

  Hash centre;
  Encode(kLonRange, kLatRange, lon, lat, step, &centre);
  Neighbours n = NeighboursOf(centre);
  // If a side's neighbour does not reach the bounding box's edge, the cells are too small:
  // one step bigger (each cell four times the area) covers it.
  const Area north = Decode(kLonRange, kLatRange, n.north);
  const Area south = Decode(kLonRange, kLatRange, n.south);
  const Area east = Decode(kLonRange, kLatRange, n.east);
  const Area west = Decode(kLonRange, kLatRange, n.west);
  if (step > 1 && (north.lat.max < max_lat || south.lat.min > min_lat || east.lon.max < max_lon ||
                   west.lon.min > min_lon)) {
    --step;
    Encode(kLonRange, kLatRange, lon, lat, step, &centre);
    n = NeighboursOf(centre);
  }
  const Area area = Decode(kLonRange, kLatRange, centre);
  // Drop the neighbours on a side the centre cell already covers past the bounding box.
  if (step >= 2) {
    if (area.lat.min < min_lat) n.south = n.south_west = n.south_east = Hash{};
    if (area.lat.max > max_lat) n.north = n.north_east = n.north_west = Hash{};
    if (area.lon.min < min_lon) n.west = n.south_west = n.north_west = Hash{};
    if (area.lon.max > max_lon) n.east = n.south_east = n.north_east = Hash{};
  }
  return {centre,       n.north,      n.south,      n.east,      n.west,
          n.north_east, n.north_west, n.south_east, n.south_west};
}

double LatDistance(double lat1, double lat2) {
  return kEarthRadiusM * std::fabs(ToRad(lat2) - ToRad(lat1));
}

double Distance(double lon1, double lat1, double lon2, double lat2) {
  const double lon1r = ToRad(lon1), lon2r = ToRad(lon2);
  const double v = std::sin((lon2r - lon1r) / 2);
  // On one meridian the haversine reduces to the latitude difference.
  if (v == 0.0) return LatDistance(lat1, lat2);
  const double lat1r = ToRad(lat1), lat2r = ToRad(lat2);
  const double u = std::sin((lat2r - lat1r) / 2);
  const double a = u * u + std::cos(lat1r) * std::cos(lat2r) * v * v;
  return 2.0 * kEarthRadiusM * std::asin(std::sqrt(a));
}

bool Contains(const Shape& shape, const Point& p, double* dist_m) {
  const Point& c = shape.centre;
  if (!shape.box) {
    double d = Distance(c.lon, c.lat, p.lon, p.lat);
    if (d > shape.radius * shape.to_m) return false;
    *dist_m = d;
    return true;
  }
  // The cheap latitude test first; the east-west extent is measured along the point's parallel.
  if (LatDistance(p.lat, c.lat) > shape.height * shape.to_m / 2) return false;
  if (Distance(p.lon, p.lat, c.lon, p.lat) > shape.width * shape.to_m / 2) return false;
  *dist_m = Distance(c.lon, c.lat, p.lon, p.lat);
  return true;
}

}  // namespace redistp::geo
