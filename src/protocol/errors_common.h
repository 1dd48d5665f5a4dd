// Error texts shared by every family: argument and value checks, the arity and subcommand
// errors and the helpers that format them, authentication, and the protocol's own errors. One
// of the headers errors.h gathers; every text byte-identical to Redis 7.0's (without '-' and
// CRLF).
#pragma once

#include <string>
#include <string_view>

namespace redistp::err {

// ---- arguments and values ----
inline constexpr std::string_view kSyntax = "ERR syntax error";
// Argument checks shared by several families (LMPOP/ZMPOP/SINTERCARD/ZINTERCARD, the random
// picks' range checks).
inline constexpr std::string_view kLimitNegative = "ERR LIMIT can't be negative";
inline constexpr std::string_view kValueOutOfRange = "ERR value is out of range";
inline constexpr std::string_view kNotInteger = "ERR value is not an integer or out of range";
inline constexpr std::string_view kNotFloat = "ERR value is not a valid float";
inline constexpr std::string_view kWrongType =
    "WRONGTYPE Operation against a key holding the wrong kind of value";
inline constexpr std::string_view kNoSuchKey = "ERR no such key";
// DEBUG HTSTATS-KEY of a value in a packed encoding (listpack, intset) or of a string or list.
inline constexpr std::string_view kNotHashTableEncoded =
    "ERR The value stored at the specified key is not represented using an hash table";
inline constexpr std::string_view kOverflow = "ERR increment or decrement would overflow";
inline constexpr std::string_view kIncrFloatNanInf = "ERR increment would produce NaN or Infinity";
inline constexpr std::string_view kDbIndexRange = "ERR DB index is out of range";
inline constexpr std::string_view kInvalidDbIndex = "ERR invalid DB index";
inline constexpr std::string_view kStringTooLong =
    "ERR string exceeds maximum allowed size (proto-max-bulk-len)";
inline constexpr std::string_view kBitOffset = "ERR bit offset is not an integer or out of range";
inline constexpr std::string_view kBitValue = "ERR bit is not an integer or out of range";
inline constexpr std::string_view kOffsetRange = "ERR offset is out of range";

// ---- authentication and connections ----
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

// ---- the protocol ----
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

// ---- arity, subcommands, unknown commands and options ----
// "ERR wrong number of arguments for 'get' command"
inline std::string WrongArity(std::string_view full_name) {
  return "ERR wrong number of arguments for '" + std::string(full_name) + "' command";
}
// A client argument as Redis prints it into an error: with C's %s, which stops at a NUL byte.
inline std::string_view UpToNul(std::string_view arg) { return arg.substr(0, arg.find('\0')); }
// "ERR unknown subcommand 'foo'. Try CONFIG HELP."
inline std::string UnknownSubcommand(std::string_view sub, std::string_view container_upper) {
  return "ERR unknown subcommand '" + std::string(UpToNul(sub)) + "'. Try " +
         std::string(container_upper) + " HELP.";
}
// "ERR invalid expire time in 'set' command"
inline std::string InvalidExpire(std::string_view cmd) {
  return "ERR invalid expire time in '" + std::string(cmd) + "' command";
}
// "ERR unknown subcommand or wrong number of arguments for 'pause'. Try CLIENT HELP."
inline std::string SubcommandSyntax(std::string_view sub, std::string_view container_upper) {
  return "ERR unknown subcommand or wrong number of arguments for '" +
         std::string(UpToNul(sub).substr(0, 128)) + "'. Try " + std::string(container_upper) +
         " HELP.";
}
// "ERR Unknown client type 'foo'"
inline std::string UnknownClientType(std::string_view type) {
  return "ERR Unknown client type '" + std::string(UpToNul(type)) + "'";
}
// "ERR No such user 'bob'"
inline std::string NoSuchUser(std::string_view user) {
  return "ERR No such user '" + std::string(UpToNul(user)) + "'";
}
inline std::string ProtoExpectedDollar(char got) {
  return std::string("ERR Protocol error: expected '$', got '") + got + "'";
}

// An argument that ends an error line, as Redis's addReplyErrorFormat leaves it: cut at a NUL,
// and with trailing CR/LF trimmed (the ones inside become spaces when the line is written).
inline std::string_view TrailingArg(std::string_view arg) {
  arg = UpToNul(arg);
  while (!arg.empty() && (arg.back() == '\r' || arg.back() == '\n')) arg.remove_suffix(1);
  return arg;
}
// "ERR Unsupported option foo" (EXPIRE family)
inline std::string UnsupportedOption(std::string_view opt) {
  return "ERR Unsupported option " + std::string(TrailingArg(opt));
}
// "ERR Unknown argument foo" (FUNCTION LIST; unlike the EXPIRE options, Redis keeps a trailing
// CR/LF here, written as spaces)
inline std::string UnknownArgument(std::string_view arg) {
  return "ERR Unknown argument " + std::string(UpToNul(arg));
}
// "ERR unknown command 'foo', with args beginning with: 'a' 'b' " (each part cut at 128 bytes)
inline std::string UnknownCommand(std::string_view name, std::string_view quoted_args) {
  return "ERR unknown command '" + std::string(UpToNul(name).substr(0, 128)) +
         "', with args beginning with: " + std::string(quoted_args);
}

}  // namespace redistp::err
