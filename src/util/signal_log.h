// Text a signal handler may write: only async-signal-safe calls (no stdio, no allocation), so
// the handlers of SIGTERM/SIGINT and of a child's SIGUSR1 can leave Redis's handler-time log
// line, "<pid>:signal-handler (<unix time>) <message>".
#pragma once

#include <cstddef>

namespace redistp {

// Append the decimal form of v, or a text, to buf at *len, never past cap bytes.
void SignalSafeAppendNumber(char* buf, size_t* len, size_t cap, long long v);
void SignalSafeAppendText(char* buf, size_t* len, size_t cap, const char* text);

// Writes "<pid>:signal-handler (<unix time>) <message>\n" to the file at `path` (appended,
// created when missing), or to standard output when `path` is empty. Errors are ignored: a
// handler has nowhere to report them.
void SignalSafeLog(const char* path, const char* message);

}  // namespace redistp
