// Internal to the sorted-set operations family (zset_pop.cc, zset_blocking.cc, zset_random.cc,
// zset_ops.cc): the arguments ZMPOP and BZMPOP share, and each file's registration, called by
// RegisterZSetOpsCommands (commands/register.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "db/entry.h"
#include "server/command.h"

namespace redistp {

// `numkeys key [key ...] MIN|MAX [COUNT count]` starting at args[numkeys_pos].
struct MPopArgs {
  size_t first_key = 0;  // index in args of the first key
  size_t num_keys = 0;
  bool max = false;
  int64_t count = 1;  // 1 unless COUNT was given
};

// Parses the tail of ZMPOP/BZMPOP in Redis 7.0's order and with its errors (numkeys < 1 or not
// a number: "numkeys should be greater than 0"; too few arguments for the keys and MIN|MAX, an
// unknown word, or COUNT twice: syntax error; COUNT < 1: "count should be greater than 0").
// Replies the error and returns false when invalid.
bool ParseMPopArgs(CommandContext& c, size_t numkeys_pos, MPopArgs* out);

// The first of `keys` holding a sorted set (absent keys are skipped; Redis never keeps an empty
// one). Replies WRONGTYPE and returns false when a key met on the way holds another type;
// otherwise stores the entry (nullptr when none exists) and its index in `keys`.
bool FindPoppableZSet(CommandContext& c, const std::vector<std::string_view>& keys, Entry** out,
                      size_t* index);

// COMMAND DOCS arguments of ZMPOP's tail (BZMPOP puts its timeout in front).
std::vector<ArgDoc> MPopArgDocs();

void RegisterZSetPopCommands(CommandTable& table);
void RegisterZSetBlockingCommands(CommandTable& table);
void RegisterZSetRandomCommands(CommandTable& table);

inline constexpr const char* kMPopComplexity =
    "O(K) + O(M*log(N)) where K is the number of provided keys, N being the number of elements "
    "in the sorted set, and M being the number of elements popped.";

}  // namespace redistp
