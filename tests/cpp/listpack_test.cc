// Unit tests for types/listpack: byte-exact agreement with blobs Redis 7.0 wrote (taken from
// DUMP payloads of Debian's redis-server), a randomized comparison against a std::vector model,
// validation of corrupted blobs, and the memory figure per element.
#include "types/listpack.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "util/numbers.h"

namespace redistp {
namespace {

std::string Unhex(std::string_view hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) {
    out.push_back(static_cast<char>(std::stoi(std::string(hex.substr(i, 2)), nullptr, 16)));
  }
  return out;
}

std::vector<std::string> Forward(const Listpack& lp) {
  std::vector<std::string> out;
  for (auto p = lp.First(); p != Listpack::kNone; p = lp.Next(p))
    out.push_back(lp.Get(p).ToString());
  return out;
}

std::vector<std::string> Backward(const Listpack& lp) {
  std::vector<std::string> out;
  for (auto p = lp.Last(); p != Listpack::kNone; p = lp.Prev(p))
    out.push_back(lp.Get(p).ToString());
  return {out.rbegin(), out.rend()};
}

// `HSET h2 a -1 b 200 ...` in Redis 7.0.15, DUMP with rdbcompression off: the listpack inside,
// up to the last value (100 x 'x'), which RedisHashBlob() appends with its backlen and the end.
constexpr std::string_view kRedisHashBlobHead =
    "fc0000002400816102dfff02816202c0c802816302d00002816402cfff02816502f2409c0004816602f2000080"
    "04816702f3ffffff7f05816802f4ffffffffffffff7f09816902f4000000000000008009816a02843031323305"
    "816b02822d3003816c027f01816d02c08002816e02f1ffef03816f02f2ffff7f04817002f30000800005817102"
    "f4ffffff7fffffffff09817302e064";

std::string RedisHashBlob() {
  return Unhex(kRedisHashBlobHead) + std::string(100, 'x') + Unhex("66ff");
}

const std::vector<std::string> kRedisHashFields = {"a", "-1",
                                                   "b", "200",
                                                   "c", "-4096",
                                                   "d", "4095",
                                                   "e", "40000",
                                                   "f", "-8388608",
                                                   "g", "2147483647",
                                                   "h", "9223372036854775807",
                                                   "i", "-9223372036854775808",
                                                   "j", "0123",
                                                   "k", "-0",
                                                   "l", "127",
                                                   "m", "128",
                                                   "n", "-4097",
                                                   "o", "8388607",
                                                   "p", "8388608",
                                                   "q", "-2147483649",
                                                   "s", std::string(100, 'x')};

TEST(ListpackTest, EmptyLayout) {
  Listpack lp;
  EXPECT_EQ(lp.Blob(), Unhex("07000000"
                             "0000"
                             "ff"));
  EXPECT_EQ(lp.Size(), 0u);
  EXPECT_TRUE(lp.Empty());
  EXPECT_EQ(lp.First(), Listpack::kNone);
  EXPECT_EQ(lp.Last(), Listpack::kNone);
  EXPECT_EQ(lp.Seek(0), Listpack::kNone);
  EXPECT_EQ(lp.Seek(-1), Listpack::kNone);
}

TEST(ListpackTest, ReadsARedisBlobAndWritesTheSameBytes) {
  std::string blob = RedisHashBlob();
  ASSERT_TRUE(Listpack::Validate(blob, true));
  auto lp = Listpack::FromBlob(blob);
  ASSERT_TRUE(lp.has_value());
  EXPECT_EQ(Forward(*lp), kRedisHashFields);
  EXPECT_EQ(Backward(*lp), kRedisHashFields);
  // Integers come out as integers, non-canonical texts as strings.
  EXPECT_TRUE(lp->Get(lp->Seek(1)).is_int);
  EXPECT_EQ(lp->Get(lp->Seek(1)).num, -1);
  EXPECT_FALSE(lp->Get(lp->Seek(19)).is_int);  // "0123"
  EXPECT_FALSE(lp->Get(lp->Seek(21)).is_int);  // "-0"
  EXPECT_EQ(lp->Get(lp->Seek(17)).num, INT64_MIN);

  Listpack mine;
  for (const auto& s : kRedisHashFields) mine.Append(s);
  EXPECT_EQ(mine.Blob(), blob);
}

TEST(ListpackTest, RedisListBlob) {
  // RPUSH il 1 2 3 in Redis 7.0: the quicklist node's listpack.
  std::string blob = Unhex(
      "0d000000030001010201030"
      "1ff");
  Listpack mine;
  mine.Append("1");
  mine.Append("2");
  mine.AppendInt(3);
  EXPECT_EQ(mine.Blob(), blob);
}

TEST(ListpackTest, LongStringsUseWideLengthsAndMultiByteBacklens) {
  // HSET h3 k <200 x 'y'> z <5000 x 'q'> in Redis 7.0 gives a 5224-byte listpack.
  Listpack lp;
  lp.Append("k");
  lp.Append(std::string(200, 'y'));
  lp.Append("z");
  lp.Append(std::string(5000, 'q'));
  EXPECT_EQ(lp.Bytes(), 5224u);
  std::string_view b = lp.Blob();
  EXPECT_EQ(b.substr(0, 6), Unhex("681400000400"));
  EXPECT_EQ(b.substr(9, 2), Unhex("e0c8"));          // 12-bit length 200
  EXPECT_EQ(b.substr(211, 2), Unhex("01ca"));        // backlen 202 in two bytes
  EXPECT_EQ(b.substr(216, 5), Unhex("f088130000"));  // 32-bit length 5000
  EXPECT_EQ(b.substr(5221, 3), Unhex("278dff"));     // backlen 5005, terminator
  EXPECT_EQ(Backward(lp)[3], std::string(5000, 'q'));
  EXPECT_TRUE(Listpack::Validate(lp.Blob(), true));
}

TEST(ListpackTest, IntegerBoundariesRoundTrip) {
  const int64_t values[] = {0,         127,
                            128,       -1,
                            -4096,     -4097,
                            4095,      4096,
                            32767,     32768,
                            -32768,    -32769,
                            8388607,   8388608,
                            -8388608,  -8388609,
                            INT32_MAX, INT64_C(2147483648),
                            INT32_MIN, INT64_C(-2147483649),
                            INT64_MAX, INT64_MIN};
  const size_t sizes[] = {1, 1, 2, 2, 2, 3, 2, 3, 3, 4, 3, 4, 4, 5, 4, 5, 5, 9, 5, 9, 9, 9};
  for (size_t i = 0; i < std::size(values); i++) {
    Listpack lp;
    lp.AppendInt(values[i]);
    auto e = lp.Get(lp.First());
    EXPECT_TRUE(e.is_int);
    EXPECT_EQ(e.num, values[i]);
    EXPECT_EQ(lp.EntrySize(lp.First()), sizes[i] + 1) << values[i];
    EXPECT_TRUE(e.Equals(Int64ToString(values[i])));
    EXPECT_TRUE(Listpack::Validate(lp.Blob(), true));
  }
}

TEST(ListpackTest, FindWithSkipVisitsOnlyFields) {
  Listpack lp;
  for (const char* s : {"f1", "v1", "v1", "x", "f2", "10", "f3", "10"}) lp.Append(s);
  EXPECT_EQ(lp.Get(lp.Find(lp.First(), "v1", 1)).ToString(), "v1");
  EXPECT_EQ(lp.Find(lp.First(), "v1", 1), lp.Seek(2));       // the field, not the value at index 1
  EXPECT_EQ(lp.Find(lp.First(), "10", 1), Listpack::kNone);  // only values are "10"
  EXPECT_EQ(lp.Find(lp.Seek(1), "10", 1), lp.Seek(5));       // visits the values
  EXPECT_EQ(lp.Find(lp.First(), "f3", 1), lp.Seek(6));
  EXPECT_EQ(lp.Find(lp.First(), "010"), Listpack::kNone);  // not the integer 10
}

TEST(ListpackTest, CountBeyond65534IsUnknownAndRecovered) {
  Listpack lp;
  for (int i = 0; i < 65540; i++) lp.AppendInt(i % 100);
  EXPECT_EQ(lp.Blob().substr(4, 2), Unhex("ffff"));
  EXPECT_EQ(lp.Size(), 65540u);
  EXPECT_TRUE(Listpack::Validate(lp.Blob(), true));
  EXPECT_EQ(lp.Get(lp.Seek(-1)).num, 65539 % 100);
  EXPECT_EQ(lp.DeleteRange(0, 10), 10u);
  EXPECT_EQ(lp.Size(), 65530u);  // the scan writes the count back
  EXPECT_EQ(lp.Blob().substr(4, 2), Unhex("faff"));
}

TEST(ListpackTest, MergeAndSplit) {
  Listpack a, b;
  for (int i = 0; i < 10; i++) a.Append("a" + std::to_string(i));
  for (int i = 0; i < 5; i++) b.AppendInt(i * 1000);
  a.Merge(b);
  EXPECT_TRUE(b.Empty());
  EXPECT_EQ(a.Size(), 15u);
  EXPECT_TRUE(Listpack::Validate(a.Blob(), true));
  Listpack tail = a.SplitAt(4);
  EXPECT_EQ(a.Size(), 4u);
  EXPECT_EQ(tail.Size(), 11u);
  EXPECT_EQ(Forward(tail).front(), "a4");
  EXPECT_EQ(Forward(tail).back(), "4000");
  EXPECT_TRUE(Listpack::Validate(a.Blob(), true));
  EXPECT_TRUE(Listpack::Validate(tail.Blob(), true));
}

TEST(ListpackTest, ValidationRejectsBadBlobs) {
  std::string good = Unhex(
      "0d000000030001010201030"
      "1ff");
  ASSERT_TRUE(Listpack::Validate(good, true));
  auto with = [&](size_t at, uint8_t byte) {
    std::string b = good;
    b[at] = static_cast<char>(byte);
    return b;
  };
  EXPECT_FALSE(Listpack::Validate("", true));
  EXPECT_FALSE(Listpack::Validate(good.substr(0, 12), false));  // truncated
  EXPECT_FALSE(Listpack::Validate(with(0, 0x0e), false));       // total bytes wrong
  EXPECT_FALSE(Listpack::Validate(with(12, 0x00), false));      // no terminator
  EXPECT_FALSE(Listpack::Validate(with(4, 0x04), true));        // count mismatch
  std::string unknown = with(4, 0xff);
  unknown[5] = static_cast<char>(0xff);
  EXPECT_TRUE(Listpack::Validate(unknown, true));               // "unknown" is fine
  EXPECT_FALSE(Listpack::Validate(with(7, 0x02), true));        // backlen mismatch
  EXPECT_FALSE(Listpack::Validate(with(6, 0xf5), true));        // unused encoding
  EXPECT_FALSE(Listpack::Validate(with(6, 0xff), true));        // terminator inside
  EXPECT_FALSE(Listpack::Validate(with(6, 0x85), true));        // string runs past end
  EXPECT_FALSE(Listpack::Validate(with(10, 0xf0), true));       // 32-bit length cut off
  EXPECT_FALSE(Listpack::FromBlob(with(7, 0x82)).has_value());  // backlen flag, no byte
  // A string entry whose length spans the terminator.
  std::string s = Unhex("0b000000010082616203ff");
  ASSERT_TRUE(Listpack::Validate(s, true));
  s[6] = static_cast<char>(0x83);
  EXPECT_FALSE(Listpack::Validate(s, true));
}

// Random corruption of valid blobs: validation must never read outside the blob (run under the
// sanitizer build to catch that) and whatever passes must iterate cleanly both ways.
TEST(ListpackTest, RandomCorruptionNeverBreaksValidation) {
  std::mt19937_64 rng(7);
  Listpack base;
  for (const auto& s : kRedisHashFields) base.Append(s);
  base.Append(std::string(300, 'z'));
  base.Append(std::string(5000, 'w'));
  std::string blob(base.Blob());
  int accepted = 0;
  for (int round = 0; round < 20000; round++) {
    std::string b = blob;
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits; e++) b[rng() % b.size()] = static_cast<char>(rng());
    if (rng() % 4 == 0) {  // also try a truncation with a patched total
      size_t n = 7 + rng() % (b.size() - 7);
      b.resize(n);
      b[0] = static_cast<char>(n);
      b[1] = static_cast<char>(n >> 8);
      b[2] = 0;
      b[3] = 0;
      b[n - 1] = static_cast<char>(0xFF);
    }
    auto lp = Listpack::FromBlob(b);
    if (!lp) continue;
    accepted++;
    EXPECT_EQ(Forward(*lp), Backward(*lp));
    EXPECT_EQ(Forward(*lp).size(), lp->Size());
  }
  EXPECT_GT(accepted, 0);  // some edits only change data bytes
}

// Randomized model check: every operation is applied to a listpack and to a vector of strings;
// after each, both directions of iteration, Seek and the blob's validity must agree.
TEST(ListpackTest, RandomOperationsMatchAVectorModel) {
  std::mt19937_64 rng(12345);
  auto random_value = [&]() -> std::string {
    switch (rng() % 6) {
      case 0:
        return std::to_string(static_cast<int64_t>(rng() % 200) - 100);
      case 1:
        return std::to_string(static_cast<int64_t>(rng()));
      case 2:
        return std::to_string(static_cast<int32_t>(rng()));
      case 3:
        return std::string(rng() % 70, static_cast<char>('a' + rng() % 26));
      case 4:
        return std::string(rng() % 5000, 'L');
      default:
        return "0" + std::to_string(rng() % 100);  // non-canonical: stays a string
    }
  };
  Listpack lp;
  std::vector<std::string> model;
  for (int step = 0; step < 20000; step++) {
    int64_t n = static_cast<int64_t>(model.size());
    switch (rng() % 8) {
      case 0: {
        auto v = random_value();
        lp.Append(v);
        model.push_back(v);
        break;
      }
      case 1: {
        auto v = random_value();
        lp.Prepend(v);
        model.insert(model.begin(), v);
        break;
      }
      case 2: {
        auto v = random_value();
        int64_t i = n == 0 ? 0 : static_cast<int64_t>(rng() % (n + 1));
        auto pos = lp.Insert(i == n ? Listpack::kNone : lp.Seek(i), v);
        model.insert(model.begin() + i, v);
        EXPECT_TRUE(lp.Get(pos).Equals(v));
        break;
      }
      case 3:
        if (n > 0) {
          int64_t i = static_cast<int64_t>(rng() % n);
          auto next = lp.Delete(lp.Seek(i - (rng() % 2 ? n : 0)));  // also via negative index
          model.erase(model.begin() + i);
          if (i < n - 1)
            EXPECT_TRUE(lp.Get(next).Equals(model[i]));
          else
            EXPECT_EQ(next, Listpack::kNone);
        }
        break;
      case 4:
        if (n > 0) {
          int64_t i = static_cast<int64_t>(rng() % n);
          size_t count = rng() % 5;
          size_t deleted = lp.DeleteRange(i, count);
          size_t expect = std::min<size_t>(count, static_cast<size_t>(n - i));
          EXPECT_EQ(deleted, expect);
          model.erase(model.begin() + i, model.begin() + i + static_cast<int64_t>(expect));
        }
        break;
      case 5:
        if (n > 0) {
          int64_t i = static_cast<int64_t>(rng() % n);
          auto v = random_value();
          lp.Replace(lp.Seek(i), v);
          model[i] = v;
        }
        break;
      case 6:
        if (n > 0) {  // find: the first equal element in the model
          auto v = model[rng() % n];
          auto p = lp.Find(lp.First(), v);
          ASSERT_NE(p, Listpack::kNone);
          int64_t first = std::find(model.begin(), model.end(), v) - model.begin();
          EXPECT_EQ(p, lp.Seek(first));
        }
        break;
      default:
        if (n > 0 && lp.Bytes() > 30000) {  // keep it bounded
          lp.DeleteRange(0, static_cast<size_t>(n / 2));
          model.erase(model.begin(), model.begin() + n / 2);
        }
        break;
    }
    ASSERT_EQ(lp.Size(), model.size());
    if (step % 16 == 0 || model.size() < 8) {
      ASSERT_EQ(Forward(lp), model);
      ASSERT_EQ(Backward(lp), model);
      ASSERT_TRUE(Listpack::Validate(lp.Blob(), true));
    }
    if (!model.empty()) {
      int64_t i = static_cast<int64_t>(rng() % model.size());
      ASSERT_TRUE(lp.Get(lp.Seek(i)).Equals(model[i]));
      ASSERT_TRUE(lp.Get(lp.Seek(i - static_cast<int64_t>(model.size()))).Equals(model[i]));
    }
    ASSERT_EQ(lp.Seek(static_cast<int64_t>(model.size())), Listpack::kNone);
  }
}

TEST(ListpackTest, InsertingItsOwnElementIsSafe) {
  Listpack lp;
  lp.Append(std::string(100, 'q'));
  lp.Append("tail");
  auto e = lp.Get(lp.First());
  lp.Insert(lp.First(), e.str);  // the view points into the blob being reallocated
  auto e2 = lp.Get(lp.Seek(2));
  lp.Replace(lp.First(), e2.str);
  EXPECT_EQ(Forward(lp), (std::vector<std::string>{"tail", std::string(100, 'q'), "tail"}));
}

TEST(ListpackTest, RepeatedTextLooksAtEveryStrideEntryInAnyEncoding) {
  Listpack few;  // field/value pairs: values may repeat, fields may not
  for (const char* e : {"a", "1", "b", "1", "7", "x"}) few.Append(e);
  EXPECT_FALSE(few.HasRepeatedText(2));
  EXPECT_TRUE(few.HasRepeatedText(1));  // "1" twice among all entries
  few.Append("b");
  few.Append("y");
  EXPECT_TRUE(few.HasRepeatedText(2));

  Listpack many;  // past the pairwise comparison: sorted
  for (int i = 0; i < 200; i++) {
    many.Append(i % 2 ? "field:" + std::to_string(i) : std::to_string(i));
    many.Append("v");
  }
  EXPECT_FALSE(many.HasRepeatedText(2));
  many.Append("field:99");
  many.Append("v");
  EXPECT_TRUE(many.HasRepeatedText(2));

  // The integer 12 and the string "12" (not how a listpack writer stores it, but a loaded blob
  // may): one text. Header, 0x0c = 7-bit integer 12, 0x82 '1' '2' = 2-byte string, terminator.
  std::string blob = Unhex(
      "0d0000000200"
      "0c01"
      "82313203"
      "ff");
  ASSERT_TRUE(Listpack::Validate(blob, true));
  auto mixed = Listpack::FromBlob(blob);
  ASSERT_TRUE(mixed.has_value());
  EXPECT_TRUE(mixed->HasRepeatedText(1));
  EXPECT_FALSE(mixed->HasRepeatedText(2));
}

// Memory per element: 128 small values (Redis's default list-max-listpack-size of 8 KB holds
// many more), as allocated by jemalloc.
TEST(ListpackTest, MemoryPerElementFigure) {
  Listpack ints, strs;
  for (int i = 0; i < 128; i++) {
    ints.AppendInt(i * 37);
    strs.Append("member:" + std::to_string(i));
  }
  double per_int = static_cast<double>(ints.AllocatedBytes()) / 128;
  double per_str = static_cast<double>(strs.AllocatedBytes()) / 128;
  std::printf("[ figure ] listpack: %.2f bytes/element for small ints, %.2f for ~10-byte strings\n",
              per_int, per_str);
  EXPECT_LT(per_int, 4.0);
  EXPECT_LT(per_str, 14.0);
}

}  // namespace
}  // namespace redistp
