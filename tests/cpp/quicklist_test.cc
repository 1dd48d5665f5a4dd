// Unit tests for types/quicklist: node counts equal to Redis 7.0's for the same operations
// (read from DEBUG OBJECT's ql_nodes on Debian's redis-server 7.0.15), a randomized comparison
// with std::deque for many fill settings, the node invariants, and the memory figure.
#include "types/quicklist.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <deque>
#include <random>
#include <string>
#include <vector>

namespace redistp {
namespace {

std::vector<std::string> Forward(const Quicklist& ql) {
  std::vector<std::string> out;
  for (auto c = ql.First(); c.Valid(); c = ql.Next(c)) out.push_back(ql.Get(c).ToString());
  return out;
}

std::vector<std::string> Backward(const Quicklist& ql) {
  std::vector<std::string> out;
  for (auto c = ql.Last(); c.Valid(); c = ql.Prev(c)) out.push_back(ql.Get(c).ToString());
  return {out.rbegin(), out.rend()};
}

// No empty node, the count is the sum of the nodes, links agree both ways, and nodes respect
// the fill: at most `fill` entries (fill > 0), or within the size limit give or take one element.
// A plain node holds one element of at least `threshold` bytes; packed nodes only shorter ones.
void CheckInvariants(const Quicklist& ql, size_t max_element,
                     size_t threshold = Quicklist::kDefaultPackedThreshold) {
  ql.Recompress();  // reads may have left a node decompressed
  size_t total = 0, nodes = 0;
  const Quicklist::Node* prev = nullptr;
  size_t position = 0;
  for (const Quicklist::Node* n = ql.HeadNode(); n != nullptr; n = n->next, position++) {
    ASSERT_EQ(n->prev, prev);
    // Compression: the ends are raw; an interior node is compressed unless it is small.
    size_t depth = static_cast<size_t>(ql.compress_depth());
    bool end = position < depth || position + depth >= ql.NodeCount();
    if (depth == 0 || end) {
      ASSERT_EQ(n->lzf(), nullptr) << position;
    }
    bool was_compressed = n->lzf() != nullptr;
    const Listpack& lp = ql.NodeListpack(n);
    if (depth > 0 && !end && !was_compressed) {
      ASSERT_LT(lp.Bytes(), Quicklist::kMinCompressBytes + 1000) << "a big raw interior node";
    }
    ASSERT_FALSE(lp.Empty());
    ASSERT_TRUE(Listpack::Validate(lp.Blob(), true));
    size_t size = lp.Size();
    for (auto p = lp.First(); p != Listpack::kNone; p = lp.Next(p)) {
      ASSERT_EQ(lp.Get(p).ToString().size() >= threshold, n->plain()) << position;
    }
    if (n->plain()) {
      ASSERT_EQ(size, 1u);
    } else if (ql.fill() > 0) {
      ASSERT_LE(size, static_cast<size_t>(ql.fill()));
    } else if (ql.fill() == 0) {
      ASSERT_EQ(size, 1u);
    } else if (size > 1) {
      const size_t limits[] = {4096, 8192, 16384, 32768, 65536};
      ASSERT_LE(lp.Bytes(), limits[-ql.fill() - 1] + 2 * max_element + 16);
    }
    total += size;
    nodes++;
    prev = n;
  }
  ASSERT_EQ(total, ql.Size());
  ASSERT_EQ(nodes, ql.NodeCount());
  ql.Recompress();
}

Quicklist::Cursor FindFirst(const Quicklist& ql, std::string_view v) {
  for (auto c = ql.First(); c.Valid(); c = ql.Next(c)) {
    if (ql.Get(c).Equals(v)) return c;
  }
  return {};
}

TEST(QuicklistTest, EmptyList) {
  Quicklist ql;
  EXPECT_EQ(ql.Size(), 0u);
  EXPECT_EQ(ql.NodeCount(), 0u);
  EXPECT_FALSE(ql.First().Valid());
  EXPECT_FALSE(ql.Seek(0).Valid());
  EXPECT_FALSE(ql.PopFront().has_value());
  EXPECT_FALSE(ql.PopBack().has_value());
  EXPECT_EQ(ql.DeleteRange(0, 5), 0u);
  EXPECT_FALSE(ql.ReplaceAt(0, "x"));
}

// The same commands were run on Redis 7.0.15; its DEBUG OBJECT reported these ql_nodes.
TEST(QuicklistTest, NodeCountsMatchRedis) {
  Quicklist a(-2), b(-2);
  for (int i = 1; i <= 10000; i++) {
    a.PushBack("value:" + std::to_string(i));
    b.PushFront("value:" + std::to_string(i));
  }
  EXPECT_EQ(a.NodeCount(), 15u);
  EXPECT_EQ(b.NodeCount(), 15u);
  // LINSERT a AFTER value:<4i> yy<i>, 2000 times.
  for (int i = 1; i <= 2000; i++) {
    auto c = FindFirst(a, "value:" + std::to_string(i * 4));
    ASSERT_TRUE(c.Valid());
    a.InsertAfter(c, "yy" + std::to_string(i));
  }
  EXPECT_EQ(a.NodeCount(), 24u);
  EXPECT_EQ(a.Size(), 12000u);

  Quicklist c(5);
  for (int i = 1; i <= 1000; i++) c.PushBack(std::to_string(i));
  EXPECT_EQ(c.NodeCount(), 200u);
  // LINSERT c BEFORE <3i> x<i>, 300 times.
  for (int i = 1; i <= 300; i++) {
    auto at = FindFirst(c, std::to_string(i * 3));
    ASSERT_TRUE(at.Valid());
    c.InsertBefore(at, "x" + std::to_string(i));
  }
  EXPECT_EQ(c.NodeCount(), 320u);
  EXPECT_EQ(c.Size(), 1300u);
  CheckInvariants(c, 8);
  CheckInvariants(a, 16);
}

TEST(QuicklistTest, FillZeroAndSafetyLimit) {
  Quicklist one(0);
  for (int i = 0; i < 10; i++) one.PushBack("e");
  EXPECT_EQ(one.NodeCount(), 10u);
  Quicklist big(1000);  // entry count allows 1000, the 8 KB safety limit does not
  for (int i = 0; i < 100; i++) big.PushBack(std::string(500, 'b'));
  EXPECT_GE(big.NodeCount(), 100u * 500 / Quicklist::kSafetyLimit);
  CheckInvariants(big, 500);
  for (const Quicklist::Node* n = big.HeadNode(); n != nullptr; n = n->next) {
    EXPECT_LE(n->lp.Bytes(), Quicklist::kSafetyLimit);
  }
  Quicklist clamp(-100);
  EXPECT_EQ(clamp.fill(), -5);
  Quicklist clamp2(1 << 20);
  EXPECT_EQ(clamp2.fill(), Quicklist::kMaxFill);
}

TEST(QuicklistTest, DeleteWhileWalkingBothWays) {
  Quicklist ql(4);
  for (int i = 0; i < 100; i++) ql.PushBack(std::to_string(i % 3));
  // LREM ql 0 "1", head to tail.
  for (auto c = ql.First(); c.Valid();) {
    if (ql.Get(c).Equals("1"))
      c = ql.Delete(c);
    else
      c = ql.Next(c);
  }
  EXPECT_EQ(ql.Size(), 67u);
  // LREM ql -0 "2" from the tail: the previous cursor is taken before deleting.
  for (auto c = ql.Last(); c.Valid();) {
    auto prev = ql.Prev(c);
    if (ql.Get(c).Equals("2")) ql.Delete(c);
    c = prev;
  }
  EXPECT_EQ(ql.Size(), 34u);
  for (const auto& s : Forward(ql)) EXPECT_EQ(s, "0");
  CheckInvariants(ql, 2);
}

TEST(QuicklistTest, AppendNodeAndClone) {
  Quicklist ql;
  Listpack lp1, lp2, empty;
  lp1.Append("a");
  lp1.Append("b");
  lp2.AppendInt(3);
  ql.AppendNode(std::move(lp1));
  ql.AppendNode(std::move(empty));
  ql.AppendNode(std::move(lp2));
  EXPECT_EQ(ql.NodeCount(), 2u);
  Quicklist copy = ql.Clone();
  ql.PopFront();
  EXPECT_EQ(Forward(copy), (std::vector<std::string>{"a", "b", "3"}));
  EXPECT_EQ(Forward(ql), (std::vector<std::string>{"b", "3"}));
}

// Random operations against a deque, for fills from "64 KB nodes" to "one element per node".
TEST(QuicklistTest, RandomOperationsMatchADeque) {
  struct Setting {
    int fill, depth;
    size_t threshold = Quicklist::kDefaultPackedThreshold;
  };
  // The last ones put the elements of 30 bytes (or 300) and more into plain nodes.
  const Setting settings[] = {{-5, 0},     {-2, 0},     {-1, 0},     {0, 0},      {1, 0},
                              {2, 0},      {3, 0},      {16, 0},     {128, 0},    {-1, 1},
                              {-2, 2},     {3, 1},      {16, 3},     {0, 1},      {-2, 0, 30},
                              {-1, 1, 30}, {3, 0, 300}, {16, 2, 30}, {-2, 1, 300}};
  for (auto [fill, depth, threshold] : settings) {
    std::mt19937_64 rng(static_cast<uint64_t>(fill * 10 + depth + 1000));
    auto random_value = [&]() -> std::string {
      switch (rng() % 5) {
        case 0:
          return std::to_string(static_cast<int64_t>(rng() % 1000) - 500);
        case 1:
          return std::to_string(static_cast<int64_t>(rng()));
        case 2:
          return std::string(rng() % 40, static_cast<char>('a' + rng() % 26));
        case 3:
          return std::string(rng() % 900, 'M');
        default:
          return "k" + std::to_string(rng() % 50);
      }
    };
    Quicklist ql(fill, depth);
    std::deque<std::string> model;
    size_t max_seen = 0;
    for (int step = 0; step < 10000; step++) {
      int64_t n = static_cast<int64_t>(model.size());
      uint64_t op = rng() % 12;
      if (n > 3000) op = 5;  // bounded: pops only
      switch (op) {
        case 0:
        case 1: {
          auto v = random_value();
          ql.PushBack(v, threshold);
          model.push_back(v);
          break;
        }
        case 2: {
          auto v = random_value();
          ql.PushFront(v, threshold);
          model.push_front(v);
          break;
        }
        case 3:
        case 4:
          if (n > 0) {
            int64_t i = static_cast<int64_t>(rng() % n);
            auto v = random_value();
            bool after = rng() % 2;
            auto c = ql.Seek(rng() % 2 ? i : i - n);
            ASSERT_TRUE(c.Valid());
            if (after)
              ql.InsertAfter(c, v, threshold);
            else
              ql.InsertBefore(c, v, threshold);
            model.insert(model.begin() + i + (after ? 1 : 0), v);
          }
          break;
        case 5: {
          bool front = rng() % 2;
          auto got = front ? ql.PopFront() : ql.PopBack();
          if (n == 0) {
            ASSERT_FALSE(got.has_value());
          } else {
            ASSERT_TRUE(got.has_value());
            ASSERT_EQ(*got, front ? model.front() : model.back());
            if (front)
              model.pop_front();
            else
              model.pop_back();
          }
          break;
        }
        case 6:
          if (n > 0) {
            int64_t i = static_cast<int64_t>(rng() % n);
            auto v = random_value();
            ASSERT_TRUE(ql.ReplaceAt(i, v, threshold));
            model[i] = v;
          }
          break;
        case 7:
          if (n > 0) {
            int64_t i = static_cast<int64_t>(rng() % n);
            auto next = ql.Delete(ql.Seek(i));
            model.erase(model.begin() + i);
            if (i < n - 1) {
              ASSERT_TRUE(next.Valid());
              ASSERT_TRUE(ql.Get(next).Equals(model[i]));
            } else {
              ASSERT_FALSE(next.Valid());
            }
          }
          break;
        case 8:
          if (n > 0) {
            int64_t i = static_cast<int64_t>(rng() % n);
            size_t count = rng() % 2 ? 0 : rng() % 6;  // rare and short: the list must grow
            size_t expect = std::min<size_t>(count, static_cast<size_t>(n - i));
            ASSERT_EQ(ql.DeleteRange(rng() % 2 ? i : i - n, count), expect);
            model.erase(model.begin() + i, model.begin() + i + static_cast<int64_t>(expect));
          }
          break;
        default:
          if (n > 0) {
            int64_t i = static_cast<int64_t>(rng() % n);
            auto c = ql.Seek(i - (rng() % 2 ? n : 0));
            ASSERT_TRUE(c.Valid());
            ASSERT_TRUE(ql.Get(c).Equals(model[i]));
          }
          break;
      }
      ASSERT_EQ(ql.Size(), model.size()) << "fill " << fill << " step " << step;
      max_seen = std::max(max_seen, model.size());
      if (step % (depth > 0 ? 250 : 50) == 0) {
        std::vector<std::string> expect(model.begin(), model.end());
        ASSERT_EQ(Forward(ql), expect) << "fill " << fill << " step " << step;
        ASSERT_EQ(Backward(ql), expect);
        CheckInvariants(ql, 900, threshold);
      }
    }
    std::printf("fill %d depth %d threshold %zu: up to %zu elements, %zu nodes (%zu compressed)\n",
                fill, depth, threshold, max_seen, ql.NodeCount(), ql.CompressedNodeCount());
    if (depth > 0 && ql.NodeCount() > 2 * static_cast<size_t>(depth) + 5) {
      EXPECT_GT(ql.CompressedNodeCount(), 0u);
    }
  }
}

TEST(QuicklistTest, MemoryPerElementFigure) {
  Quicklist ql(-2);
  for (int i = 0; i < 100000; i++) ql.PushBack("value:" + std::to_string(i));
  double per = static_cast<double>(ql.AllocatedBytes()) / 100000;
  std::printf(
      "[ figure ] quicklist (fill -2): %.2f bytes/element for 100000 ~11-byte strings, "
      "%zu nodes\n",
      per, ql.NodeCount());
  EXPECT_LT(per, 16.0);

  Quicklist packed(-2, 1);
  for (int i = 0; i < 100000; i++) packed.PushBack("value:" + std::to_string(i));
  double per_packed = static_cast<double>(packed.AllocatedBytes()) / 100000;
  std::printf(
      "[ figure ] quicklist (fill -2, compress depth 1): %.2f bytes/element, "
      "%zu of %zu nodes compressed\n",
      per_packed, packed.CompressedNodeCount(), packed.NodeCount());
  EXPECT_EQ(packed.CompressedNodeCount(), packed.NodeCount() - 2);
  EXPECT_LT(per_packed, per);
}

TEST(QuicklistTest, CompressedNodesReadAndEditLikeRawOnes) {
  Quicklist ql(4, 1);
  std::vector<std::string> model;
  for (int i = 0; i < 400; i++) {
    std::string v = "element-number-" + std::to_string(i % 7) + std::string(20, 'p');
    ql.PushBack(v);
    model.push_back(v);
  }
  EXPECT_GT(ql.CompressedNodeCount(), 90u);
  EXPECT_EQ(Forward(ql), model);
  EXPECT_EQ(Backward(ql), model);
  ql.Recompress();
  EXPECT_EQ(ql.CompressedNodeCount(), ql.NodeCount() - 2);  // a walk leaves nodes compressed
  EXPECT_TRUE(ql.Get(ql.Seek(200)).Equals(model[200]));
  ql.InsertAfter(ql.Seek(201), "mid");
  model.insert(model.begin() + 202, "mid");
  ql.ReplaceAt(-150, "replaced");
  model[model.size() - 150] = "replaced";
  ql.DeleteRange(100, 37);
  model.erase(model.begin() + 100, model.begin() + 137);
  EXPECT_EQ(Forward(ql), model);
  Quicklist copy = ql.Clone();
  EXPECT_EQ(Backward(copy), model);
  CheckInvariants(ql, 40);
  CheckInvariants(copy, 40);
}

}  // namespace
}  // namespace redistp

namespace redistp {
namespace {

// DeleteRange finds its first node from the nearer end: ranges starting in either half, across
// node boundaries, with positive and negative indexes, leave exactly the model.
TEST(QuicklistDeleteRange, FromEitherHalfAcrossNodes) {
  for (int fill : {1, 3, 7, -2}) {
    for (int64_t start : {0, 1, 5, 49, 50, 51, 90, 99}) {
      for (size_t count : {1u, 2u, 9u, 40u, 200u}) {
        Quicklist ql(fill, fill == 3 ? 1 : 0);
        std::vector<std::string> model;
        for (int i = 0; i < 100; ++i) {
          ql.PushBack("e" + std::to_string(i));
          model.push_back("e" + std::to_string(i));
        }
        size_t expect = std::min<size_t>(count, model.size() - static_cast<size_t>(start));
        int64_t index = start % 2 == 0 ? start : start - 100;  // some from the tail
        ASSERT_EQ(ql.DeleteRange(index, count), expect) << fill << " " << start << " " << count;
        model.erase(model.begin() + start, model.begin() + start + static_cast<int64_t>(expect));
        std::vector<std::string> got;
        for (auto c = ql.First(); c.Valid(); c = ql.Next(c)) got.push_back(ql.Get(c).ToString());
        ASSERT_EQ(got, model) << fill << " " << start << " " << count;
        ASSERT_EQ(ql.Size(), model.size());
      }
    }
  }
}

}  // namespace
}  // namespace redistp

namespace redistp {
namespace {

// The node layouts Redis 7.0 builds with `DEBUG QUICKLIST-PACKED-THRESHOLD 10` (ql_nodes read on
// Debian's redis-server 7.0.15): large elements get nodes of their own and small neighbours
// never join them; a large element inserted mid-node splits the node around it.
TEST(QuicklistTest, PlainNodesWhereRedisPutsThem) {
  const size_t t = 10;
  Quicklist ql;
  for (const char* v : {"1", "2", "3", "0123456789", "4", "5"}) ql.PushBack(v, t);
  EXPECT_EQ(ql.NodeCount(), 3u);
  ql.PushFront("0123456789x", t);
  ql.PushFront("y", t);
  EXPECT_EQ(ql.NodeCount(), 5u);
  EXPECT_EQ(Forward(ql),
            (std::vector<std::string>{"y", "0123456789x", "1", "2", "3", "0123456789", "4", "5"}));
  CheckInvariants(ql, 20, t);

  Quicklist mid;
  for (const char* v : {"1", "2", "3", "4", "5"}) mid.PushBack(v, t);
  mid.InsertAfter(mid.Seek(2), "LLLLLLLLLLLL", t);
  EXPECT_EQ(mid.NodeCount(), 3u);
  mid.InsertBefore(mid.Seek(0), "LLLLLLLLLLLLa", t);
  EXPECT_EQ(mid.NodeCount(), 4u);
  mid.InsertBefore(mid.Seek(4), "s", t);  // before the plain node: joins the node before it
  EXPECT_EQ(mid.NodeCount(), 4u);
  EXPECT_EQ(Forward(mid), (std::vector<std::string>{"LLLLLLLLLLLLa", "1", "2", "3", "s",
                                                    "LLLLLLLLLLLL", "4", "5"}));
  CheckInvariants(mid, 20, t);

  Quicklist set;
  for (const char* v : {"1", "2", "3", "4", "5"}) set.PushBack(v, t);
  set.ReplaceAt(2, "BIGBIGBIGBIG", t);
  EXPECT_EQ(set.NodeCount(), 3u);
  set.ReplaceAt(2, "sm", t);  // plain to packed: joins the next node
  EXPECT_EQ(set.NodeCount(), 2u);
  set.ReplaceAt(0, "BIGBIGBIGBIG0", t);
  EXPECT_EQ(set.NodeCount(), 3u);
  set.ReplaceAt(0, "BIGBIGBIGBIG00", t);  // in place
  EXPECT_EQ(set.NodeCount(), 3u);
  set.ReplaceAt(-1, "BIGBIGBIGBIG5", t);
  EXPECT_EQ(set.NodeCount(), 4u);
  EXPECT_EQ(Forward(set),
            (std::vector<std::string>{"BIGBIGBIGBIG00", "2", "sm", "4", "BIGBIGBIGBIG5"}));
  CheckInvariants(set, 20, t);
}

// A loaded plain node stays plain whatever the threshold, and Clone keeps the mark.
TEST(QuicklistTest, AppendPlainNodeAndClone) {
  Quicklist ql(-2, 1);
  Listpack lp;
  lp.Append("a");
  ql.AppendNode(std::move(lp));
  ql.AppendPlainNode("12345");
  ql.AppendPlainNode(std::string(200, 'p'));
  ql.PushBack("b");
  EXPECT_EQ(ql.NodeCount(), 4u);  // "b" joins no plain node: a new node
  ql.PushBack("c");
  EXPECT_EQ(ql.NodeCount(), 4u);
  Quicklist copy = ql.Clone();
  size_t plain = 0;
  for (const Quicklist::Node* n = copy.HeadNode(); n != nullptr; n = n->next) plain += n->plain();
  EXPECT_EQ(plain, 2u);
  EXPECT_EQ(Forward(copy), Forward(ql));
  EXPECT_EQ(copy.CompressedNodeCount(), 1u);  // the 200-byte plain node is interior
}

}  // namespace
}  // namespace redistp
