// The RDB writer and loader (src/persistence/rdb_save, rdb_load) on in-process servers: a
// dataset written by one server and loaded by another has the same digest; the image's layout
// (magic, trailer, CRC-64 or zeros); what is never written (temporary keys) or left out by a
// replica's filter (keys, libraries); what loading skips (expired keys, except in an AOF
// preamble) and refuses (duplicates, unless merging); and every cut or flipped byte of a good
// image is an error with Redis's words, never a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "harness.h"
#include "persistence/rdb_load.h"
#include "persistence/rdb_save.h"
#include "util/crc64.h"

namespace redistp {
namespace {

using testing::Harness;

Config DebugConfig() {
  Config config;
  config.enable_debug_command = "yes";
  config.loglevel = LogVerbosity::kWarning;  // no "Loading RDB produced by ..." per load
  return config;
}

// A dataset of every type, with an expiry and a second database.
void Fill(Harness& h) {
  const std::vector<std::vector<std::string>> cmds = {
      {"SET", "s", "hello"},
      {"SET", "n", "12345"},
      {"SET", "long", std::string(3000, 'x')},
      {"RPUSH", "l", "a", "b", "c"},
      {"SADD", "set", "1", "2", "3"},
      {"SADD", "set2", "a", "b"},
      {"ZADD", "z", "1", "a", "inf", "b", "-2.5", "c"},
      {"HSET", "h", "f", "v", "g", "w"},
      {"XADD", "st", "1-1", "f", "v"},
      {"XGROUP", "CREATE", "st", "g", "0"},
      {"XREADGROUP", "GROUP", "g", "c", "STREAMS", "st", ">"},
      {"PFADD", "hll", "a", "b"},
      {"SET", "ttl", "v", "PX", "100000"},
      {"SELECT", "5"},
      {"SET", "in5", "v"},
      {"SELECT", "0"},
  };
  for (const auto& c : cmds) {
    ASSERT_NE(h.Run("c", c).kind, testing::Frame::Kind::kError) << c[0];
  }
}

std::string Digest(Harness& h) { return h.Run("c", {"DEBUG", "DIGEST"}).str; }

uint64_t Little64(std::string_view bytes) {
  uint64_t v = 0;
  for (size_t i = bytes.size(); i-- > 0;) v = (v << 8) | static_cast<unsigned char>(bytes[i]);
  return v;
}

TEST(RdbTest, AnImageLoadsIntoAnotherServerWithTheSameDigest) {
  Harness a(DebugConfig());
  Fill(a);
  std::string image = RdbImage(a.server(), RdbSaveOptions{});
  Harness b(DebugConfig());
  RdbLoadInfo info;
  Status s = LoadRdb(b.server(), image, RdbLoadOptions{}, &info);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(info.version, 10);
  EXPECT_EQ(info.keys_loaded, 12u);
  EXPECT_EQ(info.keys_expired, 0u);
  EXPECT_EQ(info.consumed, image.size());
  EXPECT_EQ(Digest(a), Digest(b));
  EXPECT_EQ(b.Run("c", {"PTTL", "ttl"}).integer, 100000);
}

TEST(RdbTest, TheImageHasTheMagicAndACrcTrailerOrZeros) {
  Harness h(DebugConfig());
  Fill(h);
  std::string image = RdbImage(h.server(), RdbSaveOptions{});
  ASSERT_GT(image.size(), 20u);
  EXPECT_EQ(image.substr(0, 9), "REDIS0010");
  EXPECT_EQ(static_cast<uint8_t>(image[image.size() - 9]), 0xff);  // EOF opcode
  EXPECT_EQ(Little64(std::string_view(image).substr(image.size() - 8)),
            Crc64(0, std::string_view(image).substr(0, image.size() - 8)));
  RdbSaveOptions unchecked;
  unchecked.checksum = false;
  std::string zero = RdbImage(h.server(), unchecked);
  EXPECT_EQ(zero.substr(zero.size() - 8), std::string(8, '\0'));
  Harness b(DebugConfig());
  RdbLoadInfo info;
  ASSERT_TRUE(LoadRdb(b.server(), zero, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(Digest(h), Digest(b));
}

TEST(RdbTest, CompressionOffWritesLongStringsPlain) {
  Harness h(DebugConfig());
  Fill(h);
  RdbSaveOptions plain;
  plain.compress = false;
  std::string packed = RdbImage(h.server(), RdbSaveOptions{});
  std::string unpacked = RdbImage(h.server(), plain);
  EXPECT_NE(unpacked.find(std::string(3000, 'x')), std::string::npos);
  EXPECT_EQ(packed.find(std::string(3000, 'x')), std::string::npos);
  EXPECT_LT(packed.size(), unpacked.size());
}

TEST(RdbTest, TemporaryKeysAreNeverWrittenAndTheFenceIs) {
  Harness h(DebugConfig());
  h.Run("c", {"SET", "ordinary", "v"});
  ASSERT_EQ(h.Run("c", {"SETTP", "temp", "v"}).integer, 1);
  testing::Frame token = h.Run("c", {"SETTP", "fenced", "v", "FENCE"});
  ASSERT_EQ(token.kind, testing::Frame::Kind::kInt);
  std::string image = RdbImage(h.server(), RdbSaveOptions{});
  EXPECT_EQ(image.find("temp"), std::string::npos);
  EXPECT_EQ(image.find("fenced"), std::string::npos);
  EXPECT_NE(image.find("redistp-fence"), std::string::npos);
  Harness b(DebugConfig());
  RdbLoadInfo info;
  ASSERT_TRUE(LoadRdb(b.server(), image, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(info.keys_loaded, 1u);
  EXPECT_EQ(info.fence, static_cast<uint64_t>(token.integer));
  testing::Frame next = b.Run("c", {"SETTP", "again", "v", "FENCE"});
  EXPECT_GT(next.integer, token.integer);
}

// A replica's snapshot filter (REPLCONF rdb-filter-only): without the data no key, temporary
// key or session is written (even in a full sync's image); without the functions no library.
TEST(RdbTest, AReplicaFilterLeavesOutTheKeysOrTheLibraries) {
  Harness h(DebugConfig());
  Fill(h);
  ASSERT_EQ(h.Run("c", {"FUNCTION", "LOAD",
                        "#!lua name=filterlib\nredis.register_function('ff', function() return 1 "
                        "end)"})
                .str,
            "filterlib");
  ASSERT_EQ(h.Run("c", {"SETTP", "temp", "v"}).integer, 1);
  RdbSaveOptions functions_only;
  functions_only.replication = true;
  functions_only.exclude_data = true;
  std::string image = RdbImage(h.server(), functions_only);
  EXPECT_NE(image.find("filterlib"), std::string::npos);
  EXPECT_EQ(image.find("hello"), std::string::npos);
  EXPECT_EQ(image.find("redistp-tpkey"), std::string::npos);
  Harness b(DebugConfig());
  RdbLoadInfo info;
  ASSERT_TRUE(LoadRdb(b.server(), image, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(info.keys_loaded, 0u);
  EXPECT_EQ(b.Run("c", {"FCALL", "ff", "0"}).integer, 1);
  RdbSaveOptions nothing = functions_only;
  nothing.exclude_functions = true;
  std::string empty = RdbImage(h.server(), nothing);
  EXPECT_EQ(empty.find("filterlib"), std::string::npos);
  Harness c(DebugConfig());
  ASSERT_TRUE(LoadRdb(c.server(), empty, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(info.keys_loaded, 0u);
  RdbSaveOptions keys_only;
  keys_only.exclude_functions = true;
  std::string keys = RdbImage(h.server(), keys_only);
  EXPECT_EQ(keys.find("filterlib"), std::string::npos);
  EXPECT_NE(keys.find("hello"), std::string::npos);
}

TEST(RdbTest, ExpiredKeysAreSkippedExceptInAnAofPreamble) {
  Harness a(DebugConfig());
  a.Run("c", {"SET", "soon", "v", "PX", "1000"});
  a.Run("c", {"SET", "stays", "v"});
  std::string image = RdbImage(a.server(), RdbSaveOptions{});
  Harness b(DebugConfig());
  b.clock().AdvanceMs(5000);
  RdbLoadInfo info;
  ASSERT_TRUE(LoadRdb(b.server(), image, RdbLoadOptions{}, &info).ok());
  EXPECT_EQ(info.keys_loaded, 1u);
  EXPECT_EQ(info.keys_expired, 1u);
  Harness c(DebugConfig());
  c.clock().AdvanceMs(5000);
  RdbLoadOptions preamble;
  preamble.aof_preamble = true;
  RdbLoadInfo info2;
  ASSERT_TRUE(LoadRdb(c.server(), image + "*1\r\n$4\r\nPING\r\n", preamble, &info2).ok());
  EXPECT_EQ(info2.keys_loaded, 2u);
  EXPECT_EQ(info2.consumed, image.size());
}

TEST(RdbTest, DuplicatesAreRefusedUnlessMerging) {
  Harness a(DebugConfig());
  a.Run("c", {"SET", "k", "new"});
  std::string image = RdbImage(a.server(), RdbSaveOptions{});
  Harness b(DebugConfig());
  b.Run("c", {"SET", "k", "old"});
  RdbLoadInfo info;
  Status s = LoadRdb(b.server(), image, RdbLoadOptions{}, &info);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "RDB has duplicated key 'k' in DB 0");
  RdbLoadOptions merge;
  merge.allow_duplicates = true;
  RdbLoadInfo info2;
  ASSERT_TRUE(LoadRdb(b.server(), image, merge, &info2).ok());
  EXPECT_EQ(b.Run("c", {"GET", "k"}).str, "new");
}

TEST(RdbTest, HeaderErrorsUseRedisWords) {
  Harness h(DebugConfig());
  std::string image = RdbImage(h.server(), RdbSaveOptions{});
  RdbLoadInfo info;
  std::string bad = image;
  bad[0] = 'X';
  EXPECT_EQ(LoadRdb(h.server(), bad, {}, &info).message(),
            "Wrong signature trying to load DB from file");
  bad = image;
  bad[8] = '3';
  bad[7] = '1';
  EXPECT_EQ(LoadRdb(h.server(), bad, {}, &info).message(), "Can't handle RDB format version 13");
  bad = image;
  bad.replace(5, 4, "00x1");
  EXPECT_EQ(LoadRdb(h.server(), bad, {}, &info).message(), "Can't handle RDB format version 0");
  EXPECT_EQ(LoadRdb(h.server(), "", {}, &info).message(),
            "Short read or OOM loading DB. Unrecoverable error, aborting now.");
}

TEST(RdbTest, EveryCutOfAGoodImageIsAShortRead) {
  Harness a(DebugConfig());
  Fill(a);
  const std::string image = RdbImage(a.server(), RdbSaveOptions{});
  for (size_t cut = 0; cut < image.size(); ++cut) {
    Harness b(DebugConfig());
    RdbLoadInfo info;
    Status s = LoadRdb(b.server(), std::string_view(image).substr(0, cut), {}, &info);
    ASSERT_FALSE(s.ok()) << "cut at " << cut;
    // A count checked against the bytes left (a stream's PEL) is reported as corruption, as
    // Redis's stream loader reports cuts inside a stream.
    const bool short_read =
        s.message() == "Short read or OOM loading DB. Unrecoverable error, aborting now.";
    const bool corrupt = s.message().rfind("Internal error in RDB reading offset ", 0) == 0;
    EXPECT_TRUE(short_read || corrupt) << "cut at " << cut << ": " << s.message();
  }
}

TEST(RdbTest, EveryFlippedByteIsCaughtByTheChecksum) {
  Harness a(DebugConfig());
  Fill(a);
  const std::string image = RdbImage(a.server(), RdbSaveOptions{});
  for (size_t at = 9; at < image.size(); ++at) {
    std::string bad = image;
    bad[at] = static_cast<char>(bad[at] ^ 0x01);
    Harness b(DebugConfig());
    RdbLoadInfo info;
    Status s = LoadRdb(b.server(), bad, {}, &info);
    ASSERT_FALSE(s.ok()) << "flip at " << at;
  }
}

TEST(RdbTest, WithoutAChecksumAFlippedByteIsAnErrorOrALoadNeverACrash) {
  Harness a(DebugConfig());
  Fill(a);
  RdbSaveOptions unchecked;
  unchecked.checksum = false;
  const std::string image = RdbImage(a.server(), unchecked);
  int refused = 0;
  for (size_t at = 9; at < image.size(); ++at) {
    for (uint8_t mask : {0x01, 0x80, 0xff}) {
      std::string bad = image;
      bad[at] = static_cast<char>(bad[at] ^ mask);
      Harness b(DebugConfig());
      RdbLoadInfo info;
      if (!LoadRdb(b.server(), bad, {}, &info).ok()) ++refused;
    }
  }
  EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace redistp
