// DUMP / RESTORE through the in-process harness: what RESTORE propagates (checked against
// Redis 7.0.15's AOF for the same commands), and a loop of randomly corrupted payloads, each
// given a valid trailer so the value loaders see it, which must answer an error or OK and
// never crash (run it under the sanitizer build to catch memory errors too).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "harness.h"
#include "types/serialize.h"
#include "util/crc64.h"

namespace redistp::testing {
namespace {

using Records = std::vector<std::vector<std::string>>;

std::string At(Harness& h, int64_t delta) { return std::to_string(h.clock().WallMs() + delta); }

// `body` with version 10 and the CRC-64 of both appended.
std::string Wrap(std::string body) {
  body.push_back(static_cast<char>(kRdbFormatVersion));
  body.push_back(0);
  uint64_t crc = Crc64(0, body);
  for (int shift = 0; shift < 64; shift += 8) body.push_back(static_cast<char>(crc >> shift));
  return body;
}

TEST(DumpRestore, RelativeTtlIsPropagatedAsAbsttl) {
  Harness h;
  h.Run("a", {"SET", "src", "v"});
  const std::string d = h.Run("a", {"DUMP", "src"}).str;
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"RESTORE", "k1", "0", d}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"RESTORE", "k2", "5000", d, "IDLETIME", "10"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"RESTORE", "k3", At(h, 7000), d, "ABSTTL"}).Text(), "OK");
  EXPECT_EQ(h.Propagated(), (Records{{"RESTORE", "k1", "0", d},
                                     {"RESTORE", "k2", At(h, 5000), d, "IDLETIME", "10", "ABSTTL"},
                                     {"RESTORE", "k3", At(h, 7000), d, "ABSTTL"}}));
}

TEST(DumpRestore, PastTtlRestoresNothingAndAReplacedKeyIsADeletion) {
  Harness h;
  h.Run("a", {"SET", "src", "v"});
  h.Run("a", {"SET", "old", "v"});
  const std::string d = h.Run("a", {"DUMP", "src"}).str;
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"RESTORE", "new", "1", d, "ABSTTL"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"EXISTS", "new"}).integer, 0);
  EXPECT_EQ(h.Run("a", {"RESTORE", "old", "1", d, "ABSTTL", "REPLACE"}).Text(), "OK");
  EXPECT_EQ(h.Run("a", {"EXISTS", "old"}).integer, 0);
  EXPECT_EQ(h.Propagated(), (Records{{"DEL", "old"}}));
}

TEST(DumpRestore, FailedRestoresPropagateNothing) {
  Harness h;
  h.Run("a", {"SET", "src", "v"});
  const std::string d = h.Run("a", {"DUMP", "src"}).str;
  h.Propagated();
  EXPECT_EQ(h.Run("a", {"RESTORE", "src", "0", d}).kind, Frame::Kind::kError);
  EXPECT_EQ(h.Run("a", {"RESTORE", "x", "0", "garbage"}).kind, Frame::Kind::kError);
  EXPECT_EQ(h.Run("a", {"RESTORE", "x", "0", Wrap("\x02\x00")}).Text(),
            "(error) ERR Bad data format");
  EXPECT_EQ(h.Propagated(), Records{});
}

// Every type and encoding, dumped, then corrupted at random: bytes flipped, cut, inserted or
// duplicated, and re-wrapped with a correct trailer. The server must answer each RESTORE
// (OK or an error) and stay consistent: a restored key can be read back, dumped and restored.
TEST(DumpRestore, RandomlyCorruptedPayloadsNeverCrash) {
  Harness h;
  h.Run("a", {"SET", "s", "hello world, a string long enough to be compressed: aaaaaaaaaaaa"});
  h.Run("a", {"SET", "n", "12345"});
  h.Run("a", {"RPUSH", "l", "a", "b", "1", "2", "300000"});
  h.Run("a", {"SADD", "si", "1", "2", "3"});
  h.Run("a", {"SADD", "sh", "a", "b", "c"});
  h.Run("a", {"ZADD", "zl", "1", "a", "2", "b"});
  h.Run("a", {"HSET", "hl", "f", "v", "g", "w"});
  h.Run("a", {"XADD", "x", "1-1", "f", "v"});
  h.Run("a", {"XADD", "x", "2-1", "f", "v", "g", "w"});
  h.Run("a", {"XGROUP", "CREATE", "x", "g", "0"});
  h.Run("a", {"XREADGROUP", "GROUP", "g", "c", "COUNT", "1", "STREAMS", "x", ">"});
  for (int i = 0; i < 200; ++i) {
    const std::string m = std::to_string(i);
    h.Run("a", {"RPUSH", "lq", std::string(40, 'a') + m});
    h.Run("a", {"ZADD", "zs", m, "m" + m});
    h.Run("a", {"HSET", "hh", "f" + m, std::string(70, 'v')});
    h.Run("a", {"SADD", "sb", "m" + m});
  }
  std::vector<std::string> bodies;
  for (const char* k : {"s", "n", "l", "si", "sh", "zl", "hl", "x", "lq", "zs", "hh", "sb"}) {
    std::string d = h.Run("a", {"DUMP", k}).str;
    ASSERT_GT(d.size(), 10u) << k;
    bodies.push_back(d.substr(0, d.size() - 10));
  }
  std::mt19937 rng(20261124);
  int ok = 0;
  int errors = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string b = bodies[rng() % bodies.size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !b.empty(); ++e) {
      const size_t pos = rng() % b.size();
      switch (rng() % 5) {
        case 0:
          b[pos] = static_cast<char>(b[pos] ^ (1 << (rng() % 8)));
          break;
        case 1:
          b[pos] = static_cast<char>(rng());
          break;
        case 2:
          b.resize(pos);
          break;
        case 3:
          b.insert(pos, 1, static_cast<char>(rng()));
          break;
        default:
          b.insert(pos, b.substr(pos, rng() % 16));
          break;
      }
    }
    Frame r = h.Run("a", {"RESTORE", "t", "0", Wrap(b), "REPLACE"});
    if (r.kind == Frame::Kind::kError) {
      EXPECT_EQ(r.str, "ERR Bad data format") << "round " << round;
      ++errors;
      continue;
    }
    ASSERT_EQ(r.Text(), "OK") << "round " << round;
    ++ok;
    // A value that loaded is a value: it can be dumped and restored again, and read whole.
    Frame again = h.Run("a", {"DUMP", "t"});
    ASSERT_EQ(again.kind, Frame::Kind::kBulk);
    EXPECT_EQ(h.Run("a", {"RESTORE", "t2", "0", again.str, "REPLACE"}).Text(), "OK");
    EXPECT_EQ(h.Run("a", {"OBJECT", "ENCODING", "t"}).kind, Frame::Kind::kBulk);
    const std::string type = h.Run("a", {"TYPE", "t"}).str;
    if (type == "list") h.Run("a", {"LRANGE", "t", "0", "-1"});
    if (type == "set") h.Run("a", {"SMEMBERS", "t"});
    if (type == "zset") h.Run("a", {"ZRANGE", "t", "0", "-1", "WITHSCORES"});
    if (type == "hash") h.Run("a", {"HGETALL", "t"});
    if (type == "stream") {
      h.Run("a", {"XRANGE", "t", "-", "+"});
      h.Run("a", {"XINFO", "STREAM", "t", "FULL"});
    }
  }
  EXPECT_GT(errors, 0);
  EXPECT_GT(ok, 0);
}

}  // namespace
}  // namespace redistp::testing
