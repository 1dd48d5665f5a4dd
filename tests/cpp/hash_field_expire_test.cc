// Unit tests for the per-field expire times of a hash (HashObject's FieldExpires index): set,
// read, clear and the smallest time; the conversion of a listpack hash; what HSET-like and
// HINCRBY-like replacements do to a field's time; removal; cloning; the loaders' builder.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "types/hash.h"

namespace redistp {
namespace {

std::map<std::string, std::pair<std::string, int64_t>> Triples(const HashObject& h) {
  std::map<std::string, std::pair<std::string, int64_t>> out;
  h.ForEachWithExpire([&out](std::string_view f, std::string_view v, int64_t when) {
    out[std::string(f)] = {std::string(v), when};
  });
  return out;
}

TEST(HashFieldExpireTest, AHashWithoutTimesHasNoIndex) {
  TypeLimits limits;
  HashObject h;
  h.Set("a", "1", limits);
  EXPECT_FALSE(h.HasFieldExpires());
  EXPECT_EQ(h.MinFieldExpire(), 0);
  int64_t when = -1;
  EXPECT_TRUE(h.FieldExpire("a", &when));
  EXPECT_EQ(when, 0);
  EXPECT_FALSE(h.FieldExpire("nope", &when));
  EXPECT_FALSE(h.SetFieldExpire("nope", 5));
  EXPECT_EQ(h.encoding(), HashObject::Encoding::kListpack);
}

TEST(HashFieldExpireTest, FirstTimeConvertsAndMinFollows) {
  TypeLimits limits;
  HashObject h;
  for (const char* f : {"a", "b", "c"}) h.Set(f, "v", limits);
  ASSERT_TRUE(h.SetFieldExpire("b", 2000));
  EXPECT_EQ(h.encoding(), HashObject::Encoding::kHashtable);
  ASSERT_TRUE(h.SetFieldExpire("c", 1000));
  EXPECT_EQ(h.MinFieldExpire(), 1000);
  EXPECT_EQ(h.FieldExpireCount(), 2u);
  ASSERT_TRUE(h.SetFieldExpire("c", 3000));  // replaces, does not add
  EXPECT_EQ(h.FieldExpireCount(), 2u);
  EXPECT_EQ(h.MinFieldExpire(), 2000);
  EXPECT_EQ(h.DueFields(2500, 10), std::vector<std::string>{"b"});
  EXPECT_EQ(h.DueFields(3000, 10), (std::vector<std::string>{"b", "c"}));
  EXPECT_EQ(h.DueFields(3000, 1), std::vector<std::string>{"b"});
  EXPECT_TRUE(h.PersistField("b"));
  EXPECT_FALSE(h.PersistField("b"));
  EXPECT_FALSE(h.PersistField("a"));
  EXPECT_EQ(h.MinFieldExpire(), 3000);
  EXPECT_TRUE(h.PersistField("c"));
  EXPECT_FALSE(h.HasFieldExpires());  // the index is freed with its last time
  EXPECT_EQ(h.MinFieldExpire(), 0);
}

TEST(HashFieldExpireTest, SetClearsUnlessKeepTtlAndDeleteDrops) {
  TypeLimits limits;
  HashObject h;
  h.Set("a", "1", limits);
  h.Set("b", "2", limits);
  h.SetFieldExpire("a", 100);
  h.SetFieldExpire("b", 200);
  h.Set("a", "9", limits, /*keep_ttl=*/true);   // same size: in place
  h.Set("b", "22", limits, /*keep_ttl=*/true);  // new size: a new node
  int64_t when = 0;
  h.FieldExpire("a", &when);
  EXPECT_EQ(when, 100);
  h.FieldExpire("b", &when);
  EXPECT_EQ(when, 200);
  h.Set("b", "333", limits);  // HSET: loses its time
  h.FieldExpire("b", &when);
  EXPECT_EQ(when, 0);
  EXPECT_EQ(h.MinFieldExpire(), 100);
  EXPECT_TRUE(h.Delete("a"));
  EXPECT_FALSE(h.HasFieldExpires());
}

TEST(HashFieldExpireTest, CloneAndBuilderKeepTriples) {
  TypeLimits limits;
  HashObject h;
  EXPECT_TRUE(h.AddWithExpire("a", "1", 0, limits));
  EXPECT_TRUE(h.AddWithExpire("b", "2", 500, limits));
  EXPECT_FALSE(h.AddWithExpire("b", "x", 0, limits));
  std::unique_ptr<HashObject> c(h.Clone());
  auto want =
      std::map<std::string, std::pair<std::string, int64_t>>{{"a", {"1", 0}}, {"b", {"2", 500}}};
  EXPECT_EQ(Triples(h), want);
  EXPECT_EQ(Triples(*c), want);
  EXPECT_EQ(c->MinFieldExpire(), 500);
  EXPECT_GT(h.MemoryBytes(0), HashObject().MemoryBytes(0));
}

}  // namespace
}  // namespace redistp
