// Unit tests for the loaders of the encodings Redis 7.0 reads but no longer writes
// (types/rdb_legacy.h, types/ziplist.h, zset.h LoadZSetText): payloads built byte by byte by the
// small writers below, loaded with DeserializeValue, checked for contents, OBJECT ENCODING and
// DEBUG DIGEST-VALUE. The digests were recorded from Redis 7.0.15 loading the same values
// (utils/gen-legacy-rdb.py writes them into tests/assets/legacy-encodings.rdb), so equal
// digests mean equal contents. Then corrupt payloads: each rejected as Redis rejects it, and a
// bounded random-corruption loop in which nothing may crash and whatever loads is sound.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "types/digest.h"
#include "types/hash.h"
#include "types/list.h"
#include "types/serialize.h"
#include "types/set.h"
#include "types/type_ops.h"
#include "types/zset.h"

namespace redistp {
namespace {

// ---- test-only writers of the old formats ----

using Item = std::variant<int64_t, std::string>;

void PutLe(std::string* out, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out->push_back(static_cast<char>(v >> (8 * i)));
}

std::string ZiplistEntryBody(const Item& it) {
  std::string e;
  if (const int64_t* n = std::get_if<int64_t>(&it)) {
    const int64_t v = *n;
    if (v >= 0 && v <= 12) {
      e.push_back(static_cast<char>(0xF1 + v));
    } else if (v >= INT8_MIN && v <= INT8_MAX) {
      e.push_back('\xFE');
      PutLe(&e, static_cast<uint64_t>(v), 1);
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
      e.push_back('\xC0');
      PutLe(&e, static_cast<uint64_t>(v), 2);
    } else if (v >= -(1 << 23) && v < (1 << 23)) {
      e.push_back('\xF0');
      PutLe(&e, static_cast<uint64_t>(v), 3);
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
      e.push_back('\xD0');
      PutLe(&e, static_cast<uint64_t>(v), 4);
    } else {
      e.push_back('\xE0');
      PutLe(&e, static_cast<uint64_t>(v), 8);
    }
    return e;
  }
  const std::string& s = std::get<std::string>(it);
  if (s.size() <= 63) {
    e.push_back(static_cast<char>(s.size()));
  } else if (s.size() <= 16383) {
    e.push_back(static_cast<char>(0x40 | (s.size() >> 8)));
    e.push_back(static_cast<char>(s.size() & 0xFF));
  } else {
    e.push_back('\x80');
    for (int shift = 24; shift >= 0; shift -= 8) e.push_back(static_cast<char>(s.size() >> shift));
  }
  return e + s;
}

// A ziplist of `items`; `zllen` overrides the count field when >= 0.
std::string Ziplist(const std::vector<Item>& items, int zllen = -1) {
  std::string body;
  size_t prev = 0, tail = 10;
  for (const Item& it : items) {
    std::string entry;
    if (prev < 254) {
      entry.push_back(static_cast<char>(prev));
    } else {
      entry.push_back('\xFE');
      PutLe(&entry, prev, 4);
    }
    entry += ZiplistEntryBody(it);
    tail = 10 + body.size();
    body += entry;
    prev = entry.size();
  }
  std::string zl;
  PutLe(&zl, 10 + body.size() + 1, 4);
  PutLe(&zl, tail, 4);
  PutLe(&zl, zllen >= 0 ? static_cast<uint64_t>(zllen) : std::min<size_t>(items.size(), 65535), 2);
  return zl + body + '\xFF';
}

std::string Zipmap(const std::vector<std::pair<std::string, std::string>>& pairs, int free = 0) {
  std::string zm(1, static_cast<char>(std::min<size_t>(pairs.size(), 254)));
  auto len = [&zm](size_t n) {
    if (n < 254) {
      zm.push_back(static_cast<char>(n));
    } else {
      zm.push_back('\xFE');
      PutLe(&zm, n, 4);
    }
  };
  for (const auto& [f, v] : pairs) {
    len(f.size());
    zm += f;
    len(v.size());
    zm.push_back(static_cast<char>(free));
    zm += v + std::string(free, '\0');
  }
  return zm + '\xFF';
}

// An RDB string (plain length form) holding blob.
std::string RdbString(std::string_view blob) {
  std::string out;
  RdbWriter w(&out, /*compress=*/false);
  w.Length(blob.size());
  return out + std::string(blob);
}

std::string RdbLength(uint64_t n) {
  std::string out;
  RdbWriter(&out).Length(n);
  return out;
}

std::string Typed(RdbType t, std::string_view payload) {
  return std::string(1, static_cast<char>(t)) + std::string(payload);
}

std::string ListZiplist(const std::vector<Item>& items) {
  return Typed(kRdbListZiplist, RdbString(Ziplist(items)));
}

std::vector<Item> Pairs(const std::vector<std::pair<std::string, Item>>& pairs) {
  std::vector<Item> items;
  for (const auto& [k, v] : pairs) {
    items.emplace_back(k);
    items.push_back(v);
  }
  return items;
}

// RDB_TYPE_ZSET: member, then the score as <len> text (or 253/254/255).
std::string ZSetText(const std::vector<std::pair<std::string, std::string>>& pairs) {
  std::string out = RdbLength(pairs.size());
  for (const auto& [m, score] : pairs) {
    out += RdbString(m);
    if (score == "inf") {
      out.push_back('\xFE');
    } else if (score == "-inf") {
      out.push_back('\xFF');
    } else if (score == "nan") {
      out.push_back('\xFD');
    } else {
      out.push_back(static_cast<char>(score.size()));
      out += score;
    }
  }
  return Typed(kRdbZSet, out);
}

std::string Intset(const std::vector<int64_t>& sorted, int width) {
  std::string is;
  PutLe(&is, width, 4);
  PutLe(&is, sorted.size(), 4);
  for (int64_t v : sorted) PutLe(&is, static_cast<uint64_t>(v), width);
  return Typed(kRdbSetIntset, RdbString(is));
}

// ---- loading and looking ----

Result<Value> Load(const std::string& bytes, const TypeLimits& limits = TypeLimits{}) {
  RdbReader r(bytes);
  uint8_t type = 0;
  if (!r.Byte(&type)) return Status::Error("no type byte");
  Result<Value> v = DeserializeValue(type, r, limits);
  if (v.ok() && r.remaining() != 0) return Status::Error("bytes left over");
  return v;
}

std::string Digest(const Value& v) {
  ValueDigest sha;
  ValueDigest::Bytes d = {};
  sha.AddValue(d, v);
  return ValueDigest::Hex(d);
}

struct Loaded {
  std::string encoding;
  std::string digest;
};

Loaded LoadOk(const std::string& bytes) {
  Result<Value> v = Load(bytes);
  EXPECT_TRUE(v.ok()) << (v.ok() ? "" : v.status().message());
  if (!v.ok()) return {};
  return {v.value().EncodingName(), Digest(v.value())};
}

std::vector<std::string> ListItems(const Value& v) {
  std::vector<std::string> out;
  const Quicklist& ql = ListOf(v);
  for (Quicklist::Cursor c = ql.First(); c.Valid(); c = ql.Next(c)) {
    out.push_back(ql.Get(c).ToString());
  }
  return out;
}

// The values of utils/gen-legacy-rdb.py, built the same way here.
std::string ListZiplistSample() {
  return ListZiplist({"a", int64_t{1}, int64_t{-2}, int64_t{300}, int64_t{70000}, int64_t{1} << 40,
                      "hello", std::string(300, 'x'), "end"});
}

std::string QuicklistSample() {
  std::vector<Item> a, b;
  for (int i = 0; i < 100; ++i) a.emplace_back("n" + std::to_string(i));
  for (int64_t i = 100; i < 250; ++i) b.emplace_back(i);
  return Typed(kRdbListQuicklist, RdbLength(3) + RdbString(Ziplist(a)) + RdbString(Ziplist({})) +
                                      RdbString(Ziplist(b)));
}

std::string HashZipmap(const std::vector<std::pair<std::string, std::string>>& pairs,
                       int free = 0) {
  return Typed(kRdbHashZipmap, RdbString(Zipmap(pairs, free)));
}

std::string HashZiplist(const std::vector<std::pair<std::string, Item>>& pairs) {
  return Typed(kRdbHashZiplist, RdbString(Ziplist(Pairs(pairs))));
}

std::string ZSetZiplist(const std::vector<std::pair<std::string, Item>>& pairs) {
  return Typed(kRdbZSetZiplist, RdbString(Ziplist(Pairs(pairs))));
}

std::vector<std::pair<std::string, std::string>> ManyFieldPairs(int n) {
  std::vector<std::pair<std::string, std::string>> out;
  for (int i = 0; i < n; ++i) out.emplace_back("f" + std::to_string(i), "v" + std::to_string(i));
  return out;
}

std::vector<std::pair<std::string, Item>> ManyIntPairs(const std::string& prefix, int n) {
  std::vector<std::pair<std::string, Item>> out;
  for (int i = 0; i < n; ++i) out.emplace_back(prefix + std::to_string(i), int64_t{i});
  return out;
}

// ---- good payloads: contents, encodings and Redis's digests ----

TEST(RdbLegacyTest, ListZiplistLoadsEveryEncoding) {
  Result<Value> v = Load(ListZiplistSample());
  ASSERT_TRUE(v.ok());
  EXPECT_STREQ(v.value().EncodingName(), "quicklist");
  std::vector<std::string> want = {
      "a", "1", "-2", "300", "70000", "1099511627776", "hello", std::string(300, 'x'), "end"};
  EXPECT_EQ(ListItems(v.value()), want);
  EXPECT_EQ(Digest(v.value()), "f9306b9a99dc227333ed4a74c596d272885cd141");
}

TEST(RdbLegacyTest, ListZiplistImmediateAndWideForms) {
  // Every 4-bit immediate, the 24-bit and 64-bit extremes, and a string in the 32-bit form.
  std::vector<Item> items;
  for (int64_t i = 0; i <= 12; ++i) items.emplace_back(i);
  items.emplace_back(int64_t{-(1 << 23)});
  items.emplace_back(int64_t{INT64_MIN});
  items.emplace_back(int64_t{INT64_MAX});
  items.emplace_back(std::string(16384, 'b'));
  Result<Value> v = Load(ListZiplist(items));
  ASSERT_TRUE(v.ok());
  std::vector<std::string> got = ListItems(v.value());
  ASSERT_EQ(got.size(), 17u);
  for (int i = 0; i <= 12; ++i) EXPECT_EQ(got[i], std::to_string(i));
  EXPECT_EQ(got[13], "-8388608");
  EXPECT_EQ(got[14], "-9223372036854775808");
  EXPECT_EQ(got[15], "9223372036854775807");
  EXPECT_EQ(got[16], std::string(16384, 'b'));
}

TEST(RdbLegacyTest, ZiplistWithUnknownCountLoads) {
  std::string bytes = Typed(kRdbListZiplist, RdbString(Ziplist({"a", "b"}, 65535)));
  Result<Value> v = Load(bytes);
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(ListItems(v.value()), (std::vector<std::string>{"a", "b"}));
}

TEST(RdbLegacyTest, QuicklistOfZiplistsSkipsEmptyNodes) {
  Result<Value> v = Load(QuicklistSample());
  ASSERT_TRUE(v.ok());
  EXPECT_STREQ(v.value().EncodingName(), "quicklist");
  EXPECT_EQ(ListOf(v.value()).Size(), 250u);
  EXPECT_EQ(Digest(v.value()), "50765a913b2e7643d87445da8b133158b6ba35df");
}

TEST(RdbLegacyTest, PlainListStillLoads) {
  std::string payload = RdbLength(5);
  for (int i = 0; i < 5; ++i) payload += RdbString(std::to_string(i));
  Loaded l = LoadOk(Typed(kRdbList, payload));
  EXPECT_EQ(l.encoding, "quicklist");
  EXPECT_EQ(l.digest, "d637ace64b3acc0a64258528cc8a18d65f12e192");
}

TEST(RdbLegacyTest, ZipmapHashes) {
  Loaded small = LoadOk(HashZipmap({{"f1", "v1"}, {"f2", "2"}, {"name", "redis"}}, /*free=*/2));
  EXPECT_EQ(small.encoding, "listpack");
  EXPECT_EQ(small.digest, "0b4988fe227a63e98c462dbab135e3ce38ad9d67");
  Loaded big = LoadOk(HashZipmap(ManyFieldPairs(600)));  // zmlen 254: counted
  EXPECT_EQ(big.encoding, "hashtable");
  EXPECT_EQ(big.digest, "da5884fc7ba8a8dc69e963590622d30a3baf7439");
  // A zipmap value past hash-max-listpack-value converts (the 5-byte length form too).
  Loaded longvalue = LoadOk(HashZipmap({{"k", std::string(300, 'y')}}));
  EXPECT_EQ(longvalue.encoding, "hashtable");
  EXPECT_EQ(longvalue.digest, "4c961c15e680d2decff12da849965d4c8f9c0ef5");
}

TEST(RdbLegacyTest, ZiplistHashes) {
  Loaded small = LoadOk(HashZiplist({{"a", "1"}, {"b", int64_t{2}}, {"c", "three"}}));
  EXPECT_EQ(small.encoding, "listpack");
  EXPECT_EQ(small.digest, "c4554df9a3f558ddebd5d98950a57f95b638f273");
  Loaded big = LoadOk(HashZiplist(ManyIntPairs("f", 600)));
  EXPECT_EQ(big.encoding, "hashtable");
  EXPECT_EQ(big.digest, "1905108a639d28e90e7c8476c6dd6dcdf7a15271");
  // Redis 7.0 checks only the count of a ziplist (or listpack) hash on load.
  Loaded longvalue = LoadOk(HashZiplist({{"k", std::string(100, 'z')}}));
  EXPECT_EQ(longvalue.encoding, "listpack");
  EXPECT_EQ(longvalue.digest, "c09e661eeb500beecd078569a9a80e382cd95ad1");
}

TEST(RdbLegacyTest, ListpackHashWithLongValueStaysListpack) {
  Listpack lp;
  lp.Append("k");
  lp.Append(std::string(100, 'v'));
  Loaded l = LoadOk(Typed(kRdbHashListpack, RdbString(lp.Blob())));
  EXPECT_EQ(l.encoding, "listpack");  // as Redis 7.0.15 after DEBUG RELOAD
}

TEST(RdbLegacyTest, ZiplistZSets) {
  Loaded small = LoadOk(ZSetZiplist({{"a", int64_t{1}}, {"b", "2.5"}, {"c", int64_t{300}}}));
  EXPECT_EQ(small.encoding, "listpack");
  EXPECT_EQ(small.digest, "e82b54e17f77cf7479fea2694c9be88c0c04c39c");
  Loaded big = LoadOk(ZSetZiplist(ManyIntPairs("m", 200)));
  EXPECT_EQ(big.encoding, "skiplist");
  EXPECT_EQ(big.digest, "981002a26dc5c65b35baac65a30f21b91b0a7b44");
  Loaded longmember = LoadOk(ZSetZiplist({{std::string(100, 'q'), int64_t{1}}}));
  EXPECT_EQ(longmember.encoding, "listpack");
  EXPECT_EQ(longmember.digest, "2b0a00caa8e910848f06c7f1649483a9d7d1bdf8");
}

TEST(RdbLegacyTest, TextScoreZSets) {
  Loaded small = LoadOk(ZSetText({{"x", "1.5"}, {"y", "inf"}, {"z", "-inf"}, {"w", "-3"}}));
  EXPECT_EQ(small.encoding, "listpack");
  EXPECT_EQ(small.digest, "513bd62423fa97062c4a1bfdad396656dd726a7e");
  std::vector<std::pair<std::string, std::string>> many;
  for (int i = 0; i < 200; ++i) many.emplace_back("m" + std::to_string(i), std::to_string(i / 4.0));
  Loaded big = LoadOk(ZSetText(many));
  EXPECT_EQ(big.encoding, "skiplist");
  EXPECT_EQ(big.digest, "f8af92784654056785a6e7208a3871daa66c7ff5");
  // Unlike a ziplist, a version-1 zset converts on a long member too (as ZSET_2 does).
  Loaded longmember = LoadOk(ZSetText({{std::string(100, 'q'), "1"}}));
  EXPECT_EQ(longmember.encoding, "skiplist");
  EXPECT_EQ(longmember.digest, "2b0a00caa8e910848f06c7f1649483a9d7d1bdf8");
}

TEST(RdbLegacyTest, TextScoresAreReadAsRedisReadsThem) {
  // Redis reads the text with sscanf("%lg"): leading spaces, a numeric prefix, overflow to inf.
  Result<Value> v = Load(ZSetText({{"a", " 1x"}, {"b", "1e400"}}));
  ASSERT_TRUE(v.ok());
  ZSetObject& z = ZSetOf(v.value());
  EXPECT_EQ(z.Score("a"), std::optional<double>(1.0));
  EXPECT_EQ(z.Score("b"), std::optional<double>(std::numeric_limits<double>::infinity()));
}

TEST(RdbLegacyTest, IntsetsOfEveryWidth) {
  Loaded s16 = LoadOk(Intset({-2, 1, 3}, 2));
  EXPECT_EQ(s16.encoding, "intset");
  EXPECT_EQ(s16.digest, "cd8c572f00c448fad83a282435d6e47b31d44ec3");
  Loaded s32 = LoadOk(Intset({-5, 100000}, 4));
  EXPECT_EQ(s32.encoding, "intset");
  EXPECT_EQ(s32.digest, "862804a91d0ed842b0f8e041e894423e90140688");
  Loaded s64 = LoadOk(Intset({7, int64_t{1} << 40}, 8));
  EXPECT_EQ(s64.encoding, "intset");
  EXPECT_EQ(s64.digest, "dffbc47745002f00058220b1ba8cd782857af506");
  std::vector<int64_t> many;
  for (int i = 0; i < 600; ++i) many.push_back(i);
  Loaded big = LoadOk(Intset(many, 2));
  EXPECT_EQ(big.encoding, "hashtable");
  EXPECT_EQ(big.digest, "04d81c0962ffde34acf89d01fe2057bd59abc03f");
}

// ---- bad payloads ----

bool IsEmptyKey(const Result<Value>& v) { return !v.ok() && v.status().message() == kRdbEmptyKey; }

TEST(RdbLegacyTest, RefusesWhatRedisRefuses) {
  // Each of these answers "Bad data format" to RESTORE on Redis 7.0.15.
  const std::vector<std::pair<const char*, std::string>> bad = {
      {"hash ziplist dup", HashZiplist({{"a", "1"}, {"a", "2"}})},
      {"zipmap dup", HashZipmap({{"a", "1"}, {"a", "2"}})},
      {"zset ziplist dup", ZSetZiplist({{"a", int64_t{1}}, {"a", int64_t{2}}})},
      {"text zset dup", ZSetText({{"a", "1"}, {"a", "2"}})},
      {"text zset nan", ZSetText({{"a", "nan"}})},
      {"hash ziplist odd", Typed(kRdbHashZiplist, RdbString(Ziplist({"a", "b", "c"})))},
      {"zset ziplist odd", Typed(kRdbZSetZiplist, RdbString(Ziplist({"a"})))},
      {"quicklist empty node string", Typed(kRdbListQuicklist, RdbLength(1) + RdbString(""))},
      {"quicklist2 empty plain node",
       Typed(kRdbListQuicklist2, RdbLength(1) + RdbLength(1) + RdbString(""))},
      {"ziplist count mismatch", Typed(kRdbListZiplist, RdbString(Ziplist({"a", "b"}, 3)))},
  };
  for (const auto& [what, bytes] : bad) EXPECT_FALSE(Load(bytes).ok()) << what;

  std::string zm = Zipmap({{"a", "1"}});
  zm[0] = 5;  // zmlen says 5 pairs
  EXPECT_FALSE(Load(Typed(kRdbHashZipmap, RdbString(zm))).ok());

  // An empty zipmap is malformed to Redis 7.0 ("Zipmap integrity check failed."), not empty.
  Result<Value> empty_zipmap = Load(HashZipmap({}));
  ASSERT_FALSE(empty_zipmap.ok());
  EXPECT_EQ("Zipmap integrity check failed.", empty_zipmap.status().message());
  // Nothing in it: the empty-key error, which makes a file loader skip the key.
  EXPECT_TRUE(IsEmptyKey(Load(ListZiplist({}))));
  EXPECT_TRUE(IsEmptyKey(Load(HashZiplist({}))));
  EXPECT_TRUE(IsEmptyKey(Load(ZSetZiplist({}))));
  EXPECT_TRUE(IsEmptyKey(Load(
      Typed(kRdbListQuicklist, RdbLength(2) + RdbString(Ziplist({})) + RdbString(Ziplist({}))))));
}

TEST(RdbLegacyTest, RefusesMalformedZiplists) {
  const std::string good = Ziplist({"abc", int64_t{500}, std::string(300, 'x'), "z"});
  ASSERT_TRUE(Load(Typed(kRdbListZiplist, RdbString(good))).ok());
  auto refused = [](std::string zl) { return !Load(Typed(kRdbListZiplist, RdbString(zl))).ok(); };
  std::string zl = good;
  zl[0] ^= 1;  // zlbytes
  EXPECT_TRUE(refused(zl));
  zl = good;
  zl[4] ^= 1;  // zltail
  EXPECT_TRUE(refused(zl));
  zl = good;
  zl[10] = 1;  // the first entry's prevlen must be 0
  EXPECT_TRUE(refused(zl));
  zl = good;
  zl[11] = '\xC1';  // not an encoding
  EXPECT_TRUE(refused(zl));
  zl = good;
  zl.back() = 0;  // no terminator
  EXPECT_TRUE(refused(zl));
  zl = good;
  zl[11] = '\xFF';  // a terminator where an encoding belongs
  EXPECT_TRUE(refused(zl));
  EXPECT_TRUE(refused(good.substr(0, 10)));
  EXPECT_TRUE(refused(good.substr(0, good.size() - 1)));
  // A string length reaching past the end.
  std::string bad_len = Ziplist({"abc"});
  bad_len[11] = 0x3F;
  EXPECT_TRUE(refused(bad_len));
  // The 5-byte prevlen of the entry after the long string must be exact.
  const size_t last = good.size() - 1 - 2 - 5;  // the "z" entry: 0xFE + u32, encoding, byte
  ASSERT_EQ(static_cast<uint8_t>(good[last]), 0xFE);
  zl = good;
  zl[last + 1] ^= 1;
  EXPECT_TRUE(refused(zl));
}

TEST(RdbLegacyTest, RefusesMalformedZipmaps) {
  const std::string good = Zipmap({{"f", "v"}, {"g", std::string(300, 'w')}}, 1);
  ASSERT_TRUE(Load(Typed(kRdbHashZipmap, RdbString(good))).ok());
  auto refused = [](const std::string& zm) {
    return !Load(Typed(kRdbHashZipmap, RdbString(zm))).ok();
  };
  for (size_t cut = 0; cut < good.size(); ++cut) {
    EXPECT_TRUE(refused(good.substr(0, cut))) << cut;
  }
  std::string zm = good;
  zm[4] = 60;  // the free byte skips past the end
  EXPECT_TRUE(refused(zm));
  zm = good;
  zm[3] = '\xFF';  // the end mark where a value's length belongs
  EXPECT_TRUE(refused(zm));
  EXPECT_TRUE(refused(good + "x"));  // bytes after the end mark
}

// ---- random corruption: never a crash, and what loads is sound ----

TEST(RdbLegacyTest, RandomCorruptionNeverBreaksTheLoaders) {
  const std::vector<std::string> samples = {
      ListZiplistSample(),
      QuicklistSample(),
      HashZipmap({{"f1", "v1"}, {"f2", "2"}, {"name", "redis"}}, 2),
      HashZipmap({{"k", std::string(300, 'y')}, {"a", "b"}}),
      HashZiplist({{"a", "1"}, {"b", int64_t{2}}, {"c", "three"}, {"d", int64_t{1} << 40}}),
      ZSetZiplist({{"a", int64_t{1}}, {"b", "2.5"}, {"c", int64_t{-300}}}),
      ZSetText({{"x", "1.5"}, {"y", "inf"}, {"z", "-inf"}, {"w", "-3"}}),
      Intset({-2, 1, 3}, 2),
  };
  std::mt19937_64 rng(12);
  int refused = 0, total = 0;
  for (const std::string& good : samples) {
    ASSERT_TRUE(Load(good).ok());
    for (int i = 0; i < 1500; ++i, ++total) {
      std::string bad = good;
      if (i % 3 == 0) {
        bad.resize(rng() % bad.size());
      } else {
        for (int k = 0; k < 1 + i % 4; ++k) {
          bad[1 + rng() % (bad.size() - 1)] = static_cast<char>(rng());
        }
      }
      Result<Value> v = Load(bad);
      if (!v.ok()) {
        ++refused;
        continue;
      }
      // Whatever loads walks whole and survives its own round trip unchanged.
      const std::string digest = Digest(v.value());
      std::string again;
      RdbWriter w(&again);
      SerializeValue(v.value(), w);
      Result<Value> back = Load(again);
      ASSERT_TRUE(back.ok()) << back.status().message();
      EXPECT_EQ(Digest(back.value()), digest);
    }
  }
  EXPECT_GT(refused, total / 2);
}

}  // namespace
}  // namespace redistp
