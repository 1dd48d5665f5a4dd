// What the redis-tp tools share: the connection options every redis-tp tool takes (spelled as
// redis-cli spells them), number parsing, timestamps and quoting, and messages on stderr
// prefixed with the program's name.
#pragma once

#include <string>

#include "client/redistp_client.h"

namespace redistp::tools {

// Usage lines for the connection options, for --help texts.
extern const char kConnectionHelp[];

enum class FlagResult { kNotMine, kTaken, kError };

// If argv[*i] is a connection option (-h/--host, -p/--port, -a/--pass, --user, --db,
// --sentinel, --master-name, each with its value as the next argument or after '='), stores it
// in `options`, advances *i past it and returns kTaken; kError with `*error` set when its value is
// missing or bad.
FlagResult ParseConnectionFlag(int argc, char** argv, int* i, client::ClientOptions* options,
                               std::string* error);

// Defaults shared by the tools: 127.0.0.1:6379, the password from $REDISCLI_AUTH.
client::ClientOptions DefaultConnectionOptions();

bool ParseInteger(const std::string& text, long long min, long long max, long long* out);
// Non-negative seconds, fractions allowed ("2", "0.5").
bool ParseSeconds(const std::string& text, double* out);

// Local time with milliseconds, ISO 8601 without the zone: 2024-05-01T12:00:00.123.
std::string LocalTimestamp();
// `text` as is when printable without space or quote, else quoted with C-style escapes; with
// `json`, always quoted with JSON escapes (UTF-8 bytes kept).
std::string QuoteText(const std::string& text, bool json);

// "<program>: <message>\n" on stderr.
void Complain(const char* program, const std::string& message);

// Exit statuses shared by every tool (sysexits): a usage error, a server that cannot be
// reached or refuses, an OS call that failed (fork, pipe).
inline constexpr int kExitUsage = 64;
inline constexpr int kExitUnavailable = 69;
inline constexpr int kExitOsError = 71;
// Complains of a usage error, points at --help, and returns kExitUsage.
int UsageError(const char* program, const std::string& message);
// The value of option `name` at argv[*i]: after '=' ("--name=value") or as the next argument.
// Advances *i past what it took; false (nothing taken) when the value is missing.
bool TakeOptionValue(int argc, char** argv, int* i, const char* name, std::string* out);

}  // namespace redistp::tools
