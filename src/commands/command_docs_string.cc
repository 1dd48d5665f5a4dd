// Documents of the string and bitmap groups. Transcribed from the interface a running Redis 7.0
// reports; the summaries and history notes are our own words.
//
// SET and BITFIELD declare one key spec with the "variable_flags" flag: what they do to the key
// depends on the options, so their documents carry a refiner that GETKEYSANDFLAGS applies.
#include "commands/command_docs.h"
#include "util/numbers.h"

namespace redistp {

using docs::Block;
using docs::Double;
using docs::Integer;
using docs::Key;
using docs::OneOf;
using docs::Pattern;
using docs::PureToken;
using docs::String;
using docs::UnixTime;

namespace {

// SET reads the old value only when a GET option follows the value (argv[3] onwards).
uint32_t SetKeyFlags(const std::vector<std::string_view>& args, size_t /*spec_index*/,
                     uint32_t /*declared_flags*/) {
  for (size_t i = 3; i < args.size(); ++i) {
    if (EqualsIgnoreCase(args[i], "get")) return kKeyRW | kKeyAccess | kKeyUpdate;
  }
  return kKeyOW | kKeyUpdate;
}

// BITFIELD only reads when every operation is a complete GET or OVERFLOW; anything else (a SET,
// an INCRBY, or an operation it cannot parse) counts as a write.
uint32_t BitfieldKeyFlags(const std::vector<std::string_view>& args, size_t /*spec_index*/,
                          uint32_t /*declared_flags*/) {
  constexpr uint32_t kRead = kKeyRO | kKeyAccess;
  constexpr uint32_t kWrite = kKeyRW | kKeyAccess | kKeyUpdate;
  for (size_t i = 2; i < args.size(); ++i) {
    size_t remaining = args.size() - i - 1;
    if (EqualsIgnoreCase(args[i], "get") && remaining >= 2) {
      i += 2;
    } else if (EqualsIgnoreCase(args[i], "overflow") && remaining >= 1) {
      i += 1;
    } else {
      return kWrite;
    }
  }
  return kRead;
}

}  // namespace

std::vector<CommandDoc> StringCommandDocs() {
  return {
      {.name = "set",
       .summary = "Stores a string at a key, with optional conditions and expiry",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .history = {{"2.6.12", "New `EX`, `PX`, `NX` and `XX` options."},
                   {"6.0.0", "New `KEEPTTL` option."},
                   {"6.2.0", "New `GET`, `EXAT` and `PXAT` options."},
                   {"7.0.0", "`NX` and `GET` may be combined."}},
       .key_specs =
           {{.flags = kKeyRW | kKeyAccess | kKeyUpdate | kKeyVariableFlags,
             .notes =
                 "Read and written (RW, access) only when GET is given; otherwise just overwritten",
             .index = 1}},
       .refine_key_flags = SetKeyFlags,
       .args = {Key("key", 0), String("value"),
                OneOf("condition", {PureToken("NX"), PureToken("XX")}).Since("2.6.12").Optional(),
                PureToken("GET").Since("6.2.0").Optional(),
                OneOf("expiration",
                      {Integer("seconds").Token("EX").Since("2.6.12"),
                       Integer("milliseconds").Token("PX").Since("2.6.12"),
                       UnixTime("unix-time-seconds").Token("EXAT").Since("6.2.0"),
                       UnixTime("unix-time-milliseconds").Token("PXAT").Since("6.2.0"),
                       PureToken("KEEPTTL").Since("6.0.0")})
                    .Optional()}},
      {.name = "get",
       .summary = "Returns the string stored at a key",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0)}},
      {.name = "getex",
       .summary = "Returns the string stored at a key and changes or removes its expiry",
       .since = "6.2.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate,
                      .notes = "Read, and updated because its expiry may change",
                      .index = 1}},
       .args = {Key("key", 0),
                OneOf("expiration",
                      {Integer("seconds").Token("EX"), Integer("milliseconds").Token("PX"),
                       UnixTime("unix-time-seconds").Token("EXAT"),
                       UnixTime("unix-time-milliseconds").Token("PXAT"), PureToken("PERSIST")})
                    .Optional()}},
      {.name = "getdel",
       .summary = "Returns the string stored at a key, then deletes the key",
       .since = "6.2.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyDelete, .index = 1}},
       .args = {Key("key", 0)}},
      {.name = "getset",
       .summary = "Stores a string at a key and returns the string it replaced",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .doc_flags = kDocDeprecated,
       .deprecated_since = "6.2.0",
       .replaced_by = "`SET` with the `GET` option",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), String("value")}},
      {.name = "mget",
       .summary = "Returns the strings stored at several keys",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(N) where N is the number of keys to retrieve.",
       .tips = {"request_policy:multi_shard"},
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = -1}},
       .args = {Key("key", 0).Multiple()}},
      {.name = "mset",
       .summary = "Stores several key-value pairs at once",
       .since = "1.0.1",
       .group = "string",
       .complexity = "O(N) where N is the number of keys to set.",
       .tips = {"request_policy:multi_shard", "response_policy:all_succeeded"},
       .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1, .last_key = -1, .key_step = 2}},
       .args = {Block("key_value", {Key("key", 0), String("value")}).Multiple()}},
      {.name = "msetnx",
       .summary = "Stores several key-value pairs at once, only if none of the keys exists",
       .since = "1.0.1",
       .group = "string",
       .complexity = "O(N) where N is the number of keys to set.",
       .tips = {"request_policy:multi_shard", "response_policy:agg_min"},
       .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1, .last_key = -1, .key_step = 2}},
       .args = {Block("key_value", {Key("key", 0), String("value")}).Multiple()}},
      {.name = "setnx",
       .summary = "Stores a string at a key only if the key does not exist",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyOW | kKeyInsert, .index = 1}},
       .args = {Key("key", 0), String("value")}},
      {.name = "setex",
       .summary = "Stores a string at a key with a time to live in seconds",
       .since = "2.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("seconds"), String("value")}},
      {.name = "psetex",
       .summary = "Stores a string at a key with a time to live in milliseconds",
       .since = "2.6.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("milliseconds"), String("value")}},
      {.name = "append",
       .summary = "Adds bytes to the end of the string at a key, creating the key if needed",
       .since = "2.0.0",
       .group = "string",
       .complexity =
           "O(1). The amortized time complexity is O(1) assuming the appended value is small and "
           "the already present value is of any size, since the dynamic string library used by "
           "Redis will double the free space available on every reallocation.",
       .key_specs = {{.flags = kKeyRW | kKeyInsert, .index = 1}},
       .args = {Key("key", 0), String("value")}},
      {.name = "strlen",
       .summary = "Returns the length in bytes of the string at a key",
       .since = "2.2.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRO, .index = 1}},
       .args = {Key("key", 0)}},
      {.name = "incr",
       .summary = "Adds one to the integer stored at a key",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0)}},
      {.name = "decr",
       .summary = "Subtracts one from the integer stored at a key",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0)}},
      {.name = "incrby",
       .summary = "Adds an integer amount to the integer stored at a key",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("increment")}},
      {.name = "decrby",
       .summary = "Subtracts an integer amount from the integer stored at a key",
       .since = "1.0.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("decrement")}},
      {.name = "incrbyfloat",
       .summary = "Adds a floating point amount to the number stored at a key",
       .since = "2.6.0",
       .group = "string",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Double("increment")}},
      {.name = "getrange",
       .summary = "Returns a byte range of the string stored at a key",
       .since = "2.4.0",
       .group = "string",
       .complexity =
           "O(N) where N is the length of the returned string. The complexity is ultimately "
           "determined by the returned length, but because creating a substring from an existing "
           "string is very cheap, it can be considered O(1) for small strings.",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0), Integer("start"), Integer("end")}},
      {.name = "setrange",
       .summary = "Overwrites part of the string at a key, starting at a byte offset",
       .since = "2.2.0",
       .group = "string",
       .complexity = "O(1), not counting the time taken to copy the new string in place. Usually, "
                     "this string is very small so the amortized complexity is O(1). Otherwise, "
                     "complexity is O(M) with M being the length of the value argument.",
       .key_specs = {{.flags = kKeyRW | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("offset"), String("value")}},
      {.name = "substr",
       .summary = "Returns a byte range of the string stored at a key (the old name of GETRANGE)",
       .since = "1.0.0",
       .group = "string",
       .complexity =
           "O(N) where N is the length of the returned string. The complexity is ultimately "
           "determined by the returned length, but because creating a substring from an existing "
           "string is very cheap, it can be considered O(1) for small strings.",
       .doc_flags = kDocDeprecated,
       .deprecated_since = "2.0.0",
       .replaced_by = "`GETRANGE`",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0), Integer("start"), Integer("end")}},
      {.name = "lcs",
       .summary = "Finds the longest common subsequence of the strings at two keys",
       .since = "7.0.0",
       .group = "string",
       .complexity = "O(N*M) where N and M are the lengths of s1 and s2, respectively",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1, .last_key = 1}},
       .args = {Key("key1", 0), Key("key2", 0), PureToken("LEN").Optional(),
                PureToken("IDX").Optional(), Integer("len").Token("MINMATCHLEN").Optional(),
                PureToken("WITHMATCHLEN").Optional()}},
      {.name = "setbit",
       .summary = "Sets or clears one bit of the string at a key",
       .since = "2.2.0",
       .group = "bitmap",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRW | kKeyAccess | kKeyUpdate, .index = 1}},
       .args = {Key("key", 0), Integer("offset"), Integer("value")}},
      {.name = "getbit",
       .summary = "Returns one bit of the string at a key",
       .since = "2.2.0",
       .group = "bitmap",
       .complexity = "O(1)",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0), Integer("offset")}},
      {.name = "bitcount",
       .summary = "Counts the set bits of a string, optionally within a range",
       .since = "2.6.0",
       .group = "bitmap",
       .complexity = "O(N)",
       .history = {{"7.0.0", "The range may be given in bits with the new `BYTE`/`BIT` unit."}},
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0),
                Block("index", {Integer("start"), Integer("end"),
                                OneOf("index_unit", {PureToken("BYTE"), PureToken("BIT")})
                                    .Since("7.0.0")
                                    .Optional()})
                    .Optional()}},
      {.name = "bitpos",
       .summary = "Finds the first set or clear bit of a string, optionally within a range",
       .since = "2.8.7",
       .group = "bitmap",
       .complexity = "O(N)",
       .history = {{"7.0.0", "The range may be given in bits with the new `BYTE`/`BIT` unit."}},
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0), Integer("bit"),
                Block("index",
                      {Integer("start"),
                       Block("end_index", {Integer("end"), OneOf("index_unit", {PureToken("BYTE"),
                                                                                PureToken("BIT")})
                                                               .Since("7.0.0")
                                                               .Optional()})
                           .Optional()})
                    .Optional()}},
      {.name = "bitop",
       .summary = "Combines strings bit by bit (AND, OR, XOR, NOT) into a destination key",
       .since = "2.6.0",
       .group = "bitmap",
       .complexity = "O(N)",
       .key_specs = {{.flags = kKeyOW | kKeyUpdate, .index = 2},
                     {.flags = kKeyRO | kKeyAccess, .index = 3, .last_key = -1}},
       .args = {String("operation"), Key("destkey", 0), Key("key", 1).Multiple()}},
      {.name = "bitfield",
       .summary = "Reads and writes integers of any width at any bit offset of a string",
       .since = "3.2.0",
       .group = "bitmap",
       .complexity = "O(1) for each subcommand specified",
       .key_specs =
           {{.flags = kKeyRW | kKeyAccess | kKeyUpdate | kKeyVariableFlags,
             .notes = "Read-write when SET or INCRBY appears; a call made only of GETs just reads",
             .index = 1}},
       .refine_key_flags = BitfieldKeyFlags,
       .args =
           {Key("key", 0),
            OneOf(
                "operation",
                {Block("encoding_offset", {String("encoding"), Integer("offset")}).Token("GET"),
                 Block("write",
                       {OneOf("wrap_sat_fail",
                              {PureToken("WRAP"), PureToken("SAT"), PureToken("FAIL")})
                            .Token("OVERFLOW")
                            .Optional(),
                        OneOf("write_operation",
                              {Block("encoding_offset_value",
                                     {String("encoding"), Integer("offset"), Integer("value")})
                                   .Token("SET"),
                               Block("encoding_offset_increment",
                                     {String("encoding"), Integer("offset"), Integer("increment")})
                                   .Token("INCRBY")})})})
                .Optional()
                .Multiple()}},
      {.name = "bitfield_ro",
       .summary = "Reads integers of any width at any bit offset of a string",
       .since = "6.0.0",
       .group = "bitmap",
       .complexity = "O(1) for each subcommand specified",
       .key_specs = {{.flags = kKeyRO | kKeyAccess, .index = 1}},
       .args = {Key("key", 0), Block("encoding_offset", {String("encoding"), Integer("offset")})
                                   .Token("GET")
                                   .Optional()
                                   .Multiple()
                                   .MultipleToken()}},
  };
}

}  // namespace redistp
