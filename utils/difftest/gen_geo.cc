// The geo family of the generator (see generator.h), on once our server has GEOADD.
//
// A geo set is a sorted set whose scores are 52-bit interleaved geohashes, so every reply is a
// pure function of the points and compared exactly: distances with their four decimals,
// coordinates decoded from the hash with all their digits, geohash strings, the order of an
// unsorted search (the order in which Redis walks the nine cells around the centre), COUNT with
// and without ANY, and what STORE and STOREDIST write. The shapes:
//   - points mostly from one region per command (Sicily, the two poles' edges at 85.05112878°,
//     both sides of the antimeridian, anywhere), so that searches near them find neighbours and
//     cross the ±180° seam; now and then an invalid coordinate (just past a limit, 90°, junk);
//   - GEOADD of a few points (NX, XX, CH, both NX and XX) or a bulk of 100 to 300, so sets
//     convert from listpack to skiplist; GEODIST in every unit, GEOHASH, GEOPOS of present and
//     missing members;
//   - GEORADIUS, GEORADIUSBYMEMBER, their _RO forms, GEOSEARCH and GEOSEARCHSTORE with radii and
//     boxes from 0 to 20,000 km (40,000 km boxes), every option in a random order, and the
//     errors: no or two FROM/BY, ANY without COUNT, COUNT 0, negative radii, unknown units,
//     STORE with WITH* options or in a read-only form;
//   - wrong types: the keys of sorted sets (valid geo sets with odd scores), lists and strings.
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "generator.h"

namespace difftest {

namespace {

using Argv = std::vector<std::string>;

const std::vector<std::string> kGeoKeys = {"g:a", "g:a", "g:b", "g:c"};
const std::vector<std::string> kGeoMembers = {"Palermo", "Catania", "m1", "m2",  "m3",
                                              "north",   "south",   "",   "x y", "a"};

std::string Fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string Generator::GeoKey() {
  uint64_t r = rng_.Below(100);
  if (r < 5) return Key();
  if (r < 10) return rng_.Pick(std::vector<std::string>{"z:a", "z:b", "l:a", "hll:a", "agg:x"});
  return rng_.Pick(kGeoKeys);
}

std::string Generator::GeoMember() {
  uint64_t r = rng_.Below(100);
  if (r < 70) return rng_.Pick(kGeoMembers);
  if (r < 95) return "p" + std::to_string(rng_.Range(0, 300));
  return AnyValue();
}

void Generator::GeoPoint(Argv& argv) {
  auto uniform = [&](double lo, double hi) {
    return lo + (hi - lo) * static_cast<double>(rng_.Below(1000001)) / 1e6;
  };
  if (rng_.Percent(6)) {
    static const std::vector<std::pair<std::string, std::string>> kOdd = {{"180.0000001", "0"},
                                                                          {"-180.0000001", "0"},
                                                                          {"0", "85.05112879"},
                                                                          {"0", "-85.0511288"},
                                                                          {"0", "90"},
                                                                          {"10", "-90"},
                                                                          {"abc", "10"},
                                                                          {"10", ""},
                                                                          {"nan", "0"},
                                                                          {"0", "inf"},
                                                                          {"1e400", "0"},
                                                                          {"180", "85.05112878"},
                                                                          {"-180", "-85.05112878"},
                                                                          {"0x10", "1"},
                                                                          {"13.361389 ", "38.1"},
                                                                          {"-0", "-0"}};
    const auto& p = rng_.Pick(kOdd);
    argv.insert(argv.end(), {p.first, p.second});
    return;
  }
  double lon = 0;
  double lat = 0;
  switch (geo_region_) {
    case 0:  // Sicily
      lon = uniform(12.0, 16.0);
      lat = uniform(36.5, 38.5);
      break;
    case 1:  // the northern edge
      lon = uniform(-180.0, 180.0);
      lat = uniform(84.0, 85.05112878);
      break;
    case 2:  // the southern edge
      lon = uniform(-180.0, 180.0);
      lat = uniform(-85.05112878, -84.0);
      break;
    case 3:  // both sides of the antimeridian
      lon = rng_.Percent(50) ? uniform(178.5, 180.0) : uniform(-180.0, -178.5);
      lat = uniform(-5.0, 5.0);
      break;
    default:
      lon = uniform(-180.0, 180.0);
      lat = uniform(-85.05112878, 85.05112878);
      break;
  }
  int decimals = static_cast<int>(rng_.Range(0, 8));
  if (rng_.Percent(8)) lon = rng_.Percent(50) ? 180.0 : -180.0;
  if (rng_.Percent(4)) lat = rng_.Percent(50) ? 85.05112878 : -85.05112878;
  std::string slon = Fixed(lon, decimals);
  std::string slat = Fixed(lat, std::max(decimals, 1));
  if (lat == 85.05112878 || lat == -85.05112878) slat = Fixed(lat, 8);
  argv.insert(argv.end(), {slon, slat});
}

// `values` distances (1 for a radius, 2 for a box) in one unit, mostly valid: 0, a few km, a
// region, up to 20,000 km (half the Earth's circumference), converted to the unit.
void Generator::GeoDistance(Argv& argv, int values) {
  static const std::vector<std::pair<std::string, double>> kUnits = {
      {"m", 1000.0}, {"km", 1.0},   {"mi", 1.0 / 1.609344}, {"ft", 3280.84},
      {"KM", 1.0},   {"M", 1000.0}, {"Mi", 1.0 / 1.609344}};
  const auto& unit = rng_.Pick(kUnits);
  for (int i = 0; i < values; ++i) {
    uint64_t r = rng_.Below(100);
    double km = 0;
    if (r < 5) {
      argv.push_back(rng_.Pick(
          std::vector<std::string>{"-1", "abc", "", "nan", "-0.001", "inf", "1e400", "0x10"}));
      continue;
    }
    if (r < 12) {
      km = 0;
    } else if (r < 45) {
      km = static_cast<double>(rng_.Range(1, 50000)) / 1000.0;
    } else if (r < 75) {
      km = static_cast<double>(rng_.Range(50, 2000));
    } else {
      km = static_cast<double>(rng_.Range(2000, 20000 * values));
    }
    argv.push_back(Fixed(km * unit.second, static_cast<int>(rng_.Range(0, 3))));
  }
  argv.push_back(rng_.Percent(97) ? Token(unit.first)
                                  : rng_.Pick(std::vector<std::string>{"yd", "", "kms"}));
}

// The options of a search: WITHCOORD, WITHDIST, WITHHASH, COUNT n [ANY], ASC|DESC, and for a
// GEORADIUS that may write STORE/STOREDIST; in a random order, now and then a repeated, an
// invalid or a conflicting one.
void Generator::GeoSearchOptions(Argv& argv, bool radius_form, bool store) {
  std::vector<Argv> opts;
  bool with = false;
  // GEOSEARCHSTORE refuses the WITH options: rarely there.
  int with_percent = !radius_form && store ? 3 : 30;
  for (const char* w : {"WITHCOORD", "WITHDIST", "WITHHASH"}) {
    if (rng_.Percent(with_percent)) {
      opts.push_back({Token(w)});
      with = true;
    }
  }
  if (rng_.Percent(40)) {
    Argv c = {Token("COUNT")};
    uint64_t r = rng_.Below(100);
    c.push_back(r < 85   ? std::to_string(rng_.Range(1, 12))
                : r < 90 ? std::to_string(rng_.Range(100, 400))
                         : rng_.Pick(std::vector<std::string>{"0", "-1", "abc", "",
                                                              "9223372036854775807"}));
    if (rng_.Percent(30)) c.push_back(Token("ANY"));
    opts.push_back(c);
  } else if (rng_.Percent(3)) {
    opts.push_back({Token("ANY")});
  }
  if (rng_.Percent(45)) opts.push_back({Token(rng_.Percent(50) ? "ASC" : "DESC")});
  if (rng_.Percent(3)) opts.push_back({Token(rng_.Percent(50) ? "ASC" : "DESC")});
  // STORE with a WITH option is an error; keep it rare so the stores mostly happen.
  if (store && radius_form && (!with || rng_.Percent(15)) && rng_.Percent(35)) {
    opts.push_back({Token(rng_.Percent(50) ? "STORE" : "STOREDIST"), GeoKey()});
  }
  if (rng_.Percent(3)) opts.push_back({rng_.Pick(std::vector<std::string>{"FOO", "WITHSCORES"})});
  if (!radius_form && rng_.Percent(3)) opts.push_back({Token("STORE"), GeoKey()});
  // A random order: Fisher-Yates with our own generator.
  for (size_t i = opts.size(); i > 1; --i) std::swap(opts[i - 1], opts[rng_.Below(i)]);
  for (auto& o : opts) argv.insert(argv.end(), o.begin(), o.end());
}

std::vector<std::string> Generator::GeoCommand() {
  Argv a;
  geo_region_ = static_cast<int>(rng_.Below(5));
  std::string k = GeoKey();
  auto from = [&](Argv& v) {
    uint64_t r = rng_.Below(100);
    if (r < 45) {
      v.insert(v.end(), {Token("FROMMEMBER"), GeoMember()});
    } else if (r < 95) {
      v.push_back(Token("FROMLONLAT"));
      GeoPoint(v);
    } else if (r < 98) {
      v.insert(v.end(), {Token("FROMMEMBER"), GeoMember(), Token("FROMLONLAT")});
      GeoPoint(v);
    }
  };
  auto by = [&](Argv& v) {
    uint64_t r = rng_.Below(100);
    if (r < 50) {
      v.push_back(Token("BYRADIUS"));
      GeoDistance(v, 1);
    } else if (r < 96) {
      v.push_back(Token("BYBOX"));
      GeoDistance(v, 2);
    } else if (r < 98) {
      v.push_back(Token("BYRADIUS"));
      GeoDistance(v, 1);
      v.push_back(Token("BYBOX"));
      GeoDistance(v, 2);
    }
  };
  switch (rng_.Below(30)) {
    case 0:
    case 1:
    case 2:
    case 3:
    case 4:
    case 5: {
      a = {"GEOADD", k};
      if (rng_.Percent(12)) a.push_back(Token("NX"));
      if (rng_.Percent(12)) a.push_back(Token("XX"));
      if (rng_.Percent(20)) a.push_back(Token("CH"));
      int n = rng_.Percent(5) ? static_cast<int>(rng_.Range(100, 300)) : 1 + rng_.Below(3);
      for (int i = 0; i < n; ++i) {
        GeoPoint(a);
        a.push_back(n > 10 ? "p" + std::to_string(i) : GeoMember());
      }
      break;
    }
    case 6:
    case 7:
      a = {"GEODIST", k, GeoMember(), GeoMember()};
      if (rng_.Percent(70)) {
        a.push_back(Token(rng_.Pick(std::vector<std::string>{"m", "km", "mi", "ft", "KM", "yd"})));
      }
      break;
    case 8:
      a = {"GEOHASH", k};
      for (int i = 0, n = static_cast<int>(rng_.Range(0, 3)); i < n; ++i) a.push_back(GeoMember());
      break;
    case 9:
    case 10:
      a = {"GEOPOS", k};
      for (int i = 0, n = static_cast<int>(rng_.Range(0, 3)); i < n; ++i) a.push_back(GeoMember());
      break;
    case 11:
    case 12:
    case 13: {
      bool ro = rng_.Percent(30);
      a = {ro ? "GEORADIUS_RO" : "GEORADIUS", k};
      GeoPoint(a);
      GeoDistance(a, 1);
      GeoSearchOptions(a, true, !ro || rng_.Percent(10));
      break;
    }
    case 14:
    case 15: {
      bool ro = rng_.Percent(30);
      a = {ro ? "GEORADIUSBYMEMBER_RO" : "GEORADIUSBYMEMBER", k, GeoMember()};
      GeoDistance(a, 1);
      GeoSearchOptions(a, true, !ro || rng_.Percent(10));
      break;
    }
    case 16:
    case 17:
    case 18:
    case 19:
    case 20: {
      a = {"GEOSEARCH", k};
      Argv parts[2];
      from(parts[0]);
      by(parts[1]);
      // FROM and BY may come in either order.
      int first = rng_.Percent(85) ? 0 : 1;
      a.insert(a.end(), parts[first].begin(), parts[first].end());
      a.insert(a.end(), parts[1 - first].begin(), parts[1 - first].end());
      GeoSearchOptions(a, false, false);
      break;
    }
    case 21:
    case 22:
    case 23: {
      a = {"GEOSEARCHSTORE", GeoKey(), k};
      from(a);
      by(a);
      GeoSearchOptions(a, false, true);
      if (rng_.Percent(40)) a.push_back(Token("STOREDIST"));
      break;
    }
    case 24:
      a = {rng_.Pick(std::vector<std::string>{"ZRANGE", "ZCARD"}), k};
      if (a[0] == "ZRANGE") a.insert(a.end(), {"0", "-1", Token("WITHSCORES")});
      break;
    case 25:
      a = {"ZREM", k, GeoMember()};
      break;
    case 26:
      a = {"GEOADD", k, "13.361389", "38.115556", "Palermo", "15.087269", "37.502669", "Catania"};
      break;
    default:
      a = {"GEOSEARCH", k, Token("FROMLONLAT")};
      GeoPoint(a);
      a.push_back(Token("BYRADIUS"));
      GeoDistance(a, 1);
      a.insert(a.end(), {Token("ASC"), Token("WITHDIST"), Token("WITHCOORD")});
      break;
  }
  std::string name = a[0];
  for (auto& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (!Has(name.c_str())) return {};
  return a;
}

void Generator::GeoBlock(int conn, std::vector<Step>& out) {
  Argv a = GeoCommand();
  if (a.empty()) a = StringFamily();
  if (rng_.Percent(6)) Mutate(a);
  out.push_back({conn, std::move(a)});
}

}  // namespace difftest
