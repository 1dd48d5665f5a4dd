// Unit tests for Value: Redis's string encoding choice (int / embstr / raw), inline versus heap
// storage, in-place edits through MutableBytes and Append, and move semantics.
#include "types/value.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <utility>

namespace redistp {
namespace {

std::string Text(const Value& v) { return v.ToString(); }

TEST(ValueTest, DefaultIsAnEmptyString) {
  Value v;
  EXPECT_TRUE(v.is_string());
  EXPECT_EQ(v.type(), ValueType::kString);
  EXPECT_EQ(v.StringLength(), 0u);
  EXPECT_EQ(Text(v), "");
  EXPECT_EQ(v.HeapBytes(), 0u);
}

TEST(ValueTest, CanonicalIntegersUseTheIntEncoding) {
  const char* ints[] = {"0", "1", "-1", "123", "9223372036854775807", "-9223372036854775808"};
  for (const char* s : ints) {
    Value v = Value::String(s);
    EXPECT_TRUE(v.is_int()) << s;
    EXPECT_STREQ(v.EncodingName(), "int") << s;
    EXPECT_EQ(Text(v), s);
    EXPECT_EQ(v.StringLength(), std::strlen(s));
    int64_t n = 0;
    ASSERT_TRUE(v.GetInt(&n));
    EXPECT_EQ(Int64ToString(n), s);
    EXPECT_EQ(v.HeapBytes(), 0u);
  }
}

TEST(ValueTest, NonCanonicalNumbersStayStrings) {
  const char* texts[] = {
      "-0", "01", " 1", "1 ", "+1", "1.5", "1e3", "9223372036854775808", "-9223372036854775809",
      ""};
  for (const char* s : texts) {
    Value v = Value::String(s);
    EXPECT_FALSE(v.is_int()) << s;
    EXPECT_STREQ(v.EncodingName(), "embstr") << s;
    EXPECT_EQ(Text(v), s);
  }
  int64_t n;
  EXPECT_FALSE(Value::String("1.5").GetInt(&n));
  EXPECT_FALSE(Value::String("-0").GetInt(&n));
}

TEST(ValueTest, EmbstrUpTo44BytesThenRaw) {
  std::string s44(44, 'x'), s45(45, 'x');
  EXPECT_STREQ(Value::String(s44).EncodingName(), "embstr");
  EXPECT_STREQ(Value::String(s45).EncodingName(), "raw");
  EXPECT_EQ(Text(Value::String(s45)), s45);
  EXPECT_STREQ(Value::String("hello").EncodingName(), "embstr");
}

TEST(ValueTest, ShortStringsLiveInlineLongOnesOnTheHeap) {
  std::string inline_max(Value::kInlineCap, 'a');
  std::string heap_min(Value::kInlineCap + 1, 'b');
  Value a = Value::String(inline_max);
  Value b = Value::String(heap_min);
  EXPECT_EQ(a.HeapBytes(), 0u);
  EXPECT_GT(b.HeapBytes(), heap_min.size());
  EXPECT_EQ(Text(a), inline_max);
  EXPECT_EQ(Text(b), heap_min);
  EXPECT_STREQ(b.EncodingName(), "embstr");
}

TEST(ValueTest, RawStringNeverUsesIntOrEmbstr) {
  Value v = Value::RawString("123");
  EXPECT_FALSE(v.is_int());
  EXPECT_STREQ(v.EncodingName(), "raw");
  int64_t n = 0;
  ASSERT_TRUE(v.GetInt(&n));
  EXPECT_EQ(n, 123);
  EXPECT_STREQ(Value::RawString("").EncodingName(), "raw");
  EXPECT_STREQ(Value::RawString(std::string(100, 'r')).EncodingName(), "raw");
}

TEST(ValueTest, IntegerConstructor) {
  Value v = Value::Integer(-5);
  EXPECT_STREQ(v.EncodingName(), "int");
  EXPECT_EQ(Text(v), "-5");
  char scratch[kMaxInt64Chars + 1];
  EXPECT_EQ(Value::Integer(INT64_MIN).View(scratch), "-9223372036854775808");
}

TEST(ValueTest, BinaryBytesSurvive) {
  std::string bin("a\0b\xff", 4);
  EXPECT_EQ(Text(Value::String(bin)), bin);
  std::string long_bin = bin + std::string(50, '\0');
  EXPECT_EQ(Text(Value::String(long_bin)), long_bin);
}

TEST(ValueTest, MutableBytesTurnsIntIntoRawText) {
  Value v = Value::String("123");
  char* p = v.MutableBytes(0);
  EXPECT_STREQ(v.EncodingName(), "raw");
  EXPECT_FALSE(v.is_int());
  EXPECT_EQ(v.StringLength(), 3u);
  p[0] = '9';
  EXPECT_EQ(Text(v), "923");
}

TEST(ValueTest, MutableBytesZeroPadsToTheMinimumLength) {
  Value v = Value::String("abc");
  char* p = v.MutableBytes(6);
  EXPECT_EQ(v.StringLength(), 6u);
  EXPECT_EQ(Text(v), std::string("abc\0\0\0", 6));
  p[5] = 'z';
  EXPECT_EQ(Text(v), std::string("abc\0\0z", 6));
  // A smaller minimum never truncates.
  v.MutableBytes(2);
  EXPECT_EQ(v.StringLength(), 6u);
  // Growing a heap string keeps its bytes and zero-fills the rest.
  v.MutableBytes(5000);
  std::string expect = std::string("abc\0\0z", 6) + std::string(4994, '\0');
  EXPECT_EQ(Text(v), expect);
  EXPECT_STREQ(v.EncodingName(), "raw");
}

TEST(ValueTest, MutableBytesOnEmptyValue) {
  Value v = Value::RawString("");
  char* p = v.MutableBytes(1);
  EXPECT_EQ(v.StringLength(), 1u);
  EXPECT_EQ(p[0], '\0');
  p[0] = '\x80';
  EXPECT_EQ(Text(v), "\x80");
}

TEST(ValueTest, AppendMarksRawAndConcatenates) {
  Value v = Value::String("abc");
  v.Append("def");
  EXPECT_EQ(Text(v), "abcdef");
  EXPECT_STREQ(v.EncodingName(), "raw");
  Value n = Value::String("12");
  n.Append("3");
  EXPECT_EQ(Text(n), "123");
  EXPECT_FALSE(n.is_int());
  EXPECT_STREQ(n.EncodingName(), "raw");
  Value e;
  e.Append("");
  EXPECT_EQ(Text(e), "");
}

TEST(ValueTest, ManyAppendsMatchAStdString) {
  Value v = Value::String("");
  std::string model;
  for (int i = 0; i < 5000; ++i) {
    std::string piece(static_cast<size_t>(i % 37), static_cast<char>('a' + i % 26));
    v.Append(piece);
    model += piece;
    ASSERT_EQ(v.StringLength(), model.size());
  }
  EXPECT_EQ(Text(v), model);
  // Growth is geometric: the buffer never needs as many reallocations as appends, so the
  // allocation is at least the length and not absurdly larger.
  EXPECT_GE(v.HeapBytes(), model.size());
  EXPECT_LE(v.HeapBytes(), model.size() * 3 + 64);
}

TEST(ValueTest, AppendOfItsOwnHeapBytes) {
  Value v = Value::String(std::string(40, 'h'));
  char scratch[kMaxInt64Chars + 1];
  v.Append(v.View(scratch));
  EXPECT_EQ(Text(v), std::string(80, 'h'));
  v.Append(v.View(scratch).substr(10, 5));
  EXPECT_EQ(Text(v), std::string(85, 'h'));
}

// Value::Append promises that `s` may alias the value's own bytes, inline ones included (the
// conversion to a heap string overwrites the inline bytes `s` points at).
TEST(ValueTest, AppendOfItsOwnInlineBytes) {
  Value v = Value::String("abc");
  char scratch[kMaxInt64Chars + 1];
  v.Append(v.View(scratch));
  EXPECT_EQ(Text(v), "abcabc");
}

// Value::String / RawString of a default-constructed string_view (data() == nullptr) must not
// hand the null pointer to memcpy (undefined behaviour that UBSan aborts on).
TEST(ValueTest, EmptyViewWithNullDataUnderSanitizer) {
  EXPECT_EQ(Text(Value::RawString(std::string_view())), "");
  EXPECT_EQ(Text(Value::String(std::string_view())), "");
}

TEST(ValueTest, MoveTransfersAndEmptiesTheSource) {
  Value a = Value::String(std::string(100, 'm'));
  Value b = std::move(a);
  EXPECT_EQ(Text(b), std::string(100, 'm'));
  EXPECT_EQ(Text(a), "");  // NOLINT(bugprone-use-after-move): documented moved-from state
  Value c = Value::Integer(9);
  c = std::move(b);
  EXPECT_EQ(Text(c), std::string(100, 'm'));
  c = Value::String("x");
  EXPECT_EQ(Text(c), "x");
}

TEST(ValueTest, TypeNames) {
  EXPECT_STREQ(ValueTypeName(ValueType::kString), "string");
  EXPECT_STREQ(ValueTypeName(ValueType::kList), "list");
  EXPECT_STREQ(ValueTypeName(ValueType::kSet), "set");
  EXPECT_STREQ(ValueTypeName(ValueType::kZSet), "zset");
  EXPECT_STREQ(ValueTypeName(ValueType::kHash), "hash");
  EXPECT_STREQ(ValueTypeName(ValueType::kStream), "stream");
  static_assert(sizeof(Value) == 16);
}

}  // namespace
}  // namespace redistp
