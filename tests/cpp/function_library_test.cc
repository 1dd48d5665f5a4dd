// Unit tests for scripting/function_library: the shebang's grammar and errors, the library
// set's all-or-nothing merge, and FUNCTION DUMP payloads (Redis 7.0.15's bytes, trailer checks,
// the pre-GA entry).
#include "scripting/function_library.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "util/crc64.h"

namespace redistp {
namespace {

std::string MetadataError(std::string_view code) {
  auto md = ParseLibraryMetadata(code);
  return md.ok() ? "" : md.status().message();
}

TEST(FunctionLibraryTest, ShebangNamesEngineAndLibrary) {
  auto md = ParseLibraryMetadata("#!lua name=mylib\nreturn 1");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md.value().engine, "lua");
  EXPECT_EQ(md.value().name, "mylib");
  md = ParseLibraryMetadata("#!LUA\tNAME=\"q1\"\r\n");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md.value().engine, "LUA");
  EXPECT_EQ(md.value().name, "q1");
  md = ParseLibraryMetadata("#! name=x\n");
  ASSERT_TRUE(md.ok());
  EXPECT_EQ(md.value().engine, "");
}

TEST(FunctionLibraryTest, ShebangErrors) {
  EXPECT_EQ(MetadataError("return 1"), "ERR Missing library metadata");
  EXPECT_EQ(MetadataError(""), "ERR Missing library metadata");
  EXPECT_EQ(MetadataError("#!lua name=x"), "ERR Invalid library metadata");
  EXPECT_EQ(MetadataError("#!lua name=x \"open\n"), "ERR Invalid library metadata");
  EXPECT_EQ(MetadataError("#!lua\n"), "ERR Library name was not given");
  EXPECT_EQ(MetadataError("#!foo\n"), "ERR Library name was not given");
  EXPECT_EQ(MetadataError("#!lua name=x bar\n"), "ERR Invalid metadata value given: bar");
  EXPECT_EQ(MetadataError("#!lua =x\n"), "ERR Invalid metadata value given: =x");
  EXPECT_EQ(MetadataError("#!lua name=x name=\n"),
            "ERR Invalid metadata value, name argument was given multiple times");
  for (const char* bad : {"#!lua name=\n", "#!lua name=a-b\n", "#!lua name=a=b\n"}) {
    EXPECT_EQ(MetadataError(bad),
              "ERR Library names can only contain letters, numbers, or underscores(_) and must "
              "be at least one character long")
        << bad;
  }
}

TEST(FunctionLibraryTest, FunctionNames) {
  EXPECT_TRUE(IsValidFunctionName("a_B9"));
  EXPECT_FALSE(IsValidFunctionName(""));
  EXPECT_FALSE(IsValidFunctionName("a-b"));
  EXPECT_FALSE(IsValidFunctionName("a b"));
}

std::unique_ptr<FunctionLibrary> Lib(std::string name, std::vector<std::string> fns) {
  auto lib = std::make_unique<FunctionLibrary>();
  lib->name = name;
  lib->engine = "LUA";
  lib->code = "#!lua name=" + name + "\n";
  for (auto& f : fns) {
    auto info = std::make_unique<FunctionInfo>();
    info->name = f;
    lib->AddFunction(std::move(info));
  }
  return lib;
}

struct Released {
  std::vector<std::string> names;
  static void Record(void* self, const FunctionInfo& f) {
    static_cast<Released*>(self)->names.push_back(f.name);
  }
};

TEST(FunctionLibraryTest, MergeChecksEverythingFirst) {
  Released released;
  LibrarySet loaded(&Released::Record, &released);
  LibrarySet a(&Released::Record, &released);
  ASSERT_TRUE(a.Add(Lib("a", {"fa"})).ok());
  ASSERT_TRUE(a.Add(Lib("b", {"fb"})).ok());
  ASSERT_TRUE(loaded.Merge(a, LibrarySet::OnCollision::kError).ok());
  EXPECT_EQ(loaded.library_count(), 2u);
  ASSERT_NE(loaded.FindFunction("FA"), nullptr);
  EXPECT_EQ(loaded.FindFunction("FA")->library->name, "a");

  LibrarySet clash(&Released::Record, &released);
  ASSERT_TRUE(clash.Add(Lib("a", {"fb"})).ok());
  EXPECT_EQ(loaded.Merge(clash, LibrarySet::OnCollision::kError).message(),
            "ERR Library 'a' already exists");
  EXPECT_EQ(loaded.Merge(clash, LibrarySet::OnCollision::kAbort).message(),
            "ERR Library a already exists");
  EXPECT_EQ(loaded.Merge(clash, LibrarySet::OnCollision::kReplace).message(),
            "ERR Function fb already exists");
  EXPECT_EQ(clash.library_count(), 1u) << "a failed merge leaves the candidate";
  EXPECT_EQ(loaded.FindFunction("fa")->library->name, "a");
  EXPECT_TRUE(released.names.empty());

  LibrarySet replace(&Released::Record, &released);
  ASSERT_TRUE(replace.Add(Lib("a", {"fa2"})).ok());
  ASSERT_TRUE(loaded.Merge(replace, LibrarySet::OnCollision::kReplace).ok());
  EXPECT_EQ(loaded.FindFunction("fa"), nullptr);
  EXPECT_NE(loaded.FindFunction("fa2"), nullptr);
  EXPECT_EQ(released.names, std::vector<std::string>{"fa"});
  EXPECT_TRUE(loaded.Remove("b"));
  EXPECT_FALSE(loaded.Remove("b"));
  EXPECT_EQ(loaded.function_count(), 1u);
}

TEST(FunctionLibraryTest, CandidateSetRefusesDuplicates) {
  LibrarySet set(nullptr, nullptr);
  ASSERT_TRUE(set.Add(Lib("twice", {"t1"})).ok());
  EXPECT_EQ(set.Add(Lib("twice", {"t2"})).message(), "ERR Library 'twice' already exists");
  EXPECT_EQ(set.Add(Lib("other", {"T1"})).message(), "ERR Function T1 already exists");
}

TEST(FunctionLibraryTest, CaseVariantsInOneLibraryKeepTheFirst) {
  LibrarySet set(nullptr, nullptr);
  ASSERT_TRUE(set.Add(Lib("l", {"g", "G"})).ok());
  EXPECT_EQ(set.FindFunction("G")->name, "g");
  EXPECT_EQ(set.FindLibrary("l")->functions.size(), 2u);
}

TEST(FunctionLibraryTest, DumpMatchesRedis) {
  LibrarySet set(nullptr, nullptr);
  EXPECT_EQ(DumpFunctions(set, true, 10),
            std::string("\x0a\x00\x5d\x9b\x5c\x40\x0f\x7f\xa2\xda", 10));
  auto lib = Lib("l1", {"f1"});
  lib->code = "#!lua name=l1\nredis.register_function('f1', function() return 1 end)";
  ASSERT_TRUE(set.Add(std::move(lib)).ok());
  // Redis 7.0.15's FUNCTION DUMP of that one library.
  std::string expected = "\xf5\x40\x44" + set.FindLibrary("l1")->code +
                         std::string("\x0a\x00\x4e\xdf\x9d\x49\x22\x9e\x2b\xa7", 10);
  EXPECT_EQ(DumpFunctions(set, true, 10), expected);
}

std::string WithTrailer(std::string body, uint16_t version = 10) {
  body.push_back(static_cast<char>(version & 0xff));
  body.push_back(static_cast<char>(version >> 8));
  uint64_t crc = Crc64(0, body);
  for (int shift = 0; shift < 64; shift += 8) body.push_back(static_cast<char>(crc >> shift));
  return body;
}

std::string ReadAll(std::string_view payload) {
  auto reader = FunctionPayloadReader::Open(payload, 10);
  if (!reader.ok()) return reader.status().message();
  std::string out;
  while (!reader.value().done()) {
    auto code = reader.value().Next();
    if (!code.ok()) return code.status().message();
    out += "[" + code.value() + "]";
  }
  return out;
}

TEST(FunctionLibraryTest, PayloadRoundTrip) {
  LibrarySet set(nullptr, nullptr);
  for (const char* name : {"a", "b"}) {
    auto lib = Lib(name, {std::string("f") + name});
    lib->code += std::string(200, 'x');  // compressible
    ASSERT_TRUE(set.Add(std::move(lib)).ok());
  }
  for (bool compress : {true, false}) {
    std::string dump = DumpFunctions(set, compress, 10);
    EXPECT_EQ(compress, dump.size() < 400u);
    std::string expect = "[#!lua name=a\n" + std::string(200, 'x') + "][#!lua name=b\n" +
                         std::string(200, 'x') + "]";
    EXPECT_EQ(ReadAll(dump), expect);
  }
}

TEST(FunctionLibraryTest, PayloadErrors) {
  const std::string bad = "ERR DUMP payload version or checksum are wrong";
  EXPECT_EQ(ReadAll(""), bad);
  EXPECT_EQ(ReadAll("short"), bad);
  std::string good = WithTrailer(
      "\xf5\x03"
      "abc");
  EXPECT_EQ(ReadAll(good), "[abc]");
  std::string flipped = good;
  flipped[3] ^= 1;
  EXPECT_EQ(ReadAll(flipped), bad);
  EXPECT_EQ(ReadAll(WithTrailer("\xf5\x03"
                                "abc",
                                11)),
            bad);
  EXPECT_EQ(ReadAll(WithTrailer("\xf5\x03"
                                "abc",
                                9)),
            "[abc]");
  EXPECT_EQ(ReadAll(WithTrailer(std::string("\x00", 1))), "ERR given type is not a function");
  EXPECT_EQ(ReadAll(WithTrailer("\xf5")), "ERR Failed loading library payload");
  EXPECT_EQ(ReadAll(WithTrailer("\xf5\xc3\x02\x05"
                                "ab")),
            "ERR Failed loading library payload");
}

TEST(FunctionLibraryTest, PreGaEntries) {
  EXPECT_EQ(ReadAll(WithTrailer(std::string("\xf6\x01n\x03LUA\x00\x04"
                                            "code",
                                            13))),
            "[#!LUA name=n\ncode]");
  EXPECT_EQ(ReadAll(WithTrailer(std::string("\xf6\x01n\x03lua\x01\x01"
                                            "d\x04"
                                            "code",
                                            15))),
            "[#!lua name=n\ncode]");
  EXPECT_EQ(ReadAll(WithTrailer("\xf6")), "ERR Failed loading library name");
  EXPECT_EQ(ReadAll(WithTrailer("\xf6\x01n")), "ERR Failed loading engine name");
  EXPECT_EQ(ReadAll(WithTrailer(std::string("\xf6\x01n\x03LUA\x00", 7))),
            "ERR Failed loading library blob");
}

}  // namespace
}  // namespace redistp
