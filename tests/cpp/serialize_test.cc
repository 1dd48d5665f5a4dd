// Unit tests for the RDB object primitives (types/serialize.h) and the string hooks of
// types/type_ops.h: the byte forms Redis writes, round trips, and hostile input.
#include "types/serialize.h"

#include <gtest/gtest.h>

#include <string>

#include "types/digest.h"
#include "types/type_ops.h"
#include "types/value.h"

namespace redistp {
namespace {

std::string Serialized(std::string_view s, bool compress = true) {
  std::string out;
  RdbWriter w(&out, compress);
  SerializeValue(Value::String(s), w);
  return out;
}

TEST(SerializeTest, LengthEncodings) {
  struct Case {
    uint64_t len;
    std::string bytes;
  } cases[] = {
      {0, std::string("\x00", 1)},
      {63, "\x3f"},
      {64, "\x40\x40"},
      {16383, "\x7f\xff"},
      {16384, std::string("\x80\x00\x00\x40\x00", 5)},
      {0x100000000ull, std::string("\x81\x00\x00\x00\x01\x00\x00\x00\x00", 9)},
  };
  for (const Case& c : cases) {
    std::string out;
    RdbWriter w(&out);
    w.Length(c.len);
    EXPECT_EQ(out, c.bytes) << c.len;
    RdbReader r(out);
    uint64_t back = 0;
    ASSERT_TRUE(r.Length(&back).ok());
    EXPECT_EQ(back, c.len);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(SerializeTest, StringsUseRedisIntegerForms) {
  EXPECT_EQ(Serialized("abc"), std::string("\x00\x03"
                                           "abc",
                                           5));
  EXPECT_EQ(Serialized("123"), std::string("\x00\xc0\x7b", 3));
  EXPECT_EQ(Serialized("-1"), std::string("\x00\xc0\xff", 3));
  EXPECT_EQ(Serialized("1000"), std::string("\x00\xc1\xe8\x03", 4));
  EXPECT_EQ(Serialized("100000"), std::string("\x00\xc2\xa0\x86\x01\x00", 6));
  // Outside 32 bits, or not canonical: the decimal text.
  EXPECT_EQ(Serialized("12345678901"), std::string("\x00\x0b"
                                                   "12345678901",
                                                   13));
  EXPECT_EQ(Serialized("007"), std::string("\x00\x03"
                                           "007",
                                           5));
}

TEST(SerializeTest, LongCompressibleStringsAreLzfOnlyWhenAllowed) {
  std::string s(100, 'a');
  std::string lzf = Serialized(s);
  EXPECT_EQ(static_cast<uint8_t>(lzf[1]), 0xc3);
  EXPECT_LT(lzf.size(), s.size());
  std::string plain = Serialized(s, false);
  EXPECT_EQ(plain.size(), 1 + 2 + s.size());  // type, 14-bit length, bytes
}

TEST(SerializeTest, RoundTripsEveryForm) {
  const std::string inputs[] = {"",
                                "x",
                                "123",
                                "-32768",
                                "2147483647",
                                "2147483648",
                                std::string(100, 'z'),
                                std::string("\x00\xff\x01", 3),
                                std::string(20000, 'q')};
  for (const std::string& in : inputs) {
    std::string out = Serialized(in);
    RdbReader r(out);
    uint8_t type = 0xff;
    ASSERT_TRUE(r.Byte(&type));
    Result<Value> v = DeserializeValue(type, r, TypeLimits{});
    ASSERT_TRUE(v.ok()) << v.status().message();
    EXPECT_EQ(v.value().ToString(), in);
    EXPECT_EQ(r.remaining(), 0u);
  }
}

TEST(SerializeTest, HostileInputIsAnErrorNeverACrash) {
  const std::string bad[] = {
      std::string(""),  // nothing
      std::string("\x05"
                  "ab",
                  3),                          // length past the end
      std::string("\x80\xff\xff\xff\xff", 5),  // 4 GB declared
      std::string("\xc3\x05\x7f"
                  "abc",
                  6),                          // LZF claims more than it has
      std::string("\xc3\x02\x05\xff\xff", 5),  // LZF garbage
      std::string("\xc4", 1),                  // unknown special encoding
      std::string("\xc2\x01", 2),              // truncated int32
      std::string("\x82", 1),                  // unknown length form
  };
  for (const std::string& in : bad) {
    RdbReader r(in);
    std::string out;
    EXPECT_FALSE(r.String(&out).ok()) << "input of " << in.size() << " bytes";
  }
  RdbReader r(std::string_view("\x00", 1));
  EXPECT_FALSE(DeserializeValue(200, r, TypeLimits{}).ok()) << "an RDB type nobody reads";
}

TEST(SerializeTest, CloneKeepsEncodingAndBytes) {
  const char* inputs[] = {"12", "short", "a string longer than fourteen bytes"};
  for (const char* in : inputs) {
    Value v = Value::String(in);
    Value c = v.Clone();
    EXPECT_EQ(c.ToString(), in);
    EXPECT_STREQ(c.EncodingName(), v.EncodingName());
  }
  Value raw = Value::RawString("abc");
  EXPECT_STREQ(raw.Clone().EncodingName(), "raw");
}

TEST(DigestTest, StringDigestIsTypeThenBytes) {
  ValueDigest sha;
  ValueDigest::Bytes a = {}, b = {};
  sha.AddValue(a, Value::String("hello"));
  sha.MixU32(b, 0);
  sha.Mix(b, "hello");
  EXPECT_EQ(ValueDigest::Hex(a), ValueDigest::Hex(b));
  // An int-encoded value digests as its decimal text.
  ValueDigest::Bytes c = {}, d = {};
  sha.AddValue(c, Value::Integer(42));
  sha.AddValue(d, Value::RawString("42"));
  EXPECT_EQ(ValueDigest::Hex(c), ValueDigest::Hex(d));
}

}  // namespace
}  // namespace redistp
