// Crash report: what the process leaves in its log when a fatal signal arrives.
//
// Model. SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT get one handler (on an alternate stack, so
// a stack overflow is reported too). It writes, in Redis's shape so the tools that scan Redis
// logs find it:
//   === REDIS BUG REPORT START: Cut & paste starting from here ===
//   <log line> Redis <version> crashed by signal: <n>, si_code: <code>
//   <log line> Accessing address: <addr>            (SIGSEGV, SIGBUS)
//   <log line> Killed by PID: <pid>, UID: <uid>     (the signal was sent by a process)
//   <log line> Crashed running the instruction at: <addr>
//   ------ STACK TRACE ------ (the faulting frame, then the backtrace)
//   ------ INFO OUTPUT ------ (INFO ALL)
//   ------ CLIENT LIST OUTPUT ------
//   ------ CURRENT CLIENT INFO ------ (the client whose command was running, and its argv)
//   === REDIS BUG REPORT END. Make sure to include from START to END. ===
// then restores the signal's default action and raises it again, so the process dies by that
// signal and its exit status is the one Redis's would have.
//
// Async-signal safety. The header lines and the stack trace use only write(2), snprintf on
// stack buffers and glibc's backtrace_symbols_fd (warmed up at install time so it does not
// load libgcc inside the handler). INFO and the client list allocate: they come last, after
// everything a post-mortem most needs is already written, and a second fault while producing
// them kills the process at once with the default action (the handler is one-shot).
//
// The handler needs the server from a signal context, so the installed state is the one
// process-wide variable of redis-tp; installing again replaces it.
#pragma once

#include <functional>
#include <string>

namespace redistp {

class Server;

// Installs the fatal-signal handlers for `server`, or the default actions when its
// `crash-log-enabled` is no (and again whenever CONFIG SET changes it). `info_text` returns the
// INFO ALL text (the commands layer owns INFO). The server must outlive the process's last
// fault, i.e. main's.
void InstallCrashHandlers(Server* server, std::function<std::string()> info_text);

// The software watchdog (watchdog-period, a debug knob): the cron calls this at every tick to
// arm SIGALRM one period ahead; a thread stuck longer gets its stack trace logged. A no-op
// while the period is 0.
void RearmWatchdog();

}  // namespace redistp
