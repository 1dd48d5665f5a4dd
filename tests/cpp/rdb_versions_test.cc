// Unit tests for the RDB 11 and 12 value encodings (Redis 7.2's set listpack and stream _3,
// Redis 7.4's hashes with field expire times: types/hash_rdb.h): payloads built by hand from
// the format's description load with their contents and times; what we write at each version
// loads back the same; a 7.0-format write of a hash with field TTLs keeps its fields and
// values; hostile payloads are errors.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "types/hash.h"
#include "types/hash_rdb.h"
#include "types/listpack.h"
#include "types/serialize.h"
#include "types/set.h"
#include "types/stream.h"
#include "types/type_ops.h"

namespace redistp {
namespace {

constexpr int64_t kT1 = 4102444800000;  // 2100-01-01
constexpr int64_t kT2 = kT1 + 3600 * 1000;

std::string Rdb(const Value& v, int version) {
  std::string out;
  RdbWriter w(&out, true, version);
  SerializeValue(v, w);
  return out;
}

Result<Value> Load(const std::string& bytes) {
  RdbReader r(bytes);
  uint8_t type = 0;
  if (!r.Byte(&type)) return Status::Error("no type byte");
  return DeserializeValue(type, r, TypeLimits{});
}

void Little64(std::string* out, uint64_t v) {
  for (int shift = 0; shift < 64; shift += 8) out->push_back(static_cast<char>(v >> shift));
}

// field -> (value, expire ms or 0)
using Triples = std::map<std::string, std::pair<std::string, int64_t>>;

Triples Contents(const Value& v) {
  Triples out;
  HashOf(v).ForEachWithExpire([&out](std::string_view f, std::string_view x, int64_t t) {
    out.emplace(std::string(f), std::make_pair(std::string(x), t));
  });
  return out;
}

std::set<std::string> Members(const Value& v) {
  std::set<std::string> out;
  SetOf(v).ForEach([&out](std::string_view m) { out.emplace(m); });
  return out;
}

Value HashWithTtls(const Triples& t) {
  Value v = NewHashValue();
  for (const auto& [f, p] : t) EXPECT_TRUE(HashOf(v).AddWithExpire(f, p.first, p.second, {}));
  return v;
}

std::string ListpackBlob(const std::vector<std::string>& items) {
  Listpack lp;
  for (const std::string& s : items) lp.Append(s);
  return std::string(lp.Blob());
}

TEST(RdbVersions, SetListpackLoadsIntoOurEncodings) {
  std::string bytes(1, static_cast<char>(kRdbSetListpack));
  RdbWriter w(&bytes);
  w.String(ListpackBlob({"a", "b", "hello", "17"}));
  Result<Value> v = Load(bytes);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(Members(v.value()), (std::set<std::string>{"a", "b", "hello", "17"}));
  EXPECT_STREQ(FindTypeOps(ValueType::kSet)->encoding(v.value().object()), "hashtable");

  // Integers only: an intset, as a 7.0 SADD of them would make.
  bytes.assign(1, static_cast<char>(kRdbSetListpack));
  w.String(ListpackBlob({"3", "1", "2"}));
  v = Load(bytes);
  ASSERT_TRUE(v.ok());
  EXPECT_STREQ(FindTypeOps(ValueType::kSet)->encoding(v.value().object()), "intset");
}

TEST(RdbVersions, SetListpackRefusesDuplicatesAndBadBlobsAndSkipsEmpty) {
  std::string bytes(1, static_cast<char>(kRdbSetListpack));
  RdbWriter w(&bytes);
  w.String(ListpackBlob({"a", "b", "a"}));
  EXPECT_FALSE(Load(bytes).ok());
  bytes.assign(1, static_cast<char>(kRdbSetListpack));
  w.String("not a listpack");
  EXPECT_FALSE(Load(bytes).ok());
  bytes.assign(1, static_cast<char>(kRdbSetListpack));
  w.String(ListpackBlob({}));
  EXPECT_EQ(Load(bytes).status().message(), kRdbEmptyKey);
}

TEST(RdbVersions, SmallSetsAreListpacksFromVersion11) {
  Value s = NewSetValue("x");
  for (const char* m : {"x", "y", "z"}) SetOf(s).Add(m, {});
  EXPECT_EQ(static_cast<uint8_t>(Rdb(s, kRdbVersion70)[0]), kRdbSet);
  const std::string v11 = Rdb(s, kRdbVersion72);
  EXPECT_EQ(static_cast<uint8_t>(v11[0]), kRdbSetListpack);
  Result<Value> back = Load(v11);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(Members(back.value()), (std::set<std::string>{"x", "y", "z"}));
  // A member over 64 bytes, or more than 128 members: the plain form, as 7.2 would hold it in
  // a hashtable.
  SetOf(s).Add(std::string(65, 'm'), {});
  EXPECT_EQ(static_cast<uint8_t>(Rdb(s, kRdbVersion72)[0]), kRdbSet);
  Value ints = NewSetValue("1");
  SetOf(ints).Add("1", {});
  EXPECT_EQ(static_cast<uint8_t>(Rdb(ints, kRdbVersion74)[0]), kRdbSetIntset);
}

TEST(RdbVersions, HashMetadataFromHandBuiltBytes) {
  // min expire kT1; f1 at kT1 (ttl 1), f2 none (0), f3 at kT2 (ttl kT2 - kT1 + 1).
  std::string bytes(1, static_cast<char>(kRdbHashMetadata));
  Little64(&bytes, kT1);
  RdbWriter w(&bytes);
  w.Length(3);
  w.Length(1);
  w.String("f1");
  w.String("v1");
  w.Length(0);
  w.String("f2");
  w.String("v2");
  w.Length(static_cast<uint64_t>(kT2 - kT1 + 1));
  w.String("f3");
  w.String("300");
  Result<Value> v = Load(bytes);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(Contents(v.value()),
            (Triples{{"f1", {"v1", kT1}}, {"f2", {"v2", 0}}, {"f3", {"300", kT2}}}));
  EXPECT_EQ(HashOf(v.value()).MinFieldExpire(), kT1);
}

TEST(RdbVersions, HashMetadataPreGaTakesAbsoluteTimes) {
  std::string bytes(1, static_cast<char>(kRdbHashMetadataPreGa));
  RdbWriter w(&bytes);
  w.Length(2);
  w.Length(static_cast<uint64_t>(kT2));
  w.String("a");
  w.String("1");
  w.Length(0);
  w.String("b");
  w.String("2");
  Result<Value> v = Load(bytes);
  ASSERT_TRUE(v.ok()) << v.status().message();
  EXPECT_EQ(Contents(v.value()), (Triples{{"a", {"1", kT2}}, {"b", {"2", 0}}}));
}

TEST(RdbVersions, HashListpackExAndItsPreGaForm) {
  Listpack lp;
  lp.Append("a");
  lp.Append("1");
  lp.AppendInt(kT1);
  lp.Append("b");
  lp.Append("two");
  lp.AppendInt(0);
  for (bool ga : {true, false}) {
    std::string bytes(1, static_cast<char>(ga ? kRdbHashListpackEx : kRdbHashListpackExPreGa));
    if (ga) Little64(&bytes, kT1);
    RdbWriter w(&bytes);
    w.String(lp.Blob());
    Result<Value> v = Load(bytes);
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(Contents(v.value()), (Triples{{"a", {"1", kT1}}, {"b", {"two", 0}}}));
  }
}

TEST(RdbVersions, HostileHashPayloadsAreErrors) {
  auto metadata = [](uint64_t min, uint64_t count, uint64_t ttl, const char* f) {
    std::string bytes(1, static_cast<char>(kRdbHashMetadata));
    Little64(&bytes, min);
    RdbWriter w(&bytes);
    w.Length(count);
    w.Length(ttl);
    w.String(f);
    w.String("v");
    return bytes;
  };
  EXPECT_TRUE(Load(metadata(kT1, 1, 1, "f")).ok());
  EXPECT_FALSE(Load(metadata(kT1, 2, 1, "f")).ok());                  // truncated
  EXPECT_FALSE(Load(metadata(uint64_t{1} << 62, 1, 1, "f")).ok());    // min out of range
  EXPECT_FALSE(Load(metadata(kT1, 1, uint64_t{1} << 60, "f")).ok());  // time out of range
  EXPECT_FALSE(Load(metadata(kMaxFieldExpireMs, 1, 2, "f")).ok());    // min + ttl - 1 too big
  EXPECT_EQ(Load(metadata(kT1, 0, 0, "f")).status().message(), kRdbEmptyKey);
  // A repeated field.
  std::string dup(1, static_cast<char>(kRdbHashMetadataPreGa));
  RdbWriter w(&dup);
  w.Length(2);
  for (int i = 0; i < 2; ++i) {
    w.Length(0);
    w.String("same");
    w.String("v");
  }
  EXPECT_FALSE(Load(dup).ok());
  // Listpack EX: not triples, a text expire, a negative one.
  auto lpex = [](const std::vector<std::string>& items) {
    std::string bytes(1, static_cast<char>(kRdbHashListpackExPreGa));
    RdbWriter w(&bytes);
    w.String(ListpackBlob(items));
    return bytes;
  };
  EXPECT_FALSE(Load(lpex({"a", "1"})).ok());
  EXPECT_FALSE(Load(lpex({"a", "1", "soon"})).ok());
  EXPECT_FALSE(Load(lpex({"a", "1", "-5"})).ok());
  EXPECT_FALSE(Load(lpex({"a", "1", "0", "a", "2", "0"})).ok());
  EXPECT_TRUE(Load(lpex({"a", "1", "0", "b", "2", "5"})).ok());
}

TEST(RdbVersions, HashWithFieldTtlsRoundTripsAtVersion12) {
  const Triples t{{"f1", {"v1", kT2}}, {"f2", {"v2", 0}}, {"f3", {"v3", kT1}}};
  Value v = HashWithTtls(t);
  const std::string v12 = Rdb(v, kRdbVersion74);
  EXPECT_EQ(static_cast<uint8_t>(v12[0]), kRdbHashMetadata);
  Result<Value> back = Load(v12);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Contents(back.value()), t);
  // Below 12 the fields and values stay and the times are left out.
  for (int version : {kRdbVersion70, kRdbVersion72}) {
    const std::string old = Rdb(v, version);
    EXPECT_NE(static_cast<uint8_t>(old[0]), kRdbHashMetadata);
    Result<Value> plain = Load(old);
    ASSERT_TRUE(plain.ok());
    EXPECT_EQ(Contents(plain.value()),
              (Triples{{"f1", {"v1", 0}}, {"f2", {"v2", 0}}, {"f3", {"v3", 0}}}));
  }
  // A hash without field TTLs keeps its 7.0 form at every version.
  Value plain = NewHashValue();
  HashOf(plain).Set("a", "b", {});
  EXPECT_EQ(static_cast<uint8_t>(Rdb(plain, kRdbVersion74)[0]), kRdbHashListpack);
}

TEST(RdbVersions, DropExpiredFieldsLeavesTheRest) {
  Value v = HashWithTtls({{"old", {"x", 1000}}, {"new", {"y", kT1}}, {"none", {"z", 0}}});
  EXPECT_EQ(DropExpiredFields(v, 2000), 1u);
  EXPECT_EQ(Contents(v), (Triples{{"new", {"y", kT1}}, {"none", {"z", 0}}}));
  EXPECT_EQ(DropExpiredFields(v, 2000), 0u);
  Value all = HashWithTtls({{"a", {"x", 10}}, {"b", {"y", 20}}});
  EXPECT_EQ(DropExpiredFields(all, 20), 2u);
  EXPECT_EQ(HashOf(all).size(), 0u);
}

TEST(RdbVersions, StreamVersion3CarriesAnActiveTimeAndRoundTrips) {
  auto* s = new StreamObject();
  Value v = Value::Object(ValueType::kStream, s);
  s->Append(StreamID{5, 0}, {"f", "v"}, TypeLimits{});
  StreamGroup* g = s->CreateGroup("g", StreamID{0, 0}, 0);
  ASSERT_NE(g, nullptr);
  bool created = false;
  g->CreateConsumer("c", 1234, &created);
  const std::string v10 = Rdb(v, kRdbVersion70);
  const std::string v11 = Rdb(v, kRdbVersion72);
  EXPECT_EQ(static_cast<uint8_t>(v10[0]), kRdbStreamListpacks2);
  EXPECT_EQ(static_cast<uint8_t>(v11[0]), kRdbStreamListpacks3);
  EXPECT_EQ(v11.size(), v10.size() + 8);  // one consumer, one 8-byte active time
  for (const std::string& bytes : {v10, v11}) {
    Result<Value> back = Load(bytes);
    ASSERT_TRUE(back.ok()) << back.status().message();
    EXPECT_EQ(Rdb(back.value(), kRdbVersion72), v11);
  }
}

}  // namespace
}  // namespace redistp
