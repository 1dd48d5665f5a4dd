// Every client-visible error text, byte-identical to Redis 7.0's (without '-' and CRLF).
// Texts that need the command name or an argument are formatted by the helpers at the bottom.
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

inline constexpr std::string_view kSyntax = "ERR syntax error";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kIncrFloatNanInf =
    "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kDbIndexRange = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndex = "ERR invalid DB index";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kOffsetRange = "ERR offset is out of range";
inline constexpr std::string_view kNoAuth = "NOAUTH Authentication required.";
inline constexpr std::string_view kWrongPass =
    "WRONGPASS invalid username-password pair or user is disabled.";
inline constexpr std::string_view kAuthNoPassword =
    "ERR AUTH <password> called without any password configured for the default user. Are you "
    "sure your configuration is correct?";
inline constexpr std::string_view kMaxClients = "ERR max number of clients reached";
inline constexpr std::string_view kInvalidCursor = "ERR invalid cursor";
inline constexpr std::string_view kSameObject = "ERR source and destination objects are the same";
inline constexpr std::string_view kTimeoutNotFloat = "ERR timeout is not a float or out of range";
inline constexpr std::string_view kTimeoutNegative = "ERR timeout is negative";
inline constexpr std::string_view kNoProto = "NOPROTO unsupported protocol version";
inline constexpr std::string_view kProtoInvalidMultibulk =
    "ERR Protocol error: invalid multibulk length";
inline constexpr std::string_view kProtoInvalidBulk = "ERR Protocol error: invalid bulk length";
inline constexpr std::string_view kProtoUnauthMultibulk =
    "ERR Protocol error: unauthenticated multibulk length";
inline constexpr std::string_view kProtoUnauthBulk =
    "ERR Protocol error: unauthenticated bulk length";
inline constexpr std::string_view kProtoBigMultibulk =
    "ERR Protocol error: too big mbulk count string";
inline constexpr std::string_view kProtoBigBulk = "ERR Protocol error: too big bulk count string";
inline constexpr std::string_view kProtoBigInline = "ERR Protocol error: too big inline request";
inline constexpr std::string_view kProtoUnbalancedQuotes =
    "ERR Protocol error: unbalanced quotes in request";

// "ERR wrong number of arguments for 'get' command"
inline std::string WrongArity(std::string_view full_name) {
  return "ERR wrong number of arguments for '" + std::string(full_name) + "' command";
}
// "ERR unknown subcommand 'foo'. Try CONFIG HELP."
inline std::string UnknownSubcommand(std::string_view sub, std::string_view container_upper) {
  return "ERR unknown subcommand '" + std::string(sub) + "'. Try " + std::string(container_upper) +
         " HELP.";
}
// "ERR invalid expire time in 'set' command"
inline std::string InvalidExpire(std::string_view cmd) {
  return "ERR invalid expire time in '" + std::string(cmd) + "' command";
}
inline std::string ProtoExpectedDollar(char got) {
  return std::string("ERR Protocol error: expected '$', got '") + got + "'";
}

}  // namespace redistp::err
