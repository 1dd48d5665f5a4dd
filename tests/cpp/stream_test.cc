// Unit tests for types/stream: byte-exact agreement of the nodes with what Redis 7.0.15 writes
// (DUMP payloads of Debian's redis-server, minus their version and CRC trailer), iteration in
// both directions across node boundaries, XDEL and trimming against a std::map model, id parsing,
// and 7.0's entries-read rules.
#include "types/stream.h"

#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <vector>

#include "types/digest.h"
#include "types/serialize.h"
#include "types/type_ops.h"
#include "types/value.h"

namespace redistp {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

// The RDB type byte and payload of `s`, which this call takes and frees.
std::string Payload(StreamObject* s) {
  Value v = Value::Object(ValueType::kStream, s);
  std::string out;
  RdbWriter w(&out);
  SerializeValue(v, w);  // the Value owns the object and frees it
  return out;
}

// Redis 7.0.15: XADD s 1-1 a 1 b 2; XADD s 1-2 a 3 b 4; XADD s 2-0 c 5; XADD s 3-7 a xyz b hello;
// XDEL s 1-2 (then DUMP s; the group it had was destroyed first).
constexpr std::string_view kSmallDump =
    "13011000000000000000010000000000000001c3404c405112510000001f0003010101020181610281620200200900"
    "002001401102050103600902030104200b40130adfff0201018163020501062027000220050e8378797a048568656c"
    "6c6f060501ff0303070101010204000a0078ee11a4300ffc180a";

TEST(StreamTest, NodesAreByteIdenticalToRedis) {
  TypeLimits limits;
  auto* s = new StreamObject();
  s->Append({1, 1}, {"a", "1", "b", "2"}, limits);
  s->Append({1, 2}, {"a", "3", "b", "4"}, limits);
  s->Append({2, 0}, {"c", "5"}, limits);
  s->Append({3, 7}, {"a", "xyz", "b", "hello"}, limits);
  EXPECT_TRUE(s->Delete({1, 2}));
  EXPECT_FALSE(s->Delete({1, 2}));
  std::string want = Unhex(kSmallDump);
  want.resize(want.size() - 11);  // RDB version, CRC64 and redis-cli's newline
  EXPECT_EQ(Payload(s), want);
}

TEST(StreamTest, ManyNodesAndExactTrimMatchRedis) {
  // for i in 1..150: XADD s2 (i/3+1)-i f(i%4) v<i>; XDEL s2 5-15 2-3; XTRIM s2 MAXLEN 130.
  const char* hex =
#include "stream_test_dump.inc"
      ;
  TypeLimits limits;
  auto* s = new StreamObject();
  for (int i = 1; i <= 150; ++i) {
    std::string f = "f" + std::to_string(i % 4), v = "v" + std::to_string(i);
    s->Append({static_cast<uint64_t>(i / 3 + 1), static_cast<uint64_t>(i)}, {f, v}, limits);
  }
  EXPECT_FALSE(s->Delete({5, 15}));
  EXPECT_TRUE(s->Delete({2, 3}));
  StreamObject::TrimSpec spec;
  spec.maxlen = 130;
  EXPECT_EQ(s->Trim(spec), 19);
  EXPECT_EQ(s->length(), 130u);
  std::string want = Unhex(hex);
  want.resize(want.size() - 11);
  EXPECT_EQ(Payload(s), want);
}

TEST(StreamTest, ParseIds) {
  StreamID id;
  EXPECT_TRUE(ParseStreamID("5", &id, 0, false));
  EXPECT_EQ(id, (StreamID{5, 0}));
  EXPECT_TRUE(ParseStreamID("5", &id, UINT64_MAX, false));
  EXPECT_EQ(id, (StreamID{5, UINT64_MAX}));
  EXPECT_TRUE(ParseStreamID("5-7", &id, 0, true));
  EXPECT_EQ(id, (StreamID{5, 7}));
  EXPECT_TRUE(ParseStreamID("-", &id, 0, false));
  EXPECT_EQ(id, StreamID::Min());
  EXPECT_TRUE(ParseStreamID("+", &id, 0, false));
  EXPECT_EQ(id, StreamID::Max());
  EXPECT_FALSE(ParseStreamID("-", &id, 0, true));
  EXPECT_FALSE(ParseStreamID("5-", &id, 0, false));
  EXPECT_FALSE(ParseStreamID("-5", &id, 0, false));
  EXPECT_FALSE(ParseStreamID("5-x", &id, 0, false));
  EXPECT_FALSE(ParseStreamID("5-*", &id, 0, false));
  bool star = false;
  EXPECT_TRUE(ParseStreamID("5-*", &id, 0, true, &star));
  EXPECT_TRUE(star);
  EXPECT_FALSE(ParseStreamID("18446744073709551616", &id, 0, false));
  EXPECT_TRUE(ParseStreamID("18446744073709551615-18446744073709551615", &id, 0, false));
  EXPECT_EQ(id, StreamID::Max());
  EXPECT_EQ(id.ToString(), "18446744073709551615-18446744073709551615");
  EXPECT_EQ((StreamID{0, 0}).ToString(), "0-0");
  EXPECT_FALSE(ParseStreamID(std::string(128, '1'), &id, 0, false));
}

TEST(StreamTest, RandomOperationsMatchModel) {
  std::mt19937_64 rng(42);
  TypeLimits limits;
  limits.stream_node_max_entries = 7;
  limits.stream_node_max_bytes = 300;
  StreamObject s;
  std::map<StreamID, std::vector<std::string>> model;
  StreamID next{1, 0};
  for (int step = 0; step < 4000; ++step) {
    int op = static_cast<int>(rng() % 10);
    if (op < 6) {
      std::vector<std::string> fv;
      size_t pairs = 1 + rng() % 3;
      for (size_t i = 0; i < pairs; ++i) {
        fv.push_back(rng() % 2 ? "f" + std::to_string(i) : "g" + std::to_string(rng() % 5));
        fv.push_back(rng() % 3 ? std::to_string(rng() % 1000) : std::string(rng() % 40, 'x'));
      }
      std::vector<std::string_view> views(fv.begin(), fv.end());
      next.ms += rng() % 3;
      next.seq = rng() % 2 ? 0 : rng();
      if (!model.empty() && next <= model.rbegin()->first) next = s.last_id(), next.Increment();
      if (next <= s.last_id()) next = s.last_id(), next.Increment();
      s.Append(next, views, limits);
      model[next] = fv;
    } else if (op < 8 && !model.empty()) {
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % model.size()));
      StreamID id = it->first;
      EXPECT_TRUE(s.Delete(id));
      model.erase(it);
    } else if (op == 8) {
      StreamObject::TrimSpec spec;
      spec.maxlen = model.size() > 3 ? model.size() - rng() % 4 : model.size();
      spec.approx = rng() % 2;
      int64_t removed = s.Trim(spec);
      for (int64_t i = 0; i < removed; ++i) model.erase(model.begin());
    } else if (!model.empty()) {
      StreamObject::TrimSpec spec;
      spec.by = StreamObject::TrimBy::kMinId;
      auto it = model.begin();
      std::advance(it, static_cast<long>(rng() % std::min<size_t>(model.size(), 5)));
      spec.minid = it->first;
      int64_t removed = s.Trim(spec);
      for (int64_t i = 0; i < removed; ++i) model.erase(model.begin());
      if (!spec.approx) {
        EXPECT_TRUE(model.empty() || model.begin()->first >= spec.minid);
      }
    }
    ASSERT_EQ(s.length(), model.size());
    ASSERT_EQ(s.first_id(), model.empty() ? StreamID{} : model.begin()->first);
    if (step % 97 == 0 || step == 3999) {
      for (bool reverse : {false, true}) {
        StreamObject::Iterator it(s, StreamID::Min(), StreamID::Max(), reverse);
        StreamEntryView v;
        std::vector<StreamID> got;
        while (it.Next(&v)) {
          got.push_back(v.id);
          const auto& want = model.at(v.id);
          ASSERT_EQ(v.fields->size(), want.size());
          for (size_t i = 0; i < want.size(); ++i) ASSERT_TRUE((*v.fields)[i].Equals(want[i]));
        }
        std::vector<StreamID> ids;
        for (const auto& [id, fv] : model) ids.push_back(id);
        if (reverse) std::reverse(ids.begin(), ids.end());
        ASSERT_EQ(got, ids);
      }
      // A bounded range in both directions.
      if (model.size() > 4) {
        auto a = std::next(model.begin(), 1)->first, b = std::prev(model.end(), 2)->first;
        for (bool reverse : {false, true}) {
          StreamObject::Iterator it(s, a, b, reverse);
          StreamEntryView v;
          size_t n = 0;
          while (it.Next(&v)) ++n;
          EXPECT_EQ(n, model.size() - 2);
        }
      }
    }
  }
}

TEST(StreamTest, GroupsAndPending) {
  StreamObject s;
  TypeLimits limits;
  s.Append({1, 0}, {"a", "1"}, limits);
  s.Append({2, 0}, {"a", "2"}, limits);
  StreamGroup* g = s.CreateGroup("g", StreamID{}, 0);
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(s.CreateGroup("g", StreamID{}, 0), nullptr);
  StreamConsumer* alice = g->CreateConsumer("alice", 100);
  StreamConsumer* bob = g->CreateConsumer("bob", 100);
  g->AddPending({1, 0}, alice, 200);
  s.AdvanceGroup(*g, {1, 0});
  g->AddPending({2, 0}, alice, 200);
  s.AdvanceGroup(*g, {2, 0});
  EXPECT_EQ(g->entries_read, 2);
  EXPECT_EQ(s.GroupLag(*g), 0);
  g->MovePending({2, 0}, g->pel.at({2, 0}).get(), bob);
  EXPECT_EQ(alice->pel.size(), 1u);
  EXPECT_EQ(bob->pel.size(), 1u);
  EXPECT_TRUE(g->Ack({1, 0}));
  EXPECT_FALSE(g->Ack({1, 0}));
  EXPECT_EQ(g->DeleteConsumer("bob"), 1u);
  EXPECT_TRUE(g->pel.empty());
  // A deleted entry ahead of a group with an unknown counter makes its lag unknown.
  StreamGroup* h = s.CreateGroup("h", StreamID{}, StreamGroup::kEntriesReadUnknown);
  s.Append({3, 0}, {"a", "3"}, limits);
  EXPECT_TRUE(s.Delete({2, 0}));
  EXPECT_FALSE(s.GroupLag(*h).has_value());
  std::unique_ptr<StreamObject> copy(s.Clone());
  EXPECT_EQ(copy->group_count(), 2u);
  EXPECT_EQ(copy->FindGroup("g")->consumers.size(), 1u);
}

}  // namespace
}  // namespace redistp

namespace redistp {
namespace {

// DEBUG DIGEST-VALUE of the stream of NodesAreByteIdenticalToRedis on Redis 7.0.15 (groups do
// not take part).
TEST(StreamTest, DigestMatchesRedis) {
  TypeLimits limits;
  auto* s = new StreamObject();
  s->Append({1, 1}, {"a", "1", "b", "2"}, limits);
  s->Append({1, 2}, {"a", "3", "b", "4"}, limits);
  s->Append({2, 0}, {"c", "5"}, limits);
  s->Append({3, 7}, {"a", "xyz", "b", "hello"}, limits);
  s->Delete({1, 2});
  s->CreateGroup("g", StreamID{}, 0);
  Value v = Value::Object(ValueType::kStream, s);
  ValueDigest d;
  ValueDigest::Bytes out = {};
  d.AddValue(out, v);
  EXPECT_EQ(ValueDigest::Hex(out), "26e66d946b2927b7f786d03e41f54db51cd67e2d");
}

}  // namespace
}  // namespace redistp

namespace redistp {
namespace {

Result<Value> LoadPayload(std::string payload) {
  RdbReader r(payload);
  uint8_t type;
  if (!r.Byte(&type)) return Status::Error("no type byte");
  return DeserializeValue(type, r, TypeLimits());
}

// Redis 7.0.15's DUMP of a stream with a group, a consumer and a pending entry.
constexpr std::string_view kGroupDump =
    "13011000000000000000010000000000000001c3404c405112510000001f0003010101020181610281620200200900"
    "002001401102050103600902030104200b40130adfff0201018163020501062027000220050e8378797a048568656c"
    "6c6f060501ff0303070101010204010167010181ffffffffffffffff0100000000000000010000000000000001ce7a"
    "df0ca2010000010105616c696365ce7adf0ca20100000100000000000000010000000000000001";

TEST(StreamTest, LoadsRedisPayloadsAndWritesThemBack) {
  for (std::string_view hex : {kSmallDump, kGroupDump}) {
    std::string payload = Unhex(hex);
    if (hex == kSmallDump) payload.resize(payload.size() - 11);
    Result<Value> v = LoadPayload(payload);
    ASSERT_TRUE(v.ok()) << v.status().message();
    std::string out;
    RdbWriter w(&out);
    SerializeValue(v.value(), w);
    EXPECT_EQ(out, payload);
  }
  Result<Value> v = LoadPayload(Unhex(kGroupDump));
  const auto* s = static_cast<const StreamObject*>(v.value().object());
  EXPECT_EQ(s->length(), 3u);
  EXPECT_EQ(s->max_deleted_id(), (StreamID{1, 2}));
  const StreamGroup* g = s->FindGroup("g");
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->entries_read, StreamGroup::kEntriesReadUnknown);
  EXPECT_EQ(g->FindConsumer("alice")->pel.size(), 1u);
}

TEST(StreamTest, CorruptPayloadsAreRefused) {
  std::string good = Unhex(kGroupDump);
  std::mt19937_64 rng(7);
  int refused = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string bad = good;
    if (i % 3 == 0) {
      bad.resize(rng() % bad.size());
    } else {
      for (int k = 0; k < 1 + i % 4; ++k) bad[rng() % bad.size()] = static_cast<char>(rng());
    }
    Result<Value> v = LoadPayload(bad);
    if (!v.ok()) {
      ++refused;
      continue;
    }
    if (v.value().type() != ValueType::kStream) continue;  // the type byte itself was hit
    // Whatever was accepted must be walkable.
    const auto* s = static_cast<const StreamObject*>(v.value().object());
    StreamObject::Iterator it(*s, StreamID::Min(), StreamID::Max(), true);
    StreamEntryView e;
    size_t n = 0;
    while (it.Next(&e)) ++n;
    EXPECT_EQ(n, s->length());
  }
  EXPECT_GT(refused, 1000);
}

}  // namespace
}  // namespace redistp
