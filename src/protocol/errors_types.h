// Error texts of the data types and their commands: keys and databases, strings, bitmaps,
// hashes, lists, sets, sorted sets, SORT, streams, HyperLogLog and geo. One of the headers
// errors.h gathers; every text byte-identical to Redis 7.0's (without '-' and CRLF).
#pragma once

#include <string>
#include <string_view>

#include "protocol/errors_common.h"

namespace redistp::err {

// ---- keys, databases, expiry, OBJECT ----
inline constexpr std::string_view kInt32Range =
    "ERR value is out of range, value must between -2147483648 and 2147483647";
inline constexpr std::string_view kInvalidFirstDbIndex = "ERR invalid first DB index";
inline constexpr std::string_view kInvalidSecondDbIndex = "ERR invalid second DB index";
inline constexpr std::string_view kExpireNxConflict =
    "ERR NX and XX, GT or LT options at the same time are not compatible";
inline constexpr std::string_view kExpireGtLtConflict =
    "ERR GT and LT options at the same time are not compatible";
inline constexpr std::string_view kLfuNotSelected =
    "ERR An LFU maxmemory policy is not selected, access frequency not tracked. Please note that "
    "when switching between policies at runtime LRU and LFU data will take some time to adjust.";
inline constexpr std::string_view kLfuSelected =
    "ERR An LFU maxmemory policy is selected, idle time not tracked. Please note that when "
    "switching between policies at runtime LRU and LFU data will take some time to adjust.";

// ---- strings ----
inline constexpr std::string_view kDecrOverflow = "ERR decrement would overflow";
inline constexpr std::string_view kLcsNotStrings =
    "ERR The specified keys must contain string values";
inline constexpr std::string_view kLcsIdxAndLen =
    "ERR If you want both the length and indexes, please just use IDX.";
inline constexpr std::string_view kLcsTooLong = "ERR String too long for LCS";
inline constexpr std::string_view kLcsOverLimit =
    "ERR Insufficient memory, transient memory for LCS exceeds proto-max-bulk-len";
inline constexpr std::string_view kLcsNoMemory =
    "ERR Insufficient memory, failed allocating transient memory for LCS";

// ---- bitmaps (SETBIT ... BITFIELD) ----
inline constexpr std::string_view kBitArgument = "ERR The bit argument must be 1 or 0.";
inline constexpr std::string_view kBitOpNotSingle =
    "ERR BITOP NOT must be called with a single source key.";
// BITOP DIFF, DIFF1 and ANDOR (Redis 8.2) given one source; `op` upper case, as 8.2 prints it.
inline std::string BitOpTwoSources(std::string_view op) {
  return "ERR BITOP " + std::string(op) + " must be called with at least two source keys.";
}
inline constexpr std::string_view kBitfieldType =
    "ERR Invalid bitfield type. Use something like i16 u8. Note that u64 is not supported but "
    "i64 is.";
inline constexpr std::string_view kBitfieldOverflowType = "ERR Invalid OVERFLOW type specified";
inline constexpr std::string_view kBitfieldRoGetOnly =
    "ERR BITFIELD_RO only supports the GET subcommand";

// ---- hashes ----
inline constexpr std::string_view kHashValueNotInteger = "ERR hash value is not an integer";
inline constexpr std::string_view kHashValueNotFloat = "ERR hash value is not a float";
// HINCRBYFLOAT's increment itself is NaN or infinite.
inline constexpr std::string_view kHashIncrNanInf = "ERR value is NaN or Infinity";
// HRANDFIELD's count is INT64_MIN (it must be negatable) ...
inline constexpr std::string_view kHashRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
// ... or, with WITHVALUES, its double (the reply's length in RESP2) would not fit:
// kValueOutOfRange.

// ---- lists ----
inline constexpr std::string_view kIndexOutOfRange = "ERR index out of range";
inline constexpr std::string_view kLPosRankZero =
    "ERR RANK can't be zero: use 1 to start from the first match, 2 from the second ... or use "
    "negative to start from the end of the list";
inline constexpr std::string_view kLPosCountNegative = "ERR COUNT can't be negative";
inline constexpr std::string_view kLPosMaxlenNegative = "ERR MAXLEN can't be negative";
// LMPOP/BLMPOP (and, with the same words, ZMPOP/BZMPOP).
inline constexpr std::string_view kNumKeysPositive = "ERR numkeys should be greater than 0";
inline constexpr std::string_view kCountPositive = "ERR count should be greater than 0";

// ---- sets ----
inline constexpr std::string_view kSRandMemberCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and "
    "9223372036854775807";
inline constexpr std::string_view kSetNumKeysTooMany =
    "ERR Number of keys can't be greater than number of args";

// ---- sorted sets ----
inline constexpr std::string_view kZAddXxNx =
    "ERR XX and NX options at the same time are not compatible";
inline constexpr std::string_view kZAddGtLtNx =
    "ERR GT, LT, and/or NX options at the same time are not compatible";
inline constexpr std::string_view kZAddIncrPairs =
    "ERR INCR option supports a single increment-element pair";
inline constexpr std::string_view kZAddNaN = "ERR resulting score is not a number (NaN)";
inline constexpr std::string_view kZMinMaxNotFloat = "ERR min or max is not a float";
inline constexpr std::string_view kZMinMaxNotLex = "ERR min or max not valid string range item";
inline constexpr std::string_view kZLimitNeedsBy =
    "ERR syntax error, LIMIT is only supported in combination with either BYSCORE or BYLEX";
inline constexpr std::string_view kZWithScoresByLex =
    "ERR syntax error, WITHSCORES not supported in combination with BYLEX";

// ---- sorted-set operations ----
// ZMPOP/BZMPOP, ZINTERCARD, ZRANDMEMBER, ZUNION/ZINTER/ZDIFF[STORE] (src/commands/zset_*.cc).
inline constexpr std::string_view kZOpsWeightNotFloat = "ERR weight value is not a float";
inline constexpr std::string_view kZOpsRandCountRange =
    "ERR value is out of range, value must between -9223372036854775807 and 9223372036854775807";
// "ERR at least 1 input key is needed for 'zunionstore' command"
inline std::string ZOpsNoInputKey(std::string_view command) {
  return "ERR at least 1 input key is needed for '" + std::string(command) + "' command";
}

// ---- SORT and the aggregate SCANs ----
// A numeric SORT met an element (or BY value) that is not a number.
inline constexpr std::string_view kSortNotDouble =
    "ERR One or more scores can't be converted into double";
// ---- streams: the type, XADD ... XSETID, XREAD ----
inline constexpr std::string_view kStreamInvalidId =
    "ERR Invalid stream ID specified as stream command argument";
// XADD/XTRIM options.
inline constexpr std::string_view kStreamMaxlenAndMinid =
    "ERR syntax error, MAXLEN and MINID options at the same time are not compatible";
inline constexpr std::string_view kStreamNegativeMaxlen = "ERR The MAXLEN argument must be >= 0.";
inline constexpr std::string_view kStreamNegativeLimit = "ERR The LIMIT argument must be >= 0.";
inline constexpr std::string_view kStreamLimitWithoutStrategy =
    "ERR syntax error, LIMIT cannot be used without specifying a trimming strategy";
inline constexpr std::string_view kStreamLimitWithoutApprox =
    "ERR syntax error, LIMIT cannot be used without the special ~ option";
inline constexpr std::string_view kStreamXTrimWithoutStrategy =
    "ERR syntax error, XTRIM must be called with a trimming strategy";
// XADD ids and sizes.
inline constexpr std::string_view kStreamXAddIdZero =
    "ERR The ID specified in XADD must be greater than 0-0";
inline constexpr std::string_view kStreamXAddIdTooSmall =
    "ERR The ID specified in XADD is equal or smaller than the target stream top item";
inline constexpr std::string_view kStreamExhausted =
    "ERR The stream has exhausted the last possible ID, unable to add more items";
inline constexpr std::string_view kStreamElementsTooLarge =
    "ERR Elements are too large to be stored";
// XRANGE/XREVRANGE exclusive ends that cannot move inwards.
inline constexpr std::string_view kStreamInvalidStartId = "ERR invalid start ID for the interval";
inline constexpr std::string_view kStreamInvalidEndId = "ERR invalid end ID for the interval";
// XSETID.
inline constexpr std::string_view kStreamEntriesAddedNegative =
    "ERR entries_added must be positive";
inline constexpr std::string_view kStreamSetIdBelowMaxDeleted =
    "ERR The ID specified in XSETID is smaller than the provided max_deleted_entry_id";
inline constexpr std::string_view kStreamSetIdBelowTop =
    "ERR The ID specified in XSETID is smaller than the target stream top item";
inline constexpr std::string_view kStreamEntriesAddedBelowLength =
    "ERR The entries_added specified in XSETID is smaller than the target stream length";
// XINFO: a group the key does not have ("NOGROUP No such consumer group 'g' for key name 'k'").
inline std::string StreamNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such consumer group '" + std::string(UpToNul(group)) + "' for key name '" +
         std::string(UpToNul(key)) + "'";
}
// XREAD, XREADGROUP
inline constexpr std::string_view kXReadUnbalanced =
    "ERR Unbalanced XREAD list of streams: for each stream key an ID or '$' must be specified.";
inline constexpr std::string_view kXReadGroupOption =
    "ERR The GROUP option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kXReadNoAckOption =
    "ERR The NOACK option is only supported by XREADGROUP. You called XREAD instead.";
inline constexpr std::string_view kXReadGroupMissingGroup =
    "ERR Missing GROUP option for XREADGROUP";
inline constexpr std::string_view kXReadGroupDollar =
    "ERR The $ ID is meaningless in the context of XREADGROUP: you want to read the history of "
    "this consumer by specifying a proper ID, or use the > ID to get new messages. The $ ID would "
    "just return an empty result set.";
inline constexpr std::string_view kXReadGreaterId =
    "ERR The > ID can be specified only when calling XREADGROUP using the GROUP <group> "
    "<consumer> option.";
// A blocked XREADGROUP whose stream was deleted (or became another type) / whose group was
// destroyed.
inline constexpr std::string_view kXReadGroupKeyGone = "UNBLOCKED the stream key no longer exists";
inline constexpr std::string_view kXReadGroupGroupGone =
    "NOGROUP the consumer group this client was blocked on no longer exists";
// "ERR xread command is not allowed with BLOCK option from scripts"
inline std::string XReadBlockInScript(std::string_view command) {
  return "ERR " + std::string(command) + " command is not allowed with BLOCK option from scripts";
}
// "NOGROUP No such key 's' or consumer group 'g' in XREADGROUP with GROUP option"
inline std::string XReadGroupNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such key '" + std::string(UpToNul(key)) + "' or consumer group '" +
         std::string(UpToNul(group)) + "' in XREADGROUP with GROUP option";
}

// ---- streams: consumer groups ----
// XGROUP.
inline constexpr std::string_view kXGroupKeyMissing =
    "ERR The XGROUP subcommand requires the key to exist. Note that for CREATE you may want to use "
    "the MKSTREAM option to create an empty stream automatically.";
inline constexpr std::string_view kXGroupBusyGroup = "BUSYGROUP Consumer Group name already exists";
inline constexpr std::string_view kXGroupEntriesRead =
    "ERR value for ENTRIESREAD must be positive or -1";
// XPENDING, XCLAIM, XAUTOCLAIM: "NOGROUP No such key 'k' or consumer group 'g'".
inline std::string XClaimNoGroup(std::string_view key, std::string_view group) {
  return "NOGROUP No such key '" + std::string(UpToNul(key)) + "' or consumer group '" +
         std::string(UpToNul(group)) + "'";
}
// XGROUP's missing group is StreamNoGroup; XPENDING's and XAUTOCLAIM's exclusive ids that
// cannot move inwards are kStreamInvalidStartId/kStreamInvalidEndId (above).
// XCLAIM.
inline constexpr std::string_view kXClaimMinIdle = "ERR Invalid min-idle-time argument for XCLAIM";
inline constexpr std::string_view kXClaimIdle = "ERR Invalid IDLE option argument for XCLAIM";
inline constexpr std::string_view kXClaimTime = "ERR Invalid TIME option argument for XCLAIM";
inline constexpr std::string_view kXClaimRetryCount =
    "ERR Invalid RETRYCOUNT option argument for XCLAIM";
// "ERR Unrecognized XCLAIM option 'foo'"
inline std::string XClaimUnknownOption(std::string_view opt) {
  return "ERR Unrecognized XCLAIM option '" + std::string(UpToNul(opt)) + "'";
}
// XAUTOCLAIM.
inline constexpr std::string_view kXAutoClaimMinIdle =
    "ERR Invalid min-idle-time argument for XAUTOCLAIM";
inline constexpr std::string_view kXAutoClaimCount = "ERR COUNT must be > 0";
inline constexpr std::string_view kXAutoClaimCountTooHigh =
    "ERR Insufficient memory, failed allocating transient memory, COUNT too high.";

// ---- HyperLogLog ----
// A string that is not in the HYLL representation (bad size, magic or encoding byte).
inline constexpr std::string_view kNotHll =
    "WRONGTYPE Key is not a valid HyperLogLog string value.";
// A sparse HLL whose opcodes do not cover exactly 16384 registers.
inline constexpr std::string_view kCorruptHll = "INVALIDOBJ Corrupted HLL object detected";
inline constexpr std::string_view kPfDebugNoKey = "ERR The specified key does not exist";
inline constexpr std::string_view kHllNotSparse = "ERR HLL encoding is not sparse";
// "ERR Unknown PFDEBUG subcommand 'x'"
inline std::string PfDebugUnknown(std::string_view sub) {
  return "ERR Unknown PFDEBUG subcommand '" + std::string(UpToNul(sub)) + "'";
}
// PFSELFTEST's failure: "TESTFAILED <what>".
inline std::string HllSelfTestFailed(std::string_view what) {
  return "TESTFAILED " + std::string(what);
}

// ---- geo ----
inline constexpr std::string_view kGeoUnit =
    "ERR unsupported unit provided. please use M, KM, FT, MI";
inline constexpr std::string_view kGeoNeedRadius = "ERR need numeric radius";
inline constexpr std::string_view kGeoNegativeRadius = "ERR radius cannot be negative";
inline constexpr std::string_view kGeoNeedWidth = "ERR need numeric width";
inline constexpr std::string_view kGeoNeedHeight = "ERR need numeric height";
inline constexpr std::string_view kGeoNegativeBox = "ERR height or width cannot be negative";
inline constexpr std::string_view kGeoMemberNotFound = "ERR could not decode requested zset member";
inline constexpr std::string_view kGeoCountNotPositive = "ERR COUNT must be > 0";
inline constexpr std::string_view kGeoAnyNeedsCount =
    "ERR the ANY argument requires COUNT argument";
inline constexpr std::string_view kGeoRadiusStoreWith =
    "ERR STORE option in GEORADIUS is not compatible with WITHDIST, WITHHASH and WITHCOORD "
    "options";
inline constexpr std::string_view kGeoSearchStoreWith =
    "ERR GEOSEARCHSTORE is not compatible with WITHDIST, WITHHASH and WITHCOORD options";
// "ERR invalid longitude,latitude pair 200.000000,2.000000" (both with "%f")
// (std::to_string formats a double exactly as "%f" does).
inline std::string GeoInvalidPair(double lon, double lat) {
  return "ERR invalid longitude,latitude pair " + std::to_string(lon) + "," + std::to_string(lat);
}
// "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for GEOSEARCH" (the command
// name as the client spelled it)
inline std::string GeoNeedFrom(std::string_view cmd) {
  return "ERR exactly one of FROMMEMBER or FROMLONLAT can be specified for " + std::string(cmd);
}
// "ERR exactly one of BYRADIUS and BYBOX can be specified for GEOSEARCH"
inline std::string GeoNeedBy(std::string_view cmd) {
  return "ERR exactly one of BYRADIUS and BYBOX can be specified for " + std::string(cmd);
}

}  // namespace redistp::err
