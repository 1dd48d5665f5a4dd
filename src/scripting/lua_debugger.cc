// The Lua debugger (model in lua_debugger.h).
#include "scripting/lua_debugger.h"

#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "protocol/errors_ldb.h"
#include "scripting/lua_env.h"
#include "server/client.h"
#include "server/server.h"
#include "server/shutdown_signals.h"
#include "util/numbers.h"
#include "util/repr.h"

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace redistp {
namespace {

bool ParseI64(std::string_view s, long* out) {
  int64_t v = 0;
  if (!ParseInt64(s, &v)) return false;
  *out = static_cast<long>(v);
  return true;
}

constexpr size_t kMinMaxlen = 60;
constexpr int kMaxArgs = 1024;
constexpr long kMaxBulk = 1024;  // the longest argument (Redis's limit, and at least 1 byte)
constexpr size_t kMaxPending = 2u << 20;  // bytes read and not yet a whole command
constexpr int kMaxBreakpoints = 64;
constexpr int kMaxDepth = 64;  // nesting shown of a table; deeper ones print as {...}

constexpr const char* kHelp[] = {
    "Redis Lua debugger help:",
    "[h]elp               Show this help.",
    "[s]tep               Run the current line and stop at the next one.",
    "[n]ext               Same as step.",
    "[c]ontinue           Run until the next breakpoint.",
    "[l]ist               Show the source around the current line.",
    "[l]ist [line]        Show the source around [line].",
    "                     line = 0 means the current line.",
    "[l]ist [line] [ctx]  The same, with [ctx] lines before and after",
    "                     [line].",
    "[w]hole              Show the whole source. Same as 'list 1 1000000'.",
    "[p]rint              Show every local variable.",
    "[p]rint <var>        Show the value of <var> (a local, or a global such",
    "                     as KEYS and ARGV).",
    "[b]reak              List the breakpoints.",
    "[b]reak <line>       Set a breakpoint at <line>.",
    "[b]reak -<line>      Remove the breakpoint at <line>.",
    "[b]reak 0            Remove every breakpoint.",
    "[t]race              Show the call stack.",
    "[e]val <code>        Run Lua code (in its own call frame).",
    "[r]edis <cmd>        Run a Redis command.",
    "[m]axlen [len]       Trim logged replies and Lua values to len bytes.",
    "                     0 means no limit.",
    "[a]bort              Stop the script. In sync mode the changes it made",
    "                     to the dataset stay.",
    "",
    "Debugger functions scripts can call:",
    "redis.debug()        Log its arguments in the debugger console.",
    "redis.breakpoint()   Stop at the next line, as a breakpoint would.",
};

void AppendValue(lua_State* L, int idx, int depth, std::string* out) {
  if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(L) + idx + 1;  // absolute
  switch (lua_type(L, idx)) {
    case LUA_TSTRING: {
      size_t len = 0;
      const char* s = lua_tolstring(L, idx, &len);
      AppendRepr(out, std::string_view(s, len));
      return;
    }
    case LUA_TNUMBER: {
      lua_pushvalue(L, idx);  // tostring on a copy: the original stays a number
      size_t len = 0;
      const char* s = lua_tolstring(L, -1, &len);
      out->append(s, len);
      lua_pop(L, 1);
      return;
    }
    case LUA_TBOOLEAN:
      out->append(lua_toboolean(L, idx) ? "true" : "false");
      return;
    case LUA_TNIL:
      out->append("nil");
      return;
    case LUA_TTABLE: {
      if (depth >= kMaxDepth || !lua_checkstack(L, 4)) {
        out->append("{...}");
        return;
      }
      // Array-like when the keys run 1, 2, 3 ... in iteration order: then only the values.
      bool array = true;
      lua_Number expected = 1;
      lua_pushnil(L);
      while (lua_next(L, idx) != 0) {
        lua_pop(L, 1);
        if (!(lua_type(L, -1) == LUA_TNUMBER && lua_tonumber(L, -1) == expected)) array = false;
        expected += 1;
      }
      out->push_back('{');
      bool first = true;
      lua_pushnil(L);
      while (lua_next(L, idx) != 0) {
        if (!first) out->append("; ");
        first = false;
        if (!array) {
          out->push_back('[');
          AppendValue(L, -2, depth + 1, out);
          out->append("]=");
        }
        AppendValue(L, -1, depth + 1, out);
        lua_pop(L, 1);
      }
      out->push_back('}');
      return;
    }
    default: {
      char buf[64];
      std::snprintf(buf, sizeof(buf), "\"%s@%p\"", lua_typename(L, lua_type(L, idx)),
                    lua_topointer(L, idx));
      out->append(buf);
    }
  }
}

// One RESP value at `*p` (advanced past it) in the debugger's words; false when malformed.
bool AppendReply(std::string_view r, size_t* p, std::string* out, int depth) {
  if (*p >= r.size() || depth > 64) return false;
  const char type = r[*p];
  const size_t eol = r.find("\r\n", *p);
  if (eol == std::string_view::npos) return false;
  std::string_view line = r.substr(*p + 1, eol - *p - 1);
  *p = eol + 2;
  auto count = [&](long* n) { return ParseI64(line, n); };
  switch (type) {
    case '+':
    case '-':
      AppendRepr(out, r.substr(eol - line.size() - 1, line.size() + 1));
      return true;
    case ':':
      out->append(line);
      return true;
    case ',':
      out->append("(double) ");
      out->append(line);
      return true;
    case '(':
      out->append("(big number) ");
      out->append(line);
      return true;
    case '#':
      out->append(line == "t" ? "#true" : "#false");
      return true;
    case '_':
      out->append("(null)");
      return true;
    case '$':
    case '=': {
      long n = 0;
      if (!count(&n)) return false;
      if (n < 0) {
        out->append("NULL");
        return true;
      }
      if (*p + static_cast<size_t>(n) + 2 > r.size()) return false;
      std::string_view body = r.substr(*p, static_cast<size_t>(n));
      if (type == '=' && body.size() >= 4) body.remove_prefix(4);  // "txt:"
      AppendRepr(out, body);
      *p += static_cast<size_t>(n) + 2;
      return true;
    }
    case '*':
    case '~':
    case '%':
    case '>': {
      long n = 0;
      if (!count(&n)) return false;
      if (n < 0) {
        out->append("NULL");
        return true;
      }
      out->append(type == '%' ? "{" : type == '~' ? "~(" : "[");
      for (long i = 0; i < n; ++i) {
        if (i > 0) out->push_back(',');
        if (!AppendReply(r, p, out, depth + 1)) return false;
        if (type == '%') {
          out->append(" => ");
          if (!AppendReply(r, p, out, depth + 1)) return false;
        }
      }
      out->append(type == '%' ? "}" : type == '~' ? ")" : "]");
      return true;
    }
    default:
      return false;
  }
}

bool Is(std::string_view cmd, const char* a, const char* b) {
  return EqualsIgnoreCase(cmd, a) || EqualsIgnoreCase(cmd, b);
}

// atoi's reading, as Redis reads these numbers: leading digits, 0 when none, and an int (a
// value beyond its range wraps as glibc's atoi does).
long AtoiLike(const std::string& s) {
  return static_cast<int>(static_cast<uint64_t>(std::strtol(s.c_str(), nullptr, 10)));
}

}  // namespace

std::string LdbValueText(lua_State* L, int idx) {
  std::string out;
  AppendValue(L, idx, 0, &out);
  return out;
}

std::string LdbReplyText(std::string_view resp) {
  std::string out;
  size_t p = 0;
  if (!AppendReply(resp, &p, &out, 0)) out.append("<unreadable reply>");
  return out;
}

void LuaDebugger::SetMode(uint64_t client_id, Mode mode) {
  if (mode == Mode::kOff) {
    modes_.erase(client_id);
  } else {
    modes_[client_id] = mode;
  }
}

void LuaDebugger::Begin(Client& caller, std::string_view body, bool forked) {
  modes_.erase(caller.id);
  active_ = true;
  forked_ = forked;
  step_ = true;  // a session stops at the script's first line
  lua_break_ = force_log_ = in_repl_ = dead_ = hint_sent_ = false;
  maxlen_ = 256;
  caller_ = &caller;
  fd_ = caller.fd;
  running_since_ms_ = server_.NowMs();
  current_line_ = 0;
  breakpoints_.clear();
  logs_.clear();
  in_.clear();
  source_.clear();
  size_t start = 0;
  // A line break ending the body starts no line of its own.
  while (start < body.size()) {
    size_t nl = body.find('\n', start);
    if (nl == std::string_view::npos) nl = body.size();
    source_.emplace_back(body.substr(start, nl - start));
    start = nl + 1;
  }
  // Replies still pending for the connection (EVAL pipelined after other commands, or inside
  // EXEC) stay in its buffer and go out after the log, with the script's reply, as in Redis.
}

void LuaDebugger::End(std::string_view tail) {
  Log("<endsession>");
  SendLogs();
  WriteAll(tail.data(), tail.size());
  active_ = false;
  caller_ = nullptr;
  fd_ = -1;
  source_.clear();
  in_.clear();
  in_.shrink_to_fit();
}

bool LuaDebugger::WriteAll(const char* p, size_t n) {
  while (n > 0 && !dead_) {
    ssize_t w = caller_->tls != nullptr ? caller_->tls->Write(p, n) : write(fd_, p, n);
    if (w > 0) {
      p += w;
      n -= static_cast<size_t>(w);
      continue;
    }
    if (w < 0 && (errno == EINTR)) continue;
    const bool again = caller_->tls != nullptr
                           ? caller_->tls->want() != TlsConn::Want::kNothing
                           : (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
    if (!again) {
      dead_ = true;
      return false;
    }
    pollfd pfd{fd_, POLLOUT | POLLIN, 0};
    if (caller_->tls == nullptr) pfd.events = POLLOUT;
    (void)poll(&pfd, 1, 1000);
  }
  return !dead_;
}

void LuaDebugger::SendLogs() {
  std::string out = "*" + std::to_string(logs_.size()) + "\r\n";
  for (std::string& line : logs_) {
    // A status line cannot hold a line break: Redis shows them as spaces.
    std::replace(line.begin(), line.end(), '\r', ' ');
    std::replace(line.begin(), line.end(), '\n', ' ');
    out.push_back('+');
    out.append(line);
    out.append("\r\n");
  }
  logs_.clear();
  WriteAll(out.data(), out.size());
}

void LuaDebugger::LogTrimmed(std::string line) {
  if (maxlen_ != 0 && line.size() > maxlen_) {
    line.resize(maxlen_);
    line.append(" ...");
    Log(std::move(line));
    if (!hint_sent_) {
      hint_sent_ = true;
      Log("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming.");
    }
    return;
  }
  Log(std::move(line));
}

LuaDebugger::Next LuaDebugger::ReadCommand() {
  args_.clear();
  for (;;) {
    // Parse what is there: *<n>\r\n then n times $<len>\r\n<bytes>\r\n.
    if (!in_.empty() && in_[0] != '*') return Next::kProtocolError;
    size_t eol = in_.find("\r\n");
    if (eol != std::string::npos) {
      long n = 0;
      if (!ParseI64(std::string_view(in_).substr(1, eol - 1), &n) || n <= 0 || n > kMaxArgs) {
        return Next::kProtocolError;
      }
      size_t p = eol + 2;
      std::vector<std::string> args;
      bool complete = true;
      for (long i = 0; i < n; ++i) {
        if (p >= in_.size()) {
          complete = false;
          break;
        }
        if (in_[p] != '$') return Next::kProtocolError;
        size_t e = in_.find("\r\n", p);
        if (e == std::string::npos) {
          if (in_.size() - p > 32) return Next::kProtocolError;
          complete = false;
          break;
        }
        long len = 0;
        if (!ParseI64(std::string_view(in_).substr(p + 1, e - p - 1), &len) || len <= 0 ||
            len > kMaxBulk) {
          return Next::kProtocolError;
        }
        if (in_.size() < e + 2 + static_cast<size_t>(len) + 2) {
          complete = false;
          break;
        }
        args.emplace_back(in_, e + 2, static_cast<size_t>(len));
        p = e + 2 + static_cast<size_t>(len) + 2;
      }
      if (complete) {
        in_.erase(0, p);
        args_ = std::move(args);
        return Next::kRead;
      }
    } else if (in_.size() > 32) {
      return Next::kProtocolError;  // no header line that long is a command
    }
    if (in_.size() > kMaxPending || dead_) return Next::kProtocolError;
    // SIGTERM/SIGINT during a sync session: the server is not turning its loop, so the session
    // ends here (as if the client had gone) and the cron then shuts down. A forked session's
    // child dies of the signal itself.
    if (!forked_ && PendingShutdownSignal() != 0) return Next::kProtocolError;
    char buf[16384];
    ssize_t r = caller_->tls != nullptr ? caller_->tls->Read(buf, sizeof(buf))
                                        : read(fd_, buf, sizeof(buf));
    if (r > 0) {
      in_.append(buf, static_cast<size_t>(r));
      continue;
    }
    if (r == 0) return Next::kProtocolError;  // the client went away
    if (caller_->tls == nullptr && errno == EINTR) continue;
    const bool again = caller_->tls != nullptr ? caller_->tls->want() != TlsConn::Want::kNothing
                                               : (errno == EAGAIN || errno == EWOULDBLOCK);
    if (!again) return Next::kProtocolError;
    pollfd pfd{fd_, POLLIN, 0};
    if (caller_->tls != nullptr && caller_->tls->want() == TlsConn::Want::kWrite) {
      pfd.events = POLLOUT;
    }
    (void)poll(&pfd, 1, 1000);
  }
}

std::string LuaDebugger::SourceLine(int line) const {
  if (line < 1 || static_cast<size_t>(line) > source_.size()) {
    return "<out of range source code line>";
  }
  return source_[static_cast<size_t>(line - 1)];
}

void LuaDebugger::LogSourceLine(int line) {
  const bool bp = std::find(breakpoints_.begin(), breakpoints_.end(), line) != breakpoints_.end();
  const bool current = line == current_line_;
  char prefix[32];
  std::snprintf(prefix, sizeof(prefix), "%s%s%-3d ", current ? "->" : "  ", bp ? "#" : " ", line);
  Log(std::string(prefix) + SourceLine(line));
}

void LuaDebugger::List(long around, long context) {
  if (around <= 0) around = current_line_;  // as Redis: 0 (or less) means the current line
  // Only lines of the source: however wide the asked range, the loop stays within it.
  // Clamped first, so the sums below cannot overflow.
  around = std::clamp(around, -(1L << 40), 1L << 40);
  context = std::clamp(context, -(1L << 40), 1L << 40);
  const long from = std::max(1L, around - context);
  const long to = std::min(static_cast<long>(source_.size()), around + context);
  for (long line = from; line <= to; ++line) LogSourceLine(static_cast<int>(line));
}

const char* LuaDebugger::OnLine(lua_State* L, lua_Debug* ar, bool timeout) {
  if (in_repl_) return nullptr;
  lua_getinfo(L, "Sl", ar);
  if (std::strcmp(ar->source, "@user_script") != 0) return nullptr;
  current_line_ = ar->currentline;
  const bool at_bp =
      std::find(breakpoints_.begin(), breakpoints_.end(), current_line_) != breakpoints_.end();
  if (!step_ && !at_bp && !lua_break_ && !timeout) return nullptr;
  const char* reason = lua_break_ ? "redis.breakpoint() called"
                       : at_bp    ? "break point"
                       : timeout  ? "timeout reached, infinite loop?"
                                  : "step over";
  step_ = lua_break_ = false;
  Log("* Stopped at " + std::to_string(current_line_) + ", stop reason = " + reason);
  LogSourceLine(current_line_);
  SendLogs();
  in_repl_ = true;
  Next next = Next::kRead;
  while (next == Next::kRead) {
    next = ReadCommand();
    if (next == Next::kRead) next = RunCommand(L);
    if (next == Next::kRead) SendLogs();
  }
  in_repl_ = false;
  running_since_ms_ = server_.NowMs();
  if (next == Next::kAbort) return err::kScriptDebugAborted.data();
  if (next == Next::kProtocolError) return err::kScriptDebugProtocol.data();
  return nullptr;
}

LuaDebugger::Next LuaDebugger::RunCommand(lua_State* L) {
  const std::string& cmd = args_[0];
  const size_t argc = args_.size();
  if (Is(cmd, "h", "help")) {
    for (const char* line : kHelp) Log(line);
  } else if (Is(cmd, "s", "step") || Is(cmd, "n", "next")) {
    step_ = true;
    return Next::kResume;
  } else if (Is(cmd, "c", "continue")) {
    return Next::kResume;
  } else if (Is(cmd, "t", "trace")) {
    Trace(L);
  } else if (Is(cmd, "m", "maxlen")) {
    Maxlen();
  } else if (Is(cmd, "b", "break")) {
    Break();
  } else if (Is(cmd, "e", "eval")) {
    Eval(L);
  } else if (Is(cmd, "a", "abort")) {
    return Next::kAbort;
  } else if (Is(cmd, "l", "list")) {
    const long around = argc >= 2 ? AtoiLike(args_[1]) : 0;
    const long context = argc >= 3 ? AtoiLike(args_[2]) : 5;
    List(around, context);
  } else if (Is(cmd, "w", "whole")) {
    List(1, 1000000);
  } else if (Is(cmd, "p", "print")) {
    Print(L, argc != 2, argc == 2 ? std::string_view(args_[1]) : std::string_view());
  } else if (Is(cmd, "r", "redis") && argc >= 2) {
    Redis(L);
  } else {
    Log("<error> Unknown Redis Lua debugger command or wrong number of arguments.");
  }
  return Next::kRead;
}

void LuaDebugger::Maxlen() {
  if (args_.size() >= 2) {
    long n = AtoiLike(args_[1]);
    if (n != 0 && n < static_cast<long>(kMinMaxlen)) n = static_cast<long>(kMinMaxlen);
    maxlen_ = static_cast<size_t>(n);
    hint_sent_ = true;  // who sets it knows about trimming
  }
  if (maxlen_ == 0) {
    Log("<value> replies are unlimited.");
  } else {
    Log("<value> replies are truncated at " + std::to_string(maxlen_) + " bytes.");
  }
}

void LuaDebugger::Break() {
  if (args_.size() == 1) {
    if (breakpoints_.empty()) {
      Log("No breakpoints set. Use 'b <line>' to add one.");
      return;
    }
    Log(std::to_string(breakpoints_.size()) + " breakpoints set:");
    for (int line : breakpoints_) LogSourceLine(line);
    return;
  }
  for (size_t i = 1; i < args_.size(); ++i) {
    const std::string& arg = args_[i];
    long line = 0;
    if (!ParseI64(arg, &line)) {
      Log("Invalid argument:'" + arg + "'");
    } else if (line == 0) {
      breakpoints_.clear();
      Log("All breakpoints removed.");
    } else if (line > 0) {
      const bool valid = static_cast<size_t>(line) <= source_.size();
      const bool dup =
          std::find(breakpoints_.begin(), breakpoints_.end(), line) != breakpoints_.end();
      if (!valid || dup || breakpoints_.size() >= kMaxBreakpoints) {
        Log("Wrong line number.");
      } else {
        breakpoints_.push_back(static_cast<int>(line));
        List(static_cast<int>(line), 1);
      }
    } else {
      auto it = std::find(breakpoints_.begin(), breakpoints_.end(), static_cast<int>(-line));
      if (it == breakpoints_.end()) {
        Log("No breakpoint in the specified line.");
      } else {
        breakpoints_.erase(it);
        Log("Breakpoint removed.");
      }
    }
  }
}

void LuaDebugger::Print(lua_State* L, bool all, std::string_view var) {
  lua_Debug ar;
  bool shown = false;
  if (lua_getstack(L, 0, &ar) != 0 && lua_checkstack(L, 4)) {
    const char* name = nullptr;
    for (int i = 1; (name = lua_getlocal(L, &ar, i)) != nullptr; ++i) {
      if (name[0] == '(') {  // Lua's temporaries
        lua_pop(L, 1);
        continue;
      }
      if (all) {
        shown = true;
        LogTrimmed(std::string("<value> ") + name + " = " + LdbValueText(L, -1));
      } else if (var == name) {
        LogTrimmed("<value> " + LdbValueText(L, -1));
        lua_pop(L, 1);
        return;
      }
      lua_pop(L, 1);
    }
  }
  if (all) {
    if (!shown) Log("No local variables in the current context.");
    return;
  }
  // Not a local: a global (KEYS, ARGV ...), read without the globals guard.
  PushRealGlobals(L);
  lua_pushlstring(L, var.data(), var.size());
  lua_rawget(L, -2);
  if (lua_isnil(L, -1)) {
    Log("No such variable.");
  } else {
    LogTrimmed("<value> " + LdbValueText(L, -1));
  }
  lua_pop(L, 2);
}

void LuaDebugger::Trace(lua_State* L) {
  lua_Debug ar;
  bool first = true;
  for (int level = 0; lua_getstack(L, level, &ar) != 0; ++level) {
    lua_getinfo(L, "Snl", &ar);
    if (std::strcmp(ar.source, "@user_script") != 0) continue;
    const char* where = ar.name != nullptr ? ar.name : "top level";
    Log(std::string(first ? "In " : "From ") + where + ":");
    LogSourceLine(ar.currentline);
    first = false;
  }
}

void LuaDebugger::Eval(lua_State* L) {
  std::string code;
  for (size_t i = 1; i < args_.size(); ++i) {
    if (i > 1) code.push_back(' ');
    code.append(args_[i]);
  }
  const int top = lua_gettop(L);
  // As an expression first ("e 1+1" shows 2), then as a statement; the statement's compile
  // error is the one shown.
  const std::string expr = "return " + code;
  bool ok = luaL_loadbuffer(L, expr.data(), expr.size(), "@ldb_eval") == 0;
  if (!ok) {
    lua_settop(L, top);
    ok = luaL_loadbuffer(L, code.data(), code.size(), "@ldb_eval") == 0;
  }
  if (!ok || lua_pcall(L, 0, 1, 0) != 0) {
    // An error raised by redis.call is a table: its `err` field says it (Redis 7.0 crashes
    // on one here).
    if (lua_istable(L, -1)) {
      lua_getfield(L, -1, "err");
      lua_replace(L, -2);
    }
    const char* msg = lua_isstring(L, -1) ? lua_tostring(L, -1) : nullptr;
    Log(std::string("<error> ") + (msg != nullptr ? msg : "(error object is not a string)"));
  } else {
    LogTrimmed("<retval> " + LdbValueText(L, -1));
  }
  lua_settop(L, top);
}

void LuaDebugger::Redis(lua_State* L) {
  const int top = lua_gettop(L);
  if (!lua_checkstack(L, static_cast<int>(args_.size()) + 4)) {
    Log("<error> Too many arguments.");
    return;
  }
  PushRealGlobals(L);
  lua_getfield(L, -1, "redis");
  if (lua_istable(L, -1)) {
    lua_getfield(L, -1, "call");
    for (size_t i = 1; i < args_.size(); ++i) {
      lua_pushlstring(L, args_[i].data(), args_[i].size());
    }
    force_log_ = true;
    (void)lua_pcall(L, static_cast<int>(args_.size()) - 1, 1, 0);  // its log says it all
    force_log_ = false;
  }
  lua_settop(L, top);
}

void LuaDebugger::LogCall(const std::vector<std::string_view>& args) {
  std::string line = "<redis>";
  for (size_t i = 0; i < args.size(); ++i) {
    if (i == 10) {
      // As Redis counts them.
      line += " ... (" + std::to_string(args.size() - i - 1) + " more)";
      break;
    }
    line.push_back(' ');
    line.append(args[i]);
  }
  Log(std::move(line));
}

void LuaDebugger::LogReply(std::string_view reply, bool refused) {
  if (!reply.empty() && reply[0] == '-') {
    std::string_view text = reply.substr(0, reply.find("\r\n"));
    if (refused) {
      text.remove_prefix(1);
      if (text.substr(0, 4) == "ERR ") text.remove_prefix(4);
      Log("<error> " + std::string(text));
      return;
    }
    Log("<error> " + std::string(text));
  }
  LogTrimmed("<reply> " + LdbReplyText(reply));
}

int LuaDebugger::LuaDebug(lua_State* L) {
  if (!active_) return 0;
  lua_Debug ar;
  int line = 0;
  if (lua_getstack(L, 1, &ar) != 0) {
    lua_getinfo(L, "l", &ar);
    line = ar.currentline;
  }
  std::string text = "<debug> line " + std::to_string(line) + ": ";
  const int n = lua_gettop(L);
  for (int i = 1; i <= n; ++i) {
    if (i > 1) text.append(", ");
    text.append(LdbValueText(L, i));
  }
  Log(std::move(text));
  return 0;
}

int LuaDebugger::LuaBreakpoint(lua_State* L) {
  // Whether it will stop: false outside a session.
  if (active_) lua_break_ = true;
  lua_pushboolean(L, active_ ? 1 : 0);
  return 1;
}

void LuaDebugger::ReapChildren() {
  for (size_t i = 0; i < children_.size();) {
    int status = 0;
    const pid_t r = waitpid(children_[i], &status, WNOHANG);
    if (r == children_[i] || (r < 0 && errno == ECHILD)) {
      children_[i] = children_.back();
      children_.pop_back();
    } else {
      ++i;
    }
  }
}

void LuaDebugger::KillChildren() {
  for (pid_t pid : children_) {
    server_.log().Log(LogLevel::kWarning, "Killing debugging session %ld", static_cast<long>(pid));
    kill(pid, SIGKILL);
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  children_.clear();
}

}  // namespace redistp
