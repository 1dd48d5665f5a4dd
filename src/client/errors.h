// Every error text the client library produces itself. Such replies carry Reply::local = true.
// Texts start with "ERR" like the server's, so code that only checks is_error() works either way.
#pragma once

namespace redistp::client {

inline constexpr char kErrConnectionLost[] =
    "ERR connection lost before the reply arrived (the command may or may not have run)";
inline constexpr char kErrClosed[] = "ERR client closed";
inline constexpr char kErrTimeout[] = "ERR no reply within the timeout";
inline constexpr char kErrEmptyCommand[] = "ERR empty command";
inline constexpr char kErrRefusedPrefix[] = "ERR command '";
inline constexpr char kErrNestedMulti[] = "ERR MULTI calls can not be nested";
inline constexpr char kErrUnexpectedWrap[] = "ERR unexpected reply to a wrapped command";

}  // namespace redistp::client
