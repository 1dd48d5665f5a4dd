// Unit tests for the set, hash and sorted-set values (types/set.h, hash.h, zset.h) through their
// TypeOps rows: the encoding Redis 7.0 picks and its conversions at the configured limits, deep
// copies, DEBUG DIGEST-VALUE and RDB bytes equal to what Redis 7.0.15 answers for the same
// commands, round trips through the loaders, and hostile RDB input.
#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "types/digest.h"
#include "types/hash.h"
#include "types/serialize.h"
#include "types/set.h"
#include "types/zset.h"

namespace redistp {
namespace {

std::string Digest(const Value& v) {
  ValueDigest sha;
  ValueDigest::Bytes d = {};
  sha.AddValue(d, v);
  return ValueDigest::Hex(d);
}

std::string Rdb(const Value& v) {
  std::string out;
  RdbWriter w(&out);
  SerializeValue(v, w);
  return out;
}

Result<Value> Load(const std::string& bytes, const TypeLimits& limits = TypeLimits{}) {
  RdbReader r(bytes);
  uint8_t type = 0;
  if (!r.Byte(&type)) return Status::Error("no type byte");
  return DeserializeValue(type, r, limits);
}

std::set<std::string> Members(const Value& v) {
  std::set<std::string> out;
  SetOf(v).ForEach([&out](std::string_view m) { out.emplace(m); });
  return out;
}

std::map<std::string, std::string> Fields(const Value& v) {
  std::map<std::string, std::string> out;
  HashOf(v).ForEach([&out](std::string_view f, std::string_view x) { out.emplace(f, x); });
  return out;
}

std::vector<std::pair<std::string, double>> Pairs(const Value& v) {
  std::vector<std::pair<std::string, double>> out;
  ZSetOf(v).ForEach([&out](std::string_view m, double s) { out.emplace_back(m, s); });
  return out;
}

// --- sets ----------------------------------------------------------------------------------

Value MakeSet(const std::vector<std::string>& members, const TypeLimits& limits = TypeLimits{}) {
  Value v = NewSetValue(members.front());
  for (const std::string& m : members) SetOf(v).Add(m, limits);
  return v;
}

// Redis 7.0.15: SADD si 3 1 2 -5 / SADD ss a b c 10.
TEST(SetValueTest, IntsetDigestAndBytesEqualRedis) {
  Value v = MakeSet({"3", "1", "2", "-5"});
  EXPECT_STREQ(v.EncodingName(), "intset");
  EXPECT_EQ(Digest(v), "5e497276f46b9037a75afe0286ef7a77cbed85e4");
  const std::string redis(
      "\x0b\x10\x02\x00\x00\x00\x04\x00\x00\x00\xfb\xff\x01\x00\x02\x00\x03\x00", 18);
  EXPECT_EQ(Rdb(v), redis);
  Result<Value> back = Load(redis);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_STREQ(back.value().EncodingName(), "intset");
  EXPECT_EQ(Members(back.value()), (std::set<std::string>{"-5", "1", "2", "3"}));
}

TEST(SetValueTest, HashtableDigestEqualsRedisAndLoadsRedisBytes) {
  Value v = MakeSet({"a", "b", "c", "10"});
  EXPECT_STREQ(v.EncodingName(), "hashtable");
  EXPECT_EQ(Digest(v), "e8e95c0569b53a3f5173aee20faee447fe695d97");
  Result<Value> back =
      Load(std::string("\x02\x04\x01"
                       "c"
                       "\x01"
                       "b"
                       "\xc0\x0a\x01"
                       "a",
                       10));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Members(back.value()), (std::set<std::string>{"a", "b", "c", "10"}));
  Result<Value> round = Load(Rdb(v));
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(Digest(round.value()), Digest(v));
}

TEST(SetValueTest, IntsetConvertsPastItsLimitOrOnANonInteger) {
  TypeLimits small;
  small.set_max_intset_entries = 3;
  Value v = MakeSet({"1", "2", "3"}, small);
  EXPECT_STREQ(v.EncodingName(), "intset");
  EXPECT_TRUE(SetOf(v).Add("4", small));
  EXPECT_STREQ(v.EncodingName(), "hashtable");
  Value w = MakeSet({"1"});
  EXPECT_TRUE(SetOf(w).Add("007", TypeLimits{}));  // not canonical: a string
  EXPECT_STREQ(w.EncodingName(), "hashtable");
  EXPECT_TRUE(SetOf(w).Contains("1"));
  EXPECT_FALSE(SetOf(w).Add("1", TypeLimits{}));
  EXPECT_TRUE(SetOf(w).Remove("007"));
  EXPECT_EQ(SetOf(w).size(), 1u);
  Value c = w.Clone();
  SetOf(w).Remove("1");
  EXPECT_TRUE(w.IsEmptyAggregate());
  EXPECT_EQ(Members(c), (std::set<std::string>{"1"}));
  // An intset loaded over the current limit converts, as Redis does.
  Result<Value> big = Load(Rdb(MakeSet({"1", "2", "3", "4"})), small);
  ASSERT_TRUE(big.ok());
  EXPECT_STREQ(big.value().EncodingName(), "hashtable");
}

// --- hashes --------------------------------------------------------------------------------

Value MakeHash(const std::vector<std::pair<std::string, std::string>>& fields,
               const TypeLimits& limits = TypeLimits{}) {
  Value v = NewHashValue();
  for (const auto& [f, x] : fields) HashOf(v).Set(f, x, limits);
  return v;
}

// Redis 7.0.15: HSET h f1 v1 f2 2 num 12345678901.
TEST(HashValueTest, ListpackDigestAndBytesEqualRedis) {
  Value v = MakeHash({{"f1", "v1"}, {"f2", "2"}, {"num", "12345678901"}});
  EXPECT_STREQ(v.EncodingName(), "listpack");
  EXPECT_EQ(Digest(v), "3341f57320c44eb7d942e34c0ae8f46dcc76b7aa");
  const std::string redis(
      "\x10\x24\x24\x00\x00\x00\x06\x00\x82"
      "f1"
      "\x03\x82"
      "v1"
      "\x03\x82"
      "f2"
      "\x03\x02\x01\x83"
      "num"
      "\x04\xf4\x35\x1c\xdc\xdf\x02\x00\x00\x00\x09\xff",
      38);
  EXPECT_EQ(Rdb(v), redis);
  Result<Value> back = Load(redis);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Fields(back.value()), Fields(v));
}

// Redis 7.0.15 with hash-max-listpack-entries 1: HSET h2 f1 v1 f2 v2.
TEST(HashValueTest, ConvertsAtTheLimitsAndDigestsLikeRedis) {
  TypeLimits one;
  one.hash_max_listpack_entries = 1;
  Value v = MakeHash({{"f1", "v1"}, {"f2", "v2"}}, one);
  EXPECT_STREQ(v.EncodingName(), "hashtable");
  EXPECT_EQ(Digest(v), "047cc60ea73a34cde6d08a2721a4a26d19ee6570");
  Value w = MakeHash({{"f", std::string(65, 'x')}});
  EXPECT_STREQ(w.EncodingName(), "hashtable") << "a value over hash-max-listpack-value";
  std::string got;
  ASSERT_TRUE(HashOf(v).Get("f2", &got));
  EXPECT_EQ(got, "v2");
  EXPECT_FALSE(HashOf(v).Set("f2", "longer value", one));
  ASSERT_TRUE(HashOf(v).Get("f2", &got));
  EXPECT_EQ(got, "longer value");
  Result<Value> round = Load(Rdb(v), one);
  ASSERT_TRUE(round.ok());
  EXPECT_EQ(Fields(round.value()), Fields(v));
  EXPECT_TRUE(HashOf(v).Delete("f1"));
  EXPECT_TRUE(HashOf(v).Delete("f2"));
  EXPECT_TRUE(v.IsEmptyAggregate());
}

TEST(HashValueTest, LoadingRejectsOddAndDuplicateListpacks) {
  Listpack odd;
  odd.Append("f");
  std::string bytes = "\x10";
  RdbWriter w(&bytes);
  w.String(odd.Blob());
  EXPECT_FALSE(Load(bytes).ok());
  Listpack dup;
  for (const char* s : {"f", "1", "f", "2"}) dup.Append(s);
  bytes = "\x10";
  w.String(dup.Blob());
  EXPECT_FALSE(Load(bytes).ok());
}

// --- sorted sets ---------------------------------------------------------------------------

Value MakeZSet(const std::vector<std::pair<std::string, double>>& pairs,
               const TypeLimits& limits = TypeLimits{}) {
  Value v = NewZSetValue(pairs.front().first, limits);
  for (const auto& [m, s] : pairs) ZSetOf(v).Add(m, s, limits);
  return v;
}

const double kInf = std::numeric_limits<double>::infinity();

// Redis 7.0.15: ZADD z 1 a 2.5 b -3 c 0 d inf e.
TEST(ZSetValueTest, ListpackDigestAndBytesEqualRedis) {
  Value v = MakeZSet({{"a", 1}, {"b", 2.5}, {"c", -3}, {"d", 0}, {"e", kInf}});
  EXPECT_STREQ(v.EncodingName(), "listpack");
  EXPECT_EQ(Digest(v), "aa987eae5d7c3d7380152bc72ae7c8427942d92e");
  const std::string redis(
      "\x11\x27\x27\x00\x00\x00\x0a\x00\x81"
      "c"
      "\x02\xdf\xfd\x02\x81"
      "d"
      "\x02\x00\x01\x81"
      "a"
      "\x02\x01\x01\x81"
      "b"
      "\x02\x83"
      "2.5"
      "\x04\x81"
      "e"
      "\x02\x83"
      "inf"
      "\x04\xff",
      41);
  EXPECT_EQ(Rdb(v), redis);
  Result<Value> back = Load(redis);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Pairs(back.value()), Pairs(v));
}

// Redis 7.0.15 with zset-max-listpack-entries 2: ZADD z2 1 a 2.5 b -3 c.
TEST(ZSetValueTest, SkiplistPastTheLimitDigestsLikeRedisAndRoundTrips) {
  TypeLimits two;
  two.zset_max_listpack_entries = 2;
  Value v = MakeZSet({{"a", 1}, {"b", 2.5}, {"c", -3}}, two);
  EXPECT_STREQ(v.EncodingName(), "skiplist");
  EXPECT_EQ(Digest(v), "2dd2ef669bd842b340aed0cb20be587954151e2b");
  EXPECT_EQ(Pairs(v),
            (std::vector<std::pair<std::string, double>>{{"c", -3}, {"a", 1}, {"b", 2.5}}));
  // ZSET_2 under the default limits loads back as a listpack, like Redis.
  Result<Value> small = Load(Rdb(v));
  ASSERT_TRUE(small.ok()) << small.status().message();
  EXPECT_STREQ(small.value().EncodingName(), "listpack");
  EXPECT_EQ(Pairs(small.value()), Pairs(v));
  Result<Value> big = Load(Rdb(v), two);
  ASSERT_TRUE(big.ok());
  EXPECT_STREQ(big.value().EncodingName(), "skiplist");
}

TEST(ZSetValueTest, UpdatesKeepOrderAndLongMembersStartAsSkiplist) {
  Value v = MakeZSet({{"x", 5}, {"y", 1}});
  EXPECT_EQ(ZSetOf(v).Add("y", 9, TypeLimits{}), ZSetObject::AddResult::kUpdated);
  EXPECT_EQ(ZSetOf(v).Add("y", 9, TypeLimits{}), ZSetObject::AddResult::kUnchanged);
  EXPECT_EQ(Pairs(v), (std::vector<std::pair<std::string, double>>{{"x", 5}, {"y", 9}}));
  EXPECT_EQ(*ZSetOf(v).Score("x"), 5);
  Value c = v.Clone();
  EXPECT_TRUE(ZSetOf(v).Remove("x"));
  EXPECT_EQ(Pairs(c).size(), 2u);
  Value w = MakeZSet({{std::string(65, 'm'), 1}});
  EXPECT_STREQ(w.EncodingName(), "skiplist");
  char buf[32];
  EXPECT_EQ(std::string(buf, ScoreText(-0.0, buf)), "0");  // Redis 7.0 stores -0 as 0
  EXPECT_EQ(std::string(buf, ScoreText(3, buf)), "3");
  EXPECT_EQ(std::string(buf, ScoreText(0.1, buf)), "0.10000000000000001");
  EXPECT_EQ(std::string(buf, ScoreText(-kInf, buf)), "-inf");
}

TEST(ZSetValueTest, LoadingRejectsBadScoresAndDuplicates) {
  Listpack lp;
  for (const char* s : {"a", "notanumber"}) lp.Append(s);
  std::string bytes = "\x11";
  RdbWriter w(&bytes);
  w.String(lp.Blob());
  EXPECT_FALSE(Load(bytes).ok());
  Listpack dup;
  for (const char* s : {"a", "1", "a", "2"}) dup.Append(s);
  bytes = "\x11";
  w.String(dup.Blob());
  EXPECT_FALSE(Load(bytes).ok());
}

// --- held in place ------------------------------------------------------------------------

// True when the aggregate's object lies inside the 16 bytes of `v` (no heap block of its own).
bool HeldInPlace(const Value& v) {
  const auto* begin = reinterpret_cast<const unsigned char*>(&v);
  const auto* obj = static_cast<const unsigned char*>(v.object());
  return obj >= begin && obj < begin + sizeof(Value);
}

// A hash, set or sorted set lives inside its Value in both encodings, and moves with it: after
// a move (the keyspace's Entry::Create, a RENAME) and a deep copy, each one still answers with
// its own elements, and converting either way leaves nothing behind (ASan's leak check).
TEST(InPlaceValueTest, HashSetAndZSetLiveInTheirValueAndMoveWithIt) {
  TypeLimits small;
  small.hash_max_listpack_entries = 2;
  small.set_max_intset_entries = 2;
  small.zset_max_listpack_entries = 2;
  Value h = MakeHash({{"a", "1"}});
  Value s = MakeSet({"1"});
  Value z = NewZSetValue("m", small);
  ZSetOf(z).Add("m", 1.5, small);
  for (const Value* v : {&h, &s, &z}) EXPECT_TRUE(HeldInPlace(*v)) << v->EncodingName();
  // The small encodings cost their packed buffer alone: no object in front of it.
  EXPECT_EQ(h.HeapBytes(), HashOf(h).listpack().AllocatedBytes());
  EXPECT_EQ(s.HeapBytes(), SetOf(s).intset().AllocatedBytes());
  EXPECT_EQ(z.HeapBytes(), ZSetOf(z).listpack().AllocatedBytes());

  Value h2(std::move(h));
  Value s2(std::move(s));
  Value z2(std::move(z));
  EXPECT_TRUE(h.is_string() && s.is_string() && z.is_string());  // moved-from: empty strings
  EXPECT_TRUE(HeldInPlace(h2) && HeldInPlace(s2) && HeldInPlace(z2));
  // Past the limits, into the large encodings, through the moved-to Values.
  for (const char* f : {"b", "c"}) HashOf(h2).Set(f, "2", small);
  for (const char* m : {"2", "3"}) SetOf(s2).Add(m, small);
  for (const char* m : {"n", "o"}) ZSetOf(z2).Add(m, 2.5, small);
  EXPECT_STREQ(h2.EncodingName(), "hashtable");
  EXPECT_STREQ(s2.EncodingName(), "hashtable");
  EXPECT_STREQ(z2.EncodingName(), "skiplist");
  EXPECT_TRUE(HeldInPlace(h2) && HeldInPlace(s2) && HeldInPlace(z2));

  Value hc = h2.Clone(), sc = s2.Clone(), zc = z2.Clone();
  EXPECT_TRUE(HeldInPlace(hc) && HeldInPlace(sc) && HeldInPlace(zc));
  HashOf(h2).Delete("a");
  SetOf(s2).Remove("1");
  ZSetOf(z2).Remove("m");
  EXPECT_EQ(Fields(hc), (std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}, {"c", "2"}}));
  EXPECT_EQ(Members(sc), (std::set<std::string>{"1", "2", "3"}));
  EXPECT_EQ(ZSetOf(zc).size(), 3u);
  EXPECT_EQ(HashOf(h2).size(), 2u);

  // Back to the packed form: a sorted set trimmed under its limit converts on load, as Redis.
  Result<Value> back = Load(Rdb(z2), TypeLimits{});
  ASSERT_TRUE(back.ok());
  EXPECT_STREQ(back.value().EncodingName(), "listpack");
  EXPECT_TRUE(HeldInPlace(back.value()));
  // Move-assignment over a large value frees it (the leak check sees the table go).
  hc = std::move(sc);
  EXPECT_EQ(Members(hc), (std::set<std::string>{"1", "2", "3"}));
}

}  // namespace
}  // namespace redistp
