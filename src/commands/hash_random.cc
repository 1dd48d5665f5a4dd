// HRANDFIELD key [count [WITHVALUES]]: random fields of a hash.
//
// Replies, as Redis 7.0 shapes them:
//   no count          one field as a bulk string, or a null for a missing key;
//   count = 0         an empty array (also for a missing key with any count);
//   count < 0         exactly -count fields drawn independently (repeats allowed), in random
//                     order;
//   count > 0         min(count, size) distinct fields: the whole hash in its own order when
//                     count >= size, else a uniform sample (a listpack hash answers its sample
//                     in listpack order, as Redis does; a count of 1 is a single draw);
//   WITHVALUES        each field followed by its value: a flat array in RESP2, an array of
//                     [field, value] pairs in RESP3.
//
// Every field has the same chance of being drawn whatever the encoding (HashObject's
// RandomPairs/DistinctRandomPairs, types/fair_random.h).
//
// Errors, in Redis's order: a count that is not an integer, a count of INT64_MIN (its
// negation would overflow), a syntax error for anything but a lone WITHVALUES after the count,
// with WITHVALUES a count beyond +-INT64_MAX/2 (RESP2's reply length would overflow), and then
// WRONGTYPE.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "commands/hash_family.h"
#include "commands/lookup.h"
#include "protocol/errors.h"
#include "protocol/reply_builder.h"
#include "server/client.h"
#include "types/hash.h"
#include "util/numbers.h"

namespace redistp {
namespace {

// Writes one drawn field (and its value) in the shape WITHVALUES asks for.
struct PairWriter {
  ReplyBuilder& reply;
  bool with_values;
  void operator()(std::string_view field, std::string_view value) const {
    if (!with_values) {
      reply.Bulk(field);
      return;
    }
    if (reply.resp() >= 3) reply.Array(2);
    reply.Bulk(field);
    reply.Bulk(value);
  }
};

void HRandFieldCommand(CommandContext& c) {
  Entry* e;
  if (c.args.size() == 2) {
    if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kRead, &e)) return;
    if (e == nullptr) {
      c.reply.Null();
      return;
    }
    HashOf(e->value).RandomPairs(
        1, [&c](std::string_view field, std::string_view) { c.reply.Bulk(field); });
    return;
  }
  int64_t count;
  if (!ParseInt64(c.args[2], &count)) {
    c.reply.Error(err::kNotInteger);
    return;
  }
  if (count == INT64_MIN) {
    c.reply.Error(err::kHashRandCountRange);
    return;
  }
  bool with_values = false;
  if (c.args.size() > 4 || (c.args.size() == 4 && !EqualsIgnoreCase(c.args[3], "withvalues"))) {
    c.reply.Error(err::kSyntax);
    return;
  }
  if (c.args.size() == 4) {
    with_values = true;
    if (count < -(INT64_MAX / 2) || count > INT64_MAX / 2) {
      c.reply.Error(err::kValueOutOfRange);
      return;
    }
  }
  if (!LookupTyped(c, c.args[1], ValueType::kHash, Access::kRead, &e)) return;
  if (e == nullptr || count == 0) {
    c.reply.EmptyArray();
    return;
  }
  HashObject& h = HashOf(e->value);
  const bool repeats = count < 0;
  const uint64_t asked = repeats ? static_cast<uint64_t>(-count) : static_cast<uint64_t>(count);
  const uint64_t n = repeats ? asked : std::min<uint64_t>(asked, h.size());
  // RESP2 flattens the pairs; RESP3 nests them, one array per pair.
  c.reply.Array(with_values && c.reply.resp() < 3 ? 2 * n : n);
  const PairWriter write{c.reply, with_values};
  if (repeats || n == 1) {
    // Independent draws, 1024 at a time: a count of billions stops once the reply went over
    // the output limit (dropped, the client closing), as Redis 7.0 does.
    constexpr uint64_t kBatch = 1024;
    for (uint64_t done = 0; done < n && !c.client.out.refused(); done += kBatch) {
      h.RandomPairs(std::min(kBatch, n - done), write);
    }
  } else if (n == h.size()) {
    h.ForEach(write);
  } else {
    h.DistinctRandomPairs(n, write);
  }
}

}  // namespace

CommandSpec HRandFieldSpec() {
  using docs::Block;
  using docs::Integer;
  using docs::Key;
  using docs::PureToken;
  return {.name = "hrandfield",
          .arity = -2,
          .flags = kCmdReadOnly,
          .first_key = 1,
          .last_key = 1,
          .key_step = 1,
          .acl = kAclRead | kAclHash | kAclSlow,
          .doc = {.summary = "Returns one or more random fields of a hash",
                  .since = "6.2.0",
                  .group = "hash",
                  .complexity = "O(N) where N is the number of fields returned",
                  .tips = {"nondeterministic_output"},
                  .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
                  .args = {Key("key", 0),
                           Block("options", {Integer("count"), PureToken("WITHVALUES").Optional()})
                               .Optional()}},
          .handler = HRandFieldCommand};
}

}  // namespace redistp
