// LuaDebugger: SCRIPT DEBUG, the Lua debugger redis-cli --ldb talks to, as Redis 7.0 has it.
//
// Model. A connection asks for a debugging session with SCRIPT DEBUG YES (forked) or SYNC; the
// request is remembered by client id until NO, the connection's end, or the session it starts.
// Its next EVAL runs "debugged": in a child process (YES: the dataset changes die with the
// child, the server goes on serving everyone else) or in the server itself (SYNC: the server
// serves nobody else until the session ends, and the changes stay). Either way the connection
// is closed after the script's reply: that close is how the client learns the session is over.
//
// While a session is active the script's Lua state has a line hook. At each line of the user's
// script the debugger decides whether to stop (stepping, a breakpoint on the line, or a
// redis.breakpoint() call just before). When it stops it sends what it logged since the last
// stop, as one array of status lines ("* Stopped at N ...", "-> N   source", "<redis> ...",
// "<reply> ...", "<debug> ..."), and then reads debugger commands from the client's own socket,
// blocking in the process that runs the script, and answers each with its log lines, until a
// command lets the script go on (step, next, continue) or ends it (abort, a protocol error).
// The commands arrive as RESP arrays of bulk strings, nothing else; anything malformed or too
// big ends the session with "ERR protocol error" raised in the script at the current line.
//
// The end: the log "<endsession>", then the script's reply (or its error), then the close. In a
// forked session the child writes those itself and exits without touching any file; the parent
// forgot the connection (closed its copy) right after the fork and reaps the child in its cron.
//
// Lua errors (abort, protocol error) are not raised here: OnLine returns the error text and the
// engine's hook raises it, so no C++ object of this file is alive when Lua longjmps.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct lua_State;
struct lua_Debug;

namespace redistp {

class Server;
class Client;

class LuaDebugger {
 public:
  enum class Mode : uint8_t { kOff, kFork, kSync };

  explicit LuaDebugger(Server& server) : server_(server) {}

  // --- SCRIPT DEBUG: the mode a connection asked for ----------------------------------------
  void SetMode(uint64_t client_id, Mode mode);
  Mode ModeOf(uint64_t client_id) const {
    if (modes_.empty()) return Mode::kOff;  // the usual case pays no lookup
    auto it = modes_.find(client_id);
    return it == modes_.end() ? Mode::kOff : it->second;
  }

  // --- the session -------------------------------------------------------------------------
  bool active() const { return active_; }
  bool forked() const { return forked_; }
  // Starts a session for `caller` debugging `body` (the script's text, split into lines).
  void Begin(Client& caller, std::string_view body, bool forked);
  // Ends it: sends what is left of the log and "<endsession>", then `tail` (a forked session's
  // reply; a sync session's goes out the usual way, after this).
  void End(std::string_view tail);
  // The line hook's work while a session is active (`ar` is the hook's record): stops when
  // stepping, at a breakpoint, after redis.breakpoint(), or when `timeout` (the engine saw the
  // script run past busy-reply-threshold without stopping: "infinite loop?"). Returns nullptr
  // to let the script go on, or the error text to raise in it (abort, protocol error: a
  // NUL-terminated constant).
  const char* OnLine(lua_State* L, lua_Debug* ar, bool timeout);
  bool stepping() const { return step_; }
  // When the script last started running on its own: the session's start, or the end of the
  // last stop (time spent at a stop is the user's, not the script's).
  int64_t running_since_ms() const { return running_since_ms_; }
  // Whether redis.call should log what it runs and what it gets (stepping, or `redis`).
  bool logging_calls() const { return active_ && (step_ || force_log_); }
  void LogCall(const std::vector<std::string_view>& args);
  // `reply` is the command's raw RESP reply; `refused` when the script gate refused the call
  // before it ran (only the error is logged then, without its code, as Redis does).
  void LogReply(std::string_view reply, bool refused);
  // redis.debug(...) and redis.breakpoint(): Lua entry points. Outside a session debug does
  // nothing and returns nothing, breakpoint returns false.
  int LuaDebug(lua_State* L);
  int LuaBreakpoint(lua_State* L);

  // --- forked sessions, in the parent ------------------------------------------------------
  void AddChild(pid_t pid) { children_.push_back(pid); }
  // Reaps the children that ended (cron).
  void ReapChildren();
  // Kills every running session (shutdown), as Redis does.
  void KillChildren();
  uint64_t forks() const { return forks_; }
  void CountFork() { ++forks_; }

 private:
  enum class Next { kRead, kResume, kAbort, kProtocolError };

  void Log(std::string line) { logs_.push_back(std::move(line)); }
  // A log line that maxlen trims (values and replies).
  void LogTrimmed(std::string line);
  // Sends the pending log lines as one array of status replies.
  void SendLogs();
  bool WriteAll(const char* p, size_t n);
  // Reads one command into args_; kRead when one is there, kProtocolError on bad input or a
  // closed connection.
  Next ReadCommand();
  // Runs args_ and logs its answer; what the script does next.
  Next RunCommand(lua_State* L);
  std::string SourceLine(int line) const;
  void LogSourceLine(int line);
  void List(long around, long context);
  void Print(lua_State* L, bool all, std::string_view var);
  void Trace(lua_State* L);
  void Break();
  void Eval(lua_State* L);
  void Redis(lua_State* L);
  void Maxlen();

  Server& server_;
  std::unordered_map<uint64_t, Mode> modes_;
  bool active_ = false;
  bool forked_ = false;
  bool step_ = false;
  bool lua_break_ = false;  // redis.breakpoint() was called
  bool force_log_ = false;  // inside the `redis` command
  bool in_repl_ = false;    // reading commands: lines run by `eval` do not stop
  bool dead_ = false;       // the connection failed: no more writes
  bool hint_sent_ = false;
  size_t maxlen_ = 256;
  int fd_ = -1;
  Client* caller_ = nullptr;
  int current_line_ = 0;
  int64_t running_since_ms_ = 0;
  std::vector<std::string> source_;
  std::vector<int> breakpoints_;
  std::vector<std::string> logs_;
  std::string in_;                 // bytes read, not yet a whole command
  std::vector<std::string> args_;  // the command being run
  std::vector<pid_t> children_;
  uint64_t forks_ = 0;
};

// The debugger's text for a Lua value (strings quoted and escaped, tables as {a; b} or
// {[k]=v; ...}); exposed for the unit tests.
std::string LdbValueText(lua_State* L, int idx);
// The debugger's text for a raw RESP reply ("+OK" quoted, [..] arrays, NULL ...).
std::string LdbReplyText(std::string_view resp);

}  // namespace redistp
