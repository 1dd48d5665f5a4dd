// Unit tests for RequestParser: multibulk and inline requests, requests split across reads,
// every protocol error text (as Redis 7.0 words them) and the pre-AUTH limits.
#include "protocol/request_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "protocol/errors.h"

namespace redistp {
namespace {

using Status = RequestParser::Status;

std::vector<std::string> Args(const RequestParser& p) { return {p.args().begin(), p.args().end()}; }

// Parses one request from the whole of `buf`.
struct Parsed {
  Status status;
  std::vector<std::string> args;
  size_t consumed;
  std::string error;
};

Parsed ParseOnce(std::string_view buf, const ParserLimits& limits = {}) {
  RequestParser p;
  Status st = p.Parse(buf, limits);
  Parsed out{st, {}, 0, {}};
  if (st == Status::kCommand) out.args = Args(p);
  if (st == Status::kCommand || st == Status::kEmpty) out.consumed = p.consumed();
  if (st == Status::kError) out.error = p.error();
  return out;
}

std::string ErrorOf(std::string_view buf, const ParserLimits& limits = {}) {
  Parsed r = ParseOnce(buf, limits);
  EXPECT_EQ(r.status, Status::kError) << "input: " << buf.substr(0, 60);
  return r.error;
}

TEST(RequestParserTest, Multibulk) {
  std::string req = "*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n";
  Parsed r = ParseOnce(req);
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"GET", "key"}));
  EXPECT_EQ(r.consumed, req.size());
}

TEST(RequestParserTest, MultibulkArgumentsAreViewsIntoTheBuffer) {
  std::string req = "*1\r\n$4\r\nPING\r\n";
  RequestParser p;
  ASSERT_EQ(p.Parse(req, {}), Status::kCommand);
  ASSERT_EQ(p.args().size(), 1u);
  EXPECT_EQ(p.args()[0].data(), req.data() + 8);
}

TEST(RequestParserTest, BinaryAndEmptyBulks) {
  std::string payload("a\r\nb\0c", 6);
  std::string req = "*3\r\n$3\r\nSET\r\n$0\r\n\r\n$6\r\n" + payload + "\r\n";
  Parsed r = ParseOnce(req);
  ASSERT_EQ(r.status, Status::kCommand);
  ASSERT_EQ(r.args.size(), 3u);
  EXPECT_EQ(r.args[1], "");
  EXPECT_EQ(r.args[2], payload);
  EXPECT_EQ(r.consumed, req.size());
}

TEST(RequestParserTest, PipelinedRequestsOneAtATime) {
  std::string buf = "*1\r\n$4\r\nPING\r\n*2\r\n$4\r\nECHO\r\n$2\r\nhi\r\nPING\r\n";
  RequestParser p;
  std::vector<std::vector<std::string>> got;
  std::string_view rest = buf;
  while (!rest.empty()) {
    Status st = p.Parse(rest, {});
    ASSERT_EQ(st, Status::kCommand);
    got.push_back(Args(p));
    rest.remove_prefix(p.consumed());
    p.Reset();
  }
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0], (std::vector<std::string>{"PING"}));
  EXPECT_EQ(got[1], (std::vector<std::string>{"ECHO", "hi"}));
  EXPECT_EQ(got[2], (std::vector<std::string>{"PING"}));
}

TEST(RequestParserTest, EmptyMultibulkIsSkipped) {
  Parsed r = ParseOnce("*0\r\n");
  EXPECT_EQ(r.status, Status::kEmpty);
  EXPECT_EQ(r.consumed, 4u);
  r = ParseOnce("*-1\r\n*1\r\n");
  EXPECT_EQ(r.status, Status::kEmpty);
  EXPECT_EQ(r.consumed, 5u);
  r = ParseOnce("*-100\r\n");
  EXPECT_EQ(r.status, Status::kEmpty);
}

TEST(RequestParserTest, BulkDataIsTakenByLengthNotByTerminator) {
  // Redis skips the two bytes after a bulk without checking they are CRLF.
  std::string req = "*1\r\n$1\r\nbxx";
  Parsed r = ParseOnce(req);
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"b"}));
  EXPECT_EQ(r.consumed, req.size());
}

// Feeds the request one byte at a time, as a slow client would, and checks the parser waits
// until the last byte and then yields the right arguments.
void ExpectSplitParse(const std::string& req, const std::vector<std::string>& want) {
  RequestParser p;
  for (size_t n = 1; n < req.size(); ++n) {
    ASSERT_EQ(p.Parse(std::string_view(req).substr(0, n), {}), Status::kNeedMore)
        << "prefix of " << n << " bytes";
  }
  ASSERT_EQ(p.Parse(req, {}), Status::kCommand);
  EXPECT_EQ(Args(p), want);
  EXPECT_EQ(p.consumed(), req.size());
}

TEST(RequestParserTest, MultibulkSplitByteByByte) {
  ExpectSplitParse("*3\r\n$3\r\nSET\r\n$10\r\nkey\r\n12345\r\n$0\r\n\r\n",
                   {"SET", "key\r\n12345", ""});
}

TEST(RequestParserTest, InlineSplitByteByByte) {
  ExpectSplitParse("SET \"a b\" 'c'\r\n", {"SET", "a b", "c"});
}

TEST(RequestParserTest, BulkBytesMissing) {
  RequestParser p;
  std::string part = "*2\r\n$3\r\nGET\r\n$10\r\nabc";
  EXPECT_EQ(p.bulk_bytes_missing(0), 0u) << "nothing parsed yet";
  ASSERT_EQ(p.Parse(part, {}), Status::kNeedMore);
  // The bulk starts at offset 18 and needs 10 bytes + CRLF: 30 bytes in all.
  EXPECT_EQ(p.bulk_bytes_missing(part.size()), 30 - part.size());
  std::string more = part + "defghij\r";
  ASSERT_EQ(p.Parse(more, {}), Status::kNeedMore);
  EXPECT_EQ(p.bulk_bytes_missing(more.size()), 1u);
  std::string full = more + "\n";
  ASSERT_EQ(p.Parse(full, {}), Status::kCommand);
  EXPECT_EQ(Args(p), (std::vector<std::string>{"GET", "abcdefghij"}));
}

TEST(RequestParserTest, BulkBytesMissingIsZeroBeforeTheBulkHeader) {
  RequestParser p;
  ASSERT_EQ(p.Parse("*2\r\n$3\r\nGET\r\n$1", {}), Status::kNeedMore);
  EXPECT_EQ(p.bulk_bytes_missing(15), 0u);
  RequestParser inline_parser;
  ASSERT_EQ(inline_parser.Parse("PING", {}), Status::kNeedMore);
  EXPECT_EQ(inline_parser.bulk_bytes_missing(4), 0u);
}

TEST(RequestParserTest, InlineCommands) {
  Parsed r = ParseOnce("SET key value\r\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"SET", "key", "value"}));
  EXPECT_EQ(r.consumed, 15u);
  r = ParseOnce("PING\nECHO x\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"PING"}));
  EXPECT_EQ(r.consumed, 5u);
  r = ParseOnce("  GET \t  k  \r\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"GET", "k"}));
}

TEST(RequestParserTest, InlineQuotingRules) {
  Parsed r = ParseOnce("ECHO \"a b\\x41\\n\\t\\\"\\\\\" 'it\\'s' \"\"\r\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"ECHO", "a bA\n\t\"\\", "it's", ""}));
  // A quote may open inside a word; escapes other than \' stay literal in single quotes.
  r = ParseOnce("ECHO foo\"bar baz\" 'a\\nb'\r\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"ECHO", "foobar baz", "a\\nb"}));
  // \x with non-hex digits is just an escaped 'x'.
  r = ParseOnce("ECHO \"\\xZZ\"\r\n");
  ASSERT_EQ(r.status, Status::kCommand);
  EXPECT_EQ(r.args, (std::vector<std::string>{"ECHO", "xZZ"}));
}

TEST(RequestParserTest, EmptyInlineLinesAreSkipped) {
  Parsed r = ParseOnce("\r\n");
  EXPECT_EQ(r.status, Status::kEmpty);
  EXPECT_EQ(r.consumed, 2u);
  r = ParseOnce("   \t \n");
  EXPECT_EQ(r.status, Status::kEmpty);
  EXPECT_EQ(r.consumed, 6u);
}

TEST(RequestParserTest, InlineUnbalancedQuotes) {
  const char* bad[] = {"SET \"abc\r\n", "SET 'abc\r\n", "SET \"a\"b\r\n", "SET 'a'b\r\n",
                       "SET \"abc\\\"\r\n"};
  for (const char* req : bad) {
    EXPECT_EQ(ErrorOf(req), err::kProtoUnbalancedQuotes) << req;
  }
  EXPECT_EQ(ErrorOf("SET \"abc\\\r\n"), "ERR Protocol error: unbalanced quotes in request");
}

TEST(RequestParserTest, InlineTooBig) {
  std::string big(64 * 1024 + 1, 'a');
  EXPECT_EQ(ErrorOf(big), "ERR Protocol error: too big inline request");
  std::string ok(64 * 1024, 'a');
  EXPECT_EQ(ParseOnce(ok).status, Status::kNeedMore);
}

TEST(RequestParserTest, InvalidMultibulkLength) {
  const char* bad[] = {"*abc\r\n", "*-0\r\n", "*01\r\n",         "*1x\r\n",
                       "*\r\n",    "*+1\r\n", "*2147483648\r\n", "*99999999999999999999\r\n"};
  for (const char* req : bad) {
    EXPECT_EQ(ErrorOf(req), "ERR Protocol error: invalid multibulk length") << req;
  }
}

TEST(RequestParserTest, LargeMultibulkCountWaitsForData) {
  // A large count allocates nothing up front; the parser just waits for the arguments.
  EXPECT_EQ(ParseOnce("*1048577\r\n").status, Status::kNeedMore);
  EXPECT_EQ(ParseOnce("*1073741824\r\n").status, Status::kNeedMore);
}

// Redis 7.0 accepts multibulk counts up to INT_MAX (2147483647): "*1073741825\r\n" makes it
// wait for arguments, and only "*2147483648\r\n" is an invalid multibulk length.
TEST(RequestParserTest, MultibulkCountUpToIntMaxLikeRedis) {
  EXPECT_EQ(ParseOnce("*1073741825\r\n").status, Status::kNeedMore);
  EXPECT_EQ(ParseOnce("*2147483647\r\n").status, Status::kNeedMore);
}

TEST(RequestParserTest, ExpectedDollar) {
  EXPECT_EQ(ErrorOf("*1\r\nx\r\n"), "ERR Protocol error: expected '$', got 'x'");
  EXPECT_EQ(ErrorOf("*2\r\n$1\r\na\r\n:1\r\n"), "ERR Protocol error: expected '$', got ':'");
}

TEST(RequestParserTest, InvalidBulkLength) {
  const char* bad[] = {"*1\r\n$-1\r\n", "*1\r\n$abc\r\n", "*1\r\n$-0\r\n",
                       "*1\r\n$01\r\n", "*1\r\n$\r\n",    "*1\r\n$536870913\r\n"};
  for (const char* req : bad) {
    EXPECT_EQ(ErrorOf(req), "ERR Protocol error: invalid bulk length") << req;
  }
  EXPECT_EQ(ParseOnce("*1\r\n$536870912\r\n").status, Status::kNeedMore);
}

TEST(RequestParserTest, ProtoMaxBulkLenIsHonoured) {
  ParserLimits limits;
  limits.max_bulk_len = 10;
  EXPECT_EQ(ErrorOf("*1\r\n$11\r\n", limits), "ERR Protocol error: invalid bulk length");
  Parsed r = ParseOnce("*1\r\n$10\r\n0123456789\r\n", limits);
  EXPECT_EQ(r.status, Status::kCommand);
}

TEST(RequestParserTest, TooBigCountStrings) {
  std::string mbulk = "*" + std::string(70000, '1');
  EXPECT_EQ(ErrorOf(mbulk), "ERR Protocol error: too big mbulk count string");
  std::string bulk = "*1\r\n$" + std::string(70000, '1');
  EXPECT_EQ(ErrorOf(bulk), "ERR Protocol error: too big bulk count string");
}

TEST(RequestParserTest, UnauthenticatedLimits) {
  ParserLimits limits;
  limits.authenticated = false;
  EXPECT_EQ(ErrorOf("*11\r\n", limits), "ERR Protocol error: unauthenticated multibulk length");
  EXPECT_EQ(ParseOnce("*10\r\n", limits).status, Status::kNeedMore);
  EXPECT_EQ(ErrorOf("*1\r\n$16385\r\n", limits), "ERR Protocol error: unauthenticated bulk length");
  EXPECT_EQ(ParseOnce("*1\r\n$16384\r\n", limits).status, Status::kNeedMore);
  // An invalid count is still an invalid count, authenticated or not.
  EXPECT_EQ(ErrorOf("*x\r\n", limits), "ERR Protocol error: invalid multibulk length");
  // Inline requests have no pre-AUTH limit beyond the inline size.
  EXPECT_EQ(ParseOnce("AUTH a b c d e f g h i j k l\r\n", limits).status, Status::kCommand);
}

TEST(RequestParserTest, ResetAfterErrorParsesAFreshRequest) {
  RequestParser p;
  ASSERT_EQ(p.Parse("*1\r\n$x\r\n", {}), Status::kError);
  p.Reset();
  ASSERT_EQ(p.Parse("*1\r\n$4\r\nPING\r\n", {}), Status::kCommand);
  EXPECT_EQ(Args(p), (std::vector<std::string>{"PING"}));
}

TEST(RequestParserTest, BigArgumentInManyReads) {
  std::string value(1 << 20, 'v');
  std::string req =
      "*2\r\n$4\r\nECHO\r\n$" + std::to_string(value.size()) + "\r\n" + value + "\r\n";
  RequestParser p;
  size_t step = 4096;
  size_t n = step;
  for (; n < req.size(); n += step) {
    ASSERT_EQ(p.Parse(std::string_view(req).substr(0, n), {}), Status::kNeedMore);
  }
  ASSERT_EQ(p.Parse(req, {}), Status::kCommand);
  ASSERT_EQ(p.args().size(), 2u);
  EXPECT_EQ(p.args()[1].size(), value.size());
  EXPECT_EQ(p.args()[1], value);
}

TEST(SplitInlineArgsTest, Basics) {
  std::vector<std::string> out;
  ASSERT_TRUE(SplitInlineArgs("", &out));
  EXPECT_TRUE(out.empty());
  ASSERT_TRUE(SplitInlineArgs("a  b\tc", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"a", "b", "c"}));
  ASSERT_TRUE(SplitInlineArgs("\"\\x4a\\x4B\" 'a\\\\b'", &out));
  EXPECT_EQ(out, (std::vector<std::string>{"JK", "a\\\\b"}));
  // In single quotes only \' is an escape, so '\\' is a backslash and an escaped quote left
  // open (Redis answers "unbalanced quotes" too).
  EXPECT_FALSE(SplitInlineArgs("'\\\\'", &out));
  EXPECT_FALSE(SplitInlineArgs("\"open", &out));
  EXPECT_FALSE(SplitInlineArgs("'x'y", &out));
}

}  // namespace
}  // namespace redistp
