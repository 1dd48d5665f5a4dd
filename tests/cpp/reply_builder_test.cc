// Unit tests for ReplyBuilder: the exact bytes of every reply type in RESP2 and RESP3, deferred
// lengths, and suppression (CLIENT REPLY OFF).
#include "protocol/reply_builder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "util/reply_buffer.h"

namespace redistp {
namespace {

class ReplyBuilderTest : public ::testing::Test {
 protected:
  std::string Out() const { return buf_.ToString(); }
  // Returns what was written since the last call.
  std::string Take() {
    std::string s = Out();
    buf_.Consume(buf_.Readable());
    return s;
  }

  ReplyBuffer buf_;
  ReplyBuilder rb_{&buf_};
};

TEST_F(ReplyBuilderTest, ScalarsInResp2) {
  EXPECT_EQ(rb_.resp(), 2);
  rb_.Ok();
  EXPECT_EQ(Take(), "+OK\r\n");
  rb_.Simple("PONG");
  EXPECT_EQ(Take(), "+PONG\r\n");
  rb_.Int(0);
  rb_.Int(-42);
  rb_.Int(INT64_MIN);
  EXPECT_EQ(Take(), ":0\r\n:-42\r\n:-9223372036854775808\r\n");
  rb_.Bulk("hello");
  rb_.Bulk("");
  rb_.Bulk(std::string_view("a\0\r\n", 4));
  EXPECT_EQ(Take(), std::string("$5\r\nhello\r\n$0\r\n\r\n$4\r\na\0\r\n\r\n", 27));
  rb_.Null();
  rb_.NullArray();
  EXPECT_EQ(Take(), "$-1\r\n*-1\r\n");
}

// A short bulk is framed on the stack and appended once, a longer one in three parts: the
// bytes are the same on either side of the boundary, binary ones and an empty view included.
TEST_F(ReplyBuilderTest, BulkFramingAroundTheShortPath) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{63}, size_t{64}, size_t{65}, size_t{100000}}) {
    std::string body(n, 'x');
    for (size_t i = 0; i < n; i += 7) body[i] = static_cast<char>(i % 256);
    rb_.Bulk(body);
    EXPECT_EQ(Take(), "$" + std::to_string(n) + "\r\n" + body + "\r\n") << n;
  }
  rb_.Bulk(std::string_view());  // a null data pointer
  EXPECT_EQ(Take(), "$0\r\n\r\n");
  // Many short ones in a row spill from the static buffer into blocks intact.
  std::string want;
  for (int i = 0; i < 5000; ++i) {
    const std::string e = "element:" + std::to_string(i);
    rb_.Bulk(e);
    want += "$" + std::to_string(e.size()) + "\r\n" + e + "\r\n";
  }
  EXPECT_EQ(Take(), want);
}

TEST_F(ReplyBuilderTest, ErrorsReplaceLineBreaksAndRecordThePrefix) {
  rb_.Error("ERR syntax error");
  EXPECT_EQ(Take(), "-ERR syntax error\r\n");
  EXPECT_EQ(rb_.last_error_prefix(), "ERR");
  rb_.Error("WRONGTYPE Operation against a key holding the wrong kind of value");
  EXPECT_EQ(rb_.last_error_prefix(), "WRONGTYPE");
  Take();
  rb_.Error("ERR bad\r\nthing\n");
  EXPECT_EQ(Take(), "-ERR bad  thing \r\n");
  rb_.Error("NOPREFIX");
  EXPECT_EQ(rb_.last_error_prefix(), "NOPREFIX");
  EXPECT_EQ(rb_.errors_written(), 4u);
}

TEST_F(ReplyBuilderTest, AggregatesInResp2) {
  rb_.Array(3);
  rb_.Map(2);
  rb_.Set(5);
  rb_.Push(3);
  rb_.EmptyArray();
  EXPECT_EQ(Take(), "*3\r\n*4\r\n*5\r\n*3\r\n*0\r\n");
}

TEST_F(ReplyBuilderTest, AggregatesInResp3) {
  rb_.SetResp(3);
  rb_.Array(3);
  rb_.Map(2);
  rb_.Set(5);
  rb_.Push(3);
  rb_.EmptyArray();
  EXPECT_EQ(Take(), "*3\r\n%2\r\n~5\r\n>3\r\n*0\r\n");
}

TEST_F(ReplyBuilderTest, Resp3OnlyTypesDegradeInResp2) {
  rb_.Double(1.5);
  EXPECT_EQ(Take(), "$3\r\n1.5\r\n");
  rb_.Double(0.1);
  EXPECT_EQ(Take(), "$19\r\n0.10000000000000001\r\n");
  rb_.Double(INFINITY);
  rb_.Double(-INFINITY);
  EXPECT_EQ(Take(), "$3\r\ninf\r\n$4\r\n-inf\r\n");
  rb_.Bool(true);
  rb_.Bool(false);
  EXPECT_EQ(Take(), ":1\r\n:0\r\n");
  rb_.Verbatim("some text");
  EXPECT_EQ(Take(), "$9\r\nsome text\r\n");
  rb_.BigNumber("12345678901234567890");
  EXPECT_EQ(Take(), "$20\r\n12345678901234567890\r\n");
}

TEST_F(ReplyBuilderTest, Resp3Types) {
  rb_.SetResp(3);
  rb_.Null();
  rb_.NullArray();
  EXPECT_EQ(Take(), "_\r\n_\r\n");
  rb_.Double(1.5);
  rb_.Double(-3);
  rb_.Double(INFINITY);
  rb_.Double(-INFINITY);
  EXPECT_EQ(Take(), ",1.5\r\n,-3\r\n,inf\r\n,-inf\r\n");
  rb_.Bool(true);
  rb_.Bool(false);
  EXPECT_EQ(Take(), "#t\r\n#f\r\n");
  rb_.Verbatim("some text");
  EXPECT_EQ(Take(), "=13\r\ntxt:some text\r\n");
  rb_.Verbatim("# x", "mkd");
  EXPECT_EQ(Take(), "=7\r\nmkd:# x\r\n");
  rb_.BigNumber("-12345678901234567890");
  EXPECT_EQ(Take(), "(-12345678901234567890\r\n");
  // Types common to both protocols are unchanged.
  rb_.Bulk("x");
  rb_.Int(1);
  rb_.Ok();
  EXPECT_EQ(Take(), "$1\r\nx\r\n:1\r\n+OK\r\n");
}

TEST_F(ReplyBuilderTest, DeferredArrayLength) {
  rb_.Int(7);
  size_t h = rb_.DeferLen();
  rb_.Bulk("a");
  rb_.Bulk("b");
  rb_.SetDeferredLen(h, '*', 2);
  rb_.Int(8);
  EXPECT_EQ(Take(), ":7\r\n*2\r\n$1\r\na\r\n$1\r\nb\r\n:8\r\n");
}

TEST_F(ReplyBuilderTest, DeferredMapAndSetFollowTheProtocol) {
  size_t h = rb_.DeferLen();
  rb_.Bulk("k");
  rb_.Int(1);
  rb_.SetDeferredLen(h, '%', 1);
  h = rb_.DeferLen();
  rb_.Bulk("m");
  rb_.SetDeferredLen(h, '~', 1);
  EXPECT_EQ(Take(), "*2\r\n$1\r\nk\r\n:1\r\n*1\r\n$1\r\nm\r\n");

  rb_.SetResp(3);
  h = rb_.DeferLen();
  rb_.Bulk("k");
  rb_.Int(1);
  rb_.SetDeferredLen(h, '%', 1);
  h = rb_.DeferLen();
  rb_.Bulk("m");
  rb_.SetDeferredLen(h, '~', 1);
  EXPECT_EQ(Take(), "%1\r\n$1\r\nk\r\n:1\r\n~1\r\n$1\r\nm\r\n");
}

TEST_F(ReplyBuilderTest, NestedDeferredLengths) {
  size_t outer = rb_.DeferLen();
  size_t inner = rb_.DeferLen();
  rb_.Int(1);
  rb_.Int(2);
  rb_.SetDeferredLen(inner, '*', 2);
  rb_.Int(3);
  rb_.SetDeferredLen(outer, '*', 2);
  EXPECT_EQ(Take(), "*2\r\n*2\r\n:1\r\n:2\r\n:3\r\n");

  // Inner length set after a later sibling started: offsets before it stay valid.
  outer = rb_.DeferLen();
  rb_.Bulk("x");
  inner = rb_.DeferLen();
  rb_.Bulk("y");
  rb_.SetDeferredLen(inner, '*', 1);
  rb_.SetDeferredLen(outer, '*', 2);
  EXPECT_EQ(Take(), "*2\r\n$1\r\nx\r\n*1\r\n$1\r\ny\r\n");
}

TEST_F(ReplyBuilderTest, DeferredLengthWithZeroAndManyElements) {
  size_t h = rb_.DeferLen();
  rb_.SetDeferredLen(h, '*', 0);
  EXPECT_EQ(Take(), "*0\r\n");

  h = rb_.DeferLen();
  std::string expect;
  for (int i = 0; i < 20000; ++i) {
    rb_.Int(i);
    expect += ":" + std::to_string(i) + "\r\n";
  }
  rb_.SetDeferredLen(h, '*', 20000);
  EXPECT_EQ(Take(), "*20000\r\n" + expect);
}

TEST_F(ReplyBuilderTest, DeferredLengthAfterEarlierOutputWasConsumed) {
  rb_.Bulk(std::string(5000, 'z'));
  buf_.Consume(buf_.Readable() - 2);  // most of it went to the socket
  size_t h = rb_.DeferLen();
  rb_.Int(1);
  rb_.SetDeferredLen(h, '*', 1);
  EXPECT_EQ(Take(), "\r\n*1\r\n:1\r\n");
}

TEST_F(ReplyBuilderTest, DisabledBuilderWritesNothingButCountsErrors) {
  rb_.SetEnabled(false);
  EXPECT_FALSE(rb_.enabled());
  rb_.Ok();
  rb_.Int(1);
  rb_.Bulk("x");
  rb_.Null();
  rb_.Array(2);
  rb_.Map(1);
  rb_.Double(1.5);
  rb_.Bool(true);
  rb_.Verbatim("v");
  rb_.BigNumber("1");
  size_t h = rb_.DeferLen();
  rb_.SetDeferredLen(h, '*', 3);
  rb_.Error("ERR hidden");
  EXPECT_EQ(Out(), "");
  EXPECT_EQ(rb_.errors_written(), 1u);
  EXPECT_EQ(rb_.last_error_prefix(), "ERR");
  rb_.SetEnabled(true);
  rb_.Ok();
  EXPECT_EQ(Out(), "+OK\r\n");
}

// CLIENT REPLY OFF drops replies, not pushes: a PushScope lets its frame through and restores
// the suppression afterwards.
TEST_F(ReplyBuilderTest, PushScopeWritesWhileDisabled) {
  rb_.SetResp(3);
  rb_.SetEnabled(false);
  rb_.Ok();
  {
    ReplyBuilder::PushScope push(rb_);
    rb_.Push(2);
    rb_.Bulk("a");
    rb_.Int(1);
  }
  rb_.Ok();
  EXPECT_FALSE(rb_.enabled());
  EXPECT_EQ(Out(), ">2\r\n$1\r\na\r\n:1\r\n");
}

TEST_F(ReplyBuilderTest, LargeBulk) {
  std::string big(1 << 20, 'q');
  rb_.Bulk(big);
  std::string out = Take();
  EXPECT_EQ(out, "$1048576\r\n" + big + "\r\n");
}

}  // namespace
}  // namespace redistp
