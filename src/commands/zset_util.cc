#include "commands/zset_util.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "util/numbers.h"

namespace redistp {
namespace {

// Runs strtod over `text` made NUL-terminated (on the stack when short, as most scores are).
// Sets *consumed to the bytes strtod read and returns the value; errno is left for the caller.
double StrtodText(std::string_view text, size_t* consumed) {
  char small[64];
  std::string big;
  char* buf = small;
  if (text.size() < sizeof(small)) {
    std::memcpy(small, text.data(), text.size());
    small[text.size()] = '\0';
  } else {
    big.assign(text);
    buf = big.data();
  }
  char* end = nullptr;
  double v = std::strtod(buf, &end);
  *consumed = static_cast<size_t>(end - buf);
  return v;
}

// One end of a score range: "(" for exclusive, then strtod up to a NUL (Redis checks only that
// strtod stopped at the string's terminator, so "" reads as 0).
bool ParseRangeEnd(std::string_view text, double* value, bool* exclusive) {
  *exclusive = !text.empty() && text[0] == '(';
  if (*exclusive) text.remove_prefix(1);
  size_t consumed;
  double v = StrtodText(text, &consumed);
  if (consumed < text.size() && text[consumed] != '\0') return false;
  if (std::isnan(v)) return false;
  *value = v;
  return true;
}

bool ParseLexEnd(std::string_view text, LexBound* out) {
  if (text.empty()) return false;
  switch (text[0]) {
    case '+':
    case '-':
      // Redis reads the item as a C string: "+" must end right there.
      if (text.size() > 1 && text[1] != '\0') return false;
      out->kind = text[0] == '+' ? LexBound::kPosInf : LexBound::kNegInf;
      out->bytes = {};
      return true;
    case '(':
    case '[':
      out->kind = text[0] == '(' ? LexBound::kExclusive : LexBound::kInclusive;
      out->bytes = text.substr(1);
      return true;
    default:
      return false;
  }
}

// Writes "%.17g" of a finite score into buf (at least 32 bytes); "inf"/"-inf" otherwise.
size_t FormatScore(double score, char* buf) {
  if (std::isinf(score)) {
    std::memcpy(buf, score > 0 ? "inf" : "-inf", score > 0 ? 3 : 4);
    return score > 0 ? 3 : 4;
  }
  return static_cast<size_t>(std::snprintf(buf, 32, "%.17g", score));
}

}  // namespace

bool ParseScore(std::string_view text, double* out) {
  if (text.empty() || std::isspace(static_cast<unsigned char>(text[0]))) return false;
  errno = 0;
  size_t consumed;
  double v = StrtodText(text, &consumed);
  if (consumed != text.size() || std::isnan(v)) return false;
  if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL || v == 0)) return false;
  *out = v;
  return true;
}

bool ParseScoreRange(std::string_view min, std::string_view max, ScoreRange* out) {
  return ParseRangeEnd(min, &out->min, &out->min_exclusive) &&
         ParseRangeEnd(max, &out->max, &out->max_exclusive);
}

bool ParseLexRange(std::string_view min, std::string_view max, LexRange* out) {
  return ParseLexEnd(min, &out->min) && ParseLexEnd(max, &out->max);
}

bool NormalizeRanks(int64_t start, int64_t end, size_t len, size_t* from, size_t* to) {
  const auto n = static_cast<int64_t>(len);
  if (start < 0) start += n;
  if (end < 0) end += n;
  if (start < 0) start = 0;
  if (start > end || start >= n) return false;
  if (end >= n) end = n - 1;
  *from = static_cast<size_t>(start);
  *to = static_cast<size_t>(end);
  return true;
}

void ReplyScore(ReplyBuilder& reply, double score) {
  char buf[40];
  if (reply.resp() < 3) {
    reply.Bulk(std::string_view(buf, FormatScore(score, buf)));
    return;
  }
  buf[0] = ',';
  size_t n = 1 + FormatScore(score, buf + 1);
  buf[n++] = '\r';
  buf[n++] = '\n';
  reply.Raw(std::string_view(buf, n));
}

void ReplyRangeHeader(ReplyBuilder& reply, size_t count, bool withscores) {
  reply.Array(withscores && reply.resp() < 3 ? 2 * count : count);
}

void ReplyRangeItem(ReplyBuilder& reply, std::string_view member, double score, bool withscores) {
  if (!withscores) {
    reply.Bulk(member);
    return;
  }
  if (reply.resp() >= 3) reply.Array(2);
  reply.Bulk(member);
  ReplyScore(reply, score);
}

size_t DeferRange(ReplyBuilder& reply) { return reply.DeferLen(); }

void EndRange(ReplyBuilder& reply, size_t handle, size_t count, bool withscores) {
  reply.SetDeferredLen(handle, '*', withscores && reply.resp() < 3 ? 2 * count : count);
}

}  // namespace redistp
