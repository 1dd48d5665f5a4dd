// The AOF manifest: encoding and Redis 7.0's parsing rules (persistence/aof_manifest.h).
#include "persistence/aof_manifest.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

std::string ParseError(std::string_view text) {
  Result<AofManifest> r = AofManifest::Parse(text);
  return r.ok() ? std::string("(ok)") : r.status().message();
}

TEST(AofManifest, EncodesBaseHistoryThenIncr) {
  AofManifest m;
  m.base = AofFileInfo{"appendonly.aof.2.base.rdb", 2, AofFileType::kBase};
  m.history.push_back({"appendonly.aof.1.base.rdb", 1, AofFileType::kHistory});
  m.incrs.push_back({"appendonly.aof.3.incr.aof", 3, AofFileType::kIncr});
  EXPECT_EQ(m.Encode(),
            "file appendonly.aof.2.base.rdb seq 2 type b\n"
            "file appendonly.aof.1.base.rdb seq 1 type h\n"
            "file appendonly.aof.3.incr.aof seq 3 type i\n");
}

TEST(AofManifest, QuotesNamesWithBlanksAndReadsThemBack) {
  AofManifest m;
  m.incrs.push_back({"my file.aof", 1, AofFileType::kIncr});
  std::string text = m.Encode();
  EXPECT_EQ(text, "file \"my file.aof\" seq 1 type i\n");
  Result<AofManifest> back = AofManifest::Parse(text);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back.value().incrs.at(0).name, "my file.aof");
}

TEST(AofManifest, ParsesWhatRedisWrites) {
  Result<AofManifest> r = AofManifest::Parse(
      "# comment\nfile a.base.rdb seq 4 type b\nfile a.3.incr.aof seq 3 type h\n"
      "file a.5.incr.aof seq 5 type i\nfile a.6.incr.aof seq 6 type i extra x\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const AofManifest& m = r.value();
  ASSERT_TRUE(m.base.has_value());
  EXPECT_EQ(m.base->name, "a.base.rdb");
  EXPECT_EQ(m.base_seq, 4);
  EXPECT_EQ(m.history.size(), 1u);
  ASSERT_EQ(m.incrs.size(), 2u);
  EXPECT_EQ(m.incr_seq, 6);
  // Keys are case-insensitive, and their order is free.
  EXPECT_TRUE(AofManifest::Parse("TYPE i SEQ 1 FILE x\n").ok());
}

TEST(AofManifest, RejectsWhatRedisRejects) {
  EXPECT_EQ(ParseError(""), "Found an empty AOF manifest");
  EXPECT_EQ(ParseError("\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseError("file a seq 1\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseError("file a seq 1 type\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseError("file a seq 0 type i\n"), "Invalid AOF manifest file format");
  EXPECT_EQ(ParseError("file a/b seq 1 type i\n"), "File can't be a path, just a filename");
  EXPECT_EQ(ParseError("file a seq 1 type b\nfile b seq 2 type b\n"),
            "Found duplicate base file information");
  EXPECT_EQ(ParseError("file a seq 2 type i\nfile b seq 2 type i\n"),
            "Found a non-monotonic sequence number");
  EXPECT_EQ(ParseError("file a seq 1 type z\n"), "Unknown AOF file type");
  EXPECT_EQ(ParseError("file a seq 1 type i\n" + std::string(2000, 'x') + "\n"),
            "The AOF manifest file contains too long line");
}

TEST(AofManifest, FileNames) {
  EXPECT_EQ(AofBaseName("appendonly.aof", 1, true), "appendonly.aof.1.base.rdb");
  EXPECT_EQ(AofBaseName("appendonly.aof", 2, false), "appendonly.aof.2.base.aof");
  EXPECT_EQ(AofIncrName("appendonly.aof", 3), "appendonly.aof.3.incr.aof");
  EXPECT_EQ(AofManifestName("appendonly.aof"), "appendonly.aof.manifest");
}

}  // namespace
}  // namespace redistp
