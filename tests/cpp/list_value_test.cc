// Unit tests for the list value (types/list.h) through its TypeOps row: encoding name, deep
// copy, digest and RDB bytes equal to what Redis 7.0.15 answers for the same list, loading
// with validation, and the keyspace deleting a list a mutation left empty.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "db/database.h"
#include "types/digest.h"
#include "types/list.h"
#include "types/serialize.h"

namespace redistp {
namespace {

Value MakeList(const std::vector<std::string>& items) {
  Value v = NewListValue(TypeLimits{});
  for (const std::string& s : items) ListOf(v).PushBack(s);
  return v;
}

std::vector<std::string> Items(const Value& v) {
  std::vector<std::string> out;
  const Quicklist& ql = ListOf(v);
  for (Quicklist::Cursor c = ql.First(); c.Valid(); c = ql.Next(c)) {
    out.push_back(ql.Get(c).ToString());
  }
  return out;
}

const std::vector<std::string> kItems = {"a", "b", "c", "1", "-2", "hello"};

TEST(ListValueTest, EncodingLengthAndClone) {
  Value v = MakeList(kItems);
  EXPECT_EQ(v.type(), ValueType::kList);
  EXPECT_STREQ(v.EncodingName(), "quicklist");
  EXPECT_FALSE(v.IsEmptyAggregate());
  Value c = v.Clone();
  ListOf(v).PushBack("only-in-original");
  EXPECT_EQ(Items(c), kItems) << "the clone is deep";
  EXPECT_STREQ(c.EncodingName(), "quicklist");
  EXPECT_GT(v.HeapBytes(0), 0u);
  EXPECT_TRUE(NewListValue(TypeLimits{}).IsEmptyAggregate());
}

// `RPUSH l a b c 1 -2 hello` on Redis 7.0.15: DEBUG DIGEST-VALUE l and DUMP l (object part).
TEST(ListValueTest, DigestAndRdbBytesEqualRedis) {
  Value v = MakeList(kItems);
  ValueDigest sha;
  ValueDigest::Bytes d = {};
  sha.AddValue(d, v);
  EXPECT_EQ(ValueDigest::Hex(d), "a5328851e5988469159f3ca33b46385bfd368a4f");

  std::string out;
  RdbWriter w(&out);
  SerializeValue(v, w);
  const std::string redis(
      "\x12\x01\x02\x1c\x1c\x00\x00\x00\x06\x00\x81"
      "a"
      "\x02\x81"
      "b"
      "\x02\x81"
      "c"
      "\x02\x01\x01\xdf\xfe\x02\x85"
      "hello"
      "\x06\xff",
      32);
  EXPECT_EQ(out, redis);

  RdbReader r(redis);
  uint8_t type;
  ASSERT_TRUE(r.Byte(&type));
  Result<Value> back = DeserializeValue(type, r, TypeLimits{});
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(Items(back.value()), kItems);
}

TEST(ListValueTest, LoadingRejectsBadBlobsAndSkipsEmptyLists) {
  // One packed node whose listpack claims more bytes than it has.
  const std::string bad("\x01\x02\x07\x10\x00\x00\x00\x00\x00\xff", 10);
  RdbReader r1(bad);
  EXPECT_FALSE(DeserializeValue(kRdbListQuicklist2, r1, TypeLimits{}).ok());
  // Zero nodes: an empty key.
  const std::string empty("\x00", 1);
  RdbReader r2(empty);
  Result<Value> e = DeserializeValue(kRdbListQuicklist2, r2, TypeLimits{});
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().message(), kRdbEmptyKey);
  // The plain form: a count and the elements.
  const std::string plain("\x02\x01x\xc0\x05", 5);
  RdbReader r3(plain);
  Result<Value> p = DeserializeValue(kRdbList, r3, TypeLimits{});
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ(Items(p.value()), (std::vector<std::string>{"x", "5"}));
}

class Recorder : public KeyspaceListener {
 public:
  void OnKeyEvent(const KeyEvent& ev) override {
    log.push_back(std::string(ev.kind == KeyEventKind::kRemoved ? "removed:" : "other:") +
                  (ev.notice.name ? ev.notice.name : ""));
  }
  void OnFlush(Database&) override {}
  void OnSwap(Database&, Database&) override {}
  std::vector<std::string> log;
};

TEST(ListValueTest, AMutationThatEmptiesTheListDeletesTheKey) {
  Recorder rec;
  KeyspaceContext ctx;
  ctx.listener = &rec;
  Database db(0, &ctx);
  Entry* e = db.Add("q", MakeList({"only"}), KeyNotice{kNotifyList, "rpush"});
  {
    Mutation m = db.Mutate(e, KeyNotice{kNotifyList, "lpop"});
    ASSERT_TRUE(ListOf(m.value()).PopFront().has_value());
    EXPECT_FALSE(m.Commit()) << "the emptied list is gone";
  }
  EXPECT_EQ(db.Peek("q"), nullptr);
  EXPECT_EQ(rec.log, (std::vector<std::string>{"other:rpush", "other:lpop", "removed:del"}));
}

}  // namespace
}  // namespace redistp
