// Unit tests for types/geohash: scores, decoded positions, GEOHASH strings and distances equal to
// what Redis 7.0.15 answers for the same points (GEOADD then ZSCORE/GEOPOS/GEOHASH/GEODIST), the
// round trip of encode and decode, neighbours (wrapping at the antimeridian), the step estimate,
// the cells of a search, and shape membership.
#include "types/geohash.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <string>

namespace redistp::geo {
namespace {

std::string Coord(double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.17f", v);
  std::string s(buf);
  while (s.back() == '0') s.pop_back();
  if (s.back() == '.') s.pop_back();
  return s;
}

std::string HashString(double score) {
  std::array<char, 11> h = StandardHashString(score);
  return std::string(h.data(), h.size());
}

TEST(GeohashTest, ScoresMatchRedis) {
  EXPECT_EQ(EncodeScore(13.361389, 38.115556), 3479099956230698ULL);
  EXPECT_EQ(EncodeScore(15.087269, 37.502669), 3479447370796909ULL);
  EXPECT_EQ(EncodeScore(-0.1275, 51.507222), 2163557714840001ULL);
  EXPECT_EQ(EncodeScore(139.6917, 35.6895), 4171231230197045ULL);
  EXPECT_EQ(EncodeScore(-179.5, -85), 9545470573ULL);
  EXPECT_EQ(EncodeScore(179.5, 85), 4503590081899922ULL);
  // The upper limits give offsets of exactly 2^26: bits 52 and 53 set, as in Redis.
  EXPECT_EQ(EncodeScore(180, 85.05112878), 13510798882111488ULL);
  EXPECT_EQ(EncodeScore(-180, -85.05112878), 0ULL);
}

TEST(GeohashTest, DecodedPositionsMatchRedis) {
  Point p = DecodeScore(3479099956230698.0);
  EXPECT_EQ(Coord(p.lon), "13.36138933897018433");
  EXPECT_EQ(Coord(p.lat), "38.11555639549629859");
  p = DecodeScore(2163557714840001.0);
  EXPECT_EQ(Coord(p.lon), "-0.1274988055229187");
  EXPECT_EQ(Coord(p.lat), "51.50722081469902491");
  // Clamped to the limits.
  p = DecodeScore(13510798882111488.0);
  EXPECT_EQ(Coord(p.lon), "180");
  EXPECT_EQ(Coord(p.lat), "85.0511287799999991");
}

TEST(GeohashTest, StandardStringsMatchRedis) {
  EXPECT_EQ(HashString(3479099956230698.0), "sqc8b49rny0");
  EXPECT_EQ(HashString(3479447370796909.0), "sqdtr74hyu0");
  EXPECT_EQ(HashString(2163557714840001.0), "gcpvj0e5m10");
  EXPECT_EQ(HashString(4171231230197045.0), "xn774c06kt0");
  EXPECT_EQ(HashString(13510798882111488.0), "bp05b5048p0");
}

TEST(GeohashTest, DistancesMatchRedis) {
  Point a = DecodeScore(3479099956230698.0), b = DecodeScore(3479447370796909.0);
  EXPECT_NEAR(Distance(a.lon, a.lat, b.lon, b.lat), 166274.1516, 0.00005);
  Point l = DecodeScore(2163557714840001.0), t = DecodeScore(4171231230197045.0);
  EXPECT_NEAR(Distance(l.lon, l.lat, t.lon, t.lat), 9561416.5814, 0.00005);
  EXPECT_EQ(Distance(1, 2, 1, 2), 0);
  // On one meridian the distance is the latitude difference along the sphere.
  EXPECT_DOUBLE_EQ(Distance(5, 10, 5, 11), kEarthRadiusM * M_PI / 180);
  EXPECT_DOUBLE_EQ(LatDistance(10, 11), LatDistance(11, 10));
}

TEST(GeohashTest, EncodeDecodeRoundTripStaysInTheCell) {
  for (double lon = -180; lon <= 180; lon += 7.3) {
    for (double lat = -85; lat <= 85; lat += 4.1) {
      Hash h;
      ASSERT_TRUE(Encode(kLonRange, kLatRange, lon, lat, kStepMax, &h));
      Area a = Decode(kLonRange, kLatRange, h);
      EXPECT_LE(a.lon.min, lon);
      EXPECT_GE(a.lon.max, lon);
      EXPECT_LE(a.lat.min, lat);
      EXPECT_GE(a.lat.max, lat);
      Point p = DecodeScore(static_cast<double>(CellMinScore(h)));
      EXPECT_NEAR(p.lon, lon, 1e-5);
      EXPECT_NEAR(p.lat, lat, 1e-5);
    }
  }
}

TEST(GeohashTest, PointsOutsideTheLimitsAreRefused) {
  Hash h;
  EXPECT_FALSE(ValidPoint(180.0001, 0));
  EXPECT_FALSE(ValidPoint(0, 85.06));
  EXPECT_FALSE(ValidPoint(0, -85.06));
  EXPECT_TRUE(ValidPoint(-180, -85.05112878));
  EXPECT_FALSE(Encode(kLonRange, kLatRange, 0, 86, 26, &h));
  // The standard range is wider, but a point must still be storable.
  EXPECT_FALSE(Encode(kLonRange, kStdLatRange, 0, 86, 26, &h));
  EXPECT_TRUE(Encode(kLonRange, kStdLatRange, 0, 85, 26, &h));
}

TEST(GeohashTest, NeighboursAreAdjacentAndWrapEastWest) {
  Hash h;
  ASSERT_TRUE(Encode(kLonRange, kLatRange, 10, 10, 8, &h));
  const Area c = Decode(kLonRange, kLatRange, h);
  const Neighbours n = NeighboursOf(h);
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, n.east).lon.min, c.lon.max);
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, n.west).lon.max, c.lon.min);
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, n.north).lat.min, c.lat.max);
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, n.south).lat.max, c.lat.min);
  const Area ne = Decode(kLonRange, kLatRange, n.north_east);
  EXPECT_DOUBLE_EQ(ne.lon.min, c.lon.max);
  EXPECT_DOUBLE_EQ(ne.lat.min, c.lat.max);
  const Area sw = Decode(kLonRange, kLatRange, n.south_west);
  EXPECT_DOUBLE_EQ(sw.lon.max, c.lon.min);
  EXPECT_DOUBLE_EQ(sw.lat.max, c.lat.min);
  // The last column's east neighbour is the first column.
  ASSERT_TRUE(Encode(kLonRange, kLatRange, 179.9, 0, 8, &h));
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, NeighboursOf(h).east).lon.min, -180);
  ASSERT_TRUE(Encode(kLonRange, kLatRange, -179.9, 0, 8, &h));
  EXPECT_DOUBLE_EQ(Decode(kLonRange, kLatRange, NeighboursOf(h).west).lon.max, 180);
}

TEST(GeohashTest, StepEstimate) {
  EXPECT_EQ(EstimateStep(0, 0), 26);
  // 1 m doubles 25 times before passing 20037726.37 m: 1 + 25, less the margin of 2.
  EXPECT_EQ(EstimateStep(1, 0), 24);
  // 1000 m doubles 15 times; one step less past 66 degrees, two past 80.
  EXPECT_EQ(EstimateStep(1000, 0), 14);
  EXPECT_EQ(EstimateStep(1000, 70), 13);
  EXPECT_EQ(EstimateStep(1000, -81), 12);
  EXPECT_EQ(EstimateStep(5e7, 0), 1);
}

TEST(GeohashTest, SearchCellsCoverTheCircle) {
  Shape s{.centre = {15, 37}, .radius = 200, .to_m = 1000};
  std::array<Hash, 9> cells = SearchCells(s);
  ASSERT_FALSE(cells[0].none());
  // Every point of the circle's bounding box lies in one of the cells.
  auto covered = [&](double lon, double lat) {
    uint64_t score = EncodeScore(lon, lat);
    for (const Hash& c : cells) {
      if (!c.none() && score >= CellMinScore(c) && score < CellMaxScore(c)) return true;
    }
    return false;
  };
  for (double dlon = -2.2; dlon <= 2.2; dlon += 0.2) {
    for (double dlat = -1.7; dlat <= 1.7; dlat += 0.2) {
      EXPECT_TRUE(covered(15 + dlon, 37 + dlat)) << dlon << "," << dlat;
    }
  }
}

TEST(GeohashTest, ShapeMembership) {
  double d = -1;
  Shape circle{.centre = {0, 0}, .radius = 1, .to_m = 1000};
  EXPECT_TRUE(Contains(circle, {0, 0.008}, &d));
  EXPECT_NEAR(d, 889.8, 0.1);
  EXPECT_FALSE(Contains(circle, {0, 0.01}, &d));
  Shape box{.centre = {0, 0}, .box = true, .width = 4, .height = 2, .to_m = 1000};
  EXPECT_TRUE(Contains(box, {0.017, 0.008}, &d));
  EXPECT_FALSE(Contains(box, {0.017, 0.01}, &d));
  EXPECT_FALSE(Contains(box, {0.019, 0}, &d));
}

}  // namespace
}  // namespace redistp::geo
