// libFuzzer harness for scripting: scripts built from a grammar of Lua 5.1, driven by the fuzzer's
// bytes, run through EVAL and through FUNCTION LOAD + FCALL by a real Server in-process.
//
// Model. As dispatch_fuzz.cc does, one Server lives for the whole run, listening only on a private
// unix socket, and the harness drives its network path itself (accept, read handler, end of
// turn), so scripts run exactly as for a network client, busy-script passes included. Each input
// is decoded into one script body by a small recursive generator (Gen below) whose every choice
// is a byte of the input, so libFuzzer's mutations move through the grammar:
//   - values of every type, with the edge numbers (NaN, infinities, 2^63, -0) and strings (empty,
//     NUL, CR/LF, JSON and MessagePack fragments, a few kilobytes up to a megabyte);
//   - tables, nested and self-containing, the globals `_G`, the library tables and the
//     metatables scripts can reach, all inside returned values;
//   - metatables whose __index/__newindex/__len/__tostring/__eq/__call/__concat/__gc raise (with
//     strings, tables, nil, numbers, metatabled objects) or return odd values;
//   - pcall/xpcall/error with every kind of error object, coroutines, deep recursion;
//   - redis.call/pcall with odd arguments and RESP3 replies (redis.setresp, DEBUG PROTOCOL),
//     redis.error_reply/status_reply, the RESP3 reply shapes ({double=}, {map=} ...);
//   - cjson, cmsgpack, struct and bit on hostile input; the read-only tables' wrapped functions
//     with bad arguments.
// With the first byte's top bit set, the rest of the input is taken as the script's text instead
// (the seed corpus holds the known crashers so). The script runs as EVAL (1 key, 2 arguments) on
// connection 0, then as the function of a library loaded with FUNCTION LOAD REPLACE and called with
// FCALL, each followed by a PING. For a quarter of the inputs connection 1 has SCRIPT KILL /
// FUNCTION KILL and a PING waiting in its socket first: a script that runs past
// busy-reply-threshold (set to 2 ms here) reads them in its busy pass and is killed, unless it
// wrote. For another quarter, the Lua states' allocator starts failing after a number of
// allocations drawn from the input, so every path of the engine meets Lua out of memory (the panic
// handler must stay unreachable). What is checked: the process does not crash (a Lua panic aborts;
// ASan/UBSan findings), every reply is a well-formed RESP frame and each connection gets exactly
// one reply per command, and the PING after each script is answered PONG. After each input SCRIPT
// FLUSH, FUNCTION FLUSH and FLUSHALL reset the server, so an input's result does not depend on the
// inputs before it.
//
// Bounds, so that no input is slow or huge by construction: loops run at most 1000 times and
// never nest, recursion ends at Lua's own limits, a table contains itself at most once (a table
// that holds itself twice, as a map and an element say, makes the reply exponential to write,
// in Redis as here), large strings are made only by string.rep of
// short literals (256 KB repeats at most), and nothing that stops the garbage collector or
// writes the log is generated. (A literal script may still loop; libFuzzer's -timeout reports
// it.)
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "networking_access.h"
#include "scripting/function_engine.h"
#include "scripting/script_engine.h"
#include "server/config.h"
#include "server/server.h"

extern "C" {
#include <lua.h>
}

namespace {

using redistp::Client;
using redistp::NetworkingAccess;
using redistp::Server;

constexpr int kClients = 2;

[[noreturn]] void Fail(const char* what, std::string_view detail) {
  std::fprintf(stderr, "lua_fuzz: %s: %.*s\n", what, static_cast<int>(detail.size()),
               detail.data());
  std::abort();
}

// ---- RESP checking ------------------------------------------------------------------------------

// Length of the complete frame at the start of `s`, 0 if it is incomplete; aborts on a malformed
// frame.
size_t FrameLength(std::string_view s, int depth = 0) {
  if (s.empty()) return 0;
  if (depth > 20000) Fail("reply nested too deep", s.substr(0, 64));
  const size_t eol = s.find("\r\n");
  if (eol == std::string_view::npos) return 0;
  std::string_view line = s.substr(1, eol - 1);
  const size_t head = eol + 2;
  auto number = [&]() -> long long {
    if (line.empty()) Fail("empty length", s.substr(0, 64));
    char* end = nullptr;
    std::string text(line);
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (*end != '\0') Fail("bad length", s.substr(0, 64));
    return v;
  };
  switch (s[0]) {
    case '+':
    case '-':
    case ':':
    case '_':
    case '#':
    case ',':
    case '(':
      if (line.find('\r') != std::string_view::npos || line.find('\n') != std::string_view::npos) {
        Fail("CR or LF inside a line", s.substr(0, 64));
      }
      return head;
    case '$':
    case '=': {
      long long n = number();
      if (n < 0) {
        if (s[0] == '=' || n != -1) Fail("bad bulk length", s.substr(0, 64));
        return head;
      }
      if (s.size() < head + static_cast<size_t>(n) + 2) return 0;
      if (s.substr(head + static_cast<size_t>(n), 2) != "\r\n") {
        Fail("bulk not followed by CRLF", s.substr(0, 64));
      }
      if (s[0] == '=' && (n < 4 || s[head + 3] != ':')) Fail("bad verbatim", s.substr(0, 64));
      return head + static_cast<size_t>(n) + 2;
    }
    case '*':
    case '~':
    case '>':
    case '%':
    case '|': {
      long long n = number();
      if (n < 0) {
        if (s[0] != '*' || n != -1) Fail("bad aggregate length", s.substr(0, 64));
        return head;
      }
      if (s[0] == '%' || s[0] == '|') n *= 2;
      size_t at = head;
      for (long long i = 0; i < n; ++i) {
        size_t len = FrameLength(s.substr(at), depth + 1);
        if (len == 0) return 0;
        at += len;
      }
      // An attribute precedes the value it annotates.
      if (s[0] == '|') {
        size_t len = FrameLength(s.substr(at), depth + 1);
        if (len == 0) return 0;
        at += len;
      }
      return at;
    }
    default:
      Fail("unknown frame type", s.substr(0, 64));
  }
}

// ---- Lua running out of memory ---------------------------------------------------------------

// An allocator wrapped around a Lua state's own: after `countdown` more allocations that grow a
// block, every growth fails (as on a machine out of memory) until the wrapper is removed.
// Shrinking and freeing always work, as Lua requires.
struct FailingHeap {
  lua_Alloc original = nullptr;
  void* original_ud = nullptr;
  long countdown = -1;  // < 0: never fail
};

void* FailingAlloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* heap = static_cast<FailingHeap*>(ud);
  if (nsize > osize && heap->countdown >= 0) {
    if (heap->countdown == 0) return nullptr;
    --heap->countdown;
  }
  return heap->original(heap->original_ud, ptr, osize, nsize);
}

// Makes L's allocations fail after `countdown` growths, until Restore.
class OutOfMemory {
 public:
  OutOfMemory(lua_State* L, long countdown) : L_(L) {
    heap_.original = lua_getallocf(L, &heap_.original_ud);
    heap_.countdown = countdown;
    lua_setallocf(L, FailingAlloc, &heap_);
  }
  ~OutOfMemory() { lua_setallocf(L_, heap_.original, heap_.original_ud); }
  OutOfMemory(const OutOfMemory&) = delete;
  OutOfMemory& operator=(const OutOfMemory&) = delete;

 private:
  lua_State* L_;
  FailingHeap heap_;
};

// ---- the in-process server ----------------------------------------------------------------------

struct Harness {
  Server* server = nullptr;
  std::string socket_path;
  struct Conn {
    int fd = -1;
    uint64_t id = 0;
    std::string in;  // bytes received, not yet parsed
  };
  Conn conns[kClients];

  Client* ServerSide(int i) { return server->FindClient(conns[i].id); }

  void Connect(int i) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, socket_path.c_str(), socket_path.size() + 1);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
      Fail("connect", std::strerror(errno));
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    uint64_t before = server->clients().empty() ? 0 : server->clients().rbegin()->first;
    NetworkingAccess::Accept(*server, NetworkingAccess::ListenFd(*server));
    auto it = server->clients().rbegin();
    if (it == server->clients().rend() || it->first <= before) Fail("accept", "no client");
    conns[i].fd = fd;
    conns[i].id = it->first;
    conns[i].in.clear();
  }

  // Keeps what the server wrote to connection i.
  void Drain(int i) {
    char buf[65536];
    for (int rounds = 0; rounds < 100000; ++rounds) {
      ssize_t n = read(conns[i].fd, buf, sizeof(buf));
      if (n <= 0) break;
      conns[i].in.append(buf, static_cast<size_t>(n));
      Client* c = ServerSide(i);
      if (c != nullptr && c->write_armed) NetworkingAccess::Writable(*server, c);
    }
  }

  void Settle() {
    for (int round = 0; round < 4; ++round) {
      NetworkingAccess::EndOfTurn(*server);
      for (int j = 0; j < kClients; ++j) {
        if (conns[j].fd >= 0) Drain(j);
      }
    }
  }

  // Writes bytes on connection i without letting the server read them.
  void Queue(int i, std::string_view bytes) {
    if (conns[i].fd < 0 || ServerSide(i) == nullptr) Connect(i);
    size_t off = 0;
    while (off < bytes.size()) {
      ssize_t n = write(conns[i].fd, bytes.data() + off, bytes.size() - off);
      if (n <= 0) Fail("queue write", std::strerror(errno));
      off += static_cast<size_t>(n);
    }
  }

  // Sends bytes on connection i and lets the server process them turn by turn.
  void Send(int i, std::string_view bytes) {
    if (conns[i].fd < 0 || ServerSide(i) == nullptr) Connect(i);
    size_t off = 0;
    for (int turns = 0; turns < 100000; ++turns) {
      if (off < bytes.size()) {
        ssize_t n = write(conns[i].fd, bytes.data() + off, bytes.size() - off);
        if (n > 0) off += static_cast<size_t>(n);
      }
      Client* c = ServerSide(i);
      if (c != nullptr) NetworkingAccess::Readable(*server, c);
      Settle();
      if (off < bytes.size()) continue;
      c = ServerSide(i);
      int unread = 0;
      if (c == nullptr || ioctl(c->fd, FIONREAD, &unread) != 0 || unread == 0) break;
    }
  }

  // Parses exactly `n` replies from connection i (aborting on malformed ones); returns them.
  std::vector<std::string> Replies(int i, size_t n) {
    std::vector<std::string> out;
    std::string_view rest = conns[i].in;
    while (out.size() < n) {
      size_t len = FrameLength(rest);
      if (len == 0) break;
      out.emplace_back(rest.substr(0, len));
      rest.remove_prefix(len);
    }
    if (out.size() != n || !rest.empty()) {
      Fail("wrong number of replies", conns[i].in.substr(0, 256));
    }
    conns[i].in.clear();
    return out;
  }
};

Harness* g_harness = nullptr;

void RemoveSocket() {
  if (g_harness != nullptr) unlink(g_harness->socket_path.c_str());
}

void Init() {
  auto* h = new Harness;
  redistp::Config config;
  config.port = 0;
  h->socket_path = "/tmp/redistp-lua-fuzz-" + std::to_string(getpid()) + ".sock";
  config.unixsocket = h->socket_path;
  config.loglevel = redistp::LogVerbosity::kWarning;
  config.busy_reply_threshold = 2;
  config.enable_debug_command = "yes";
  config.proto_max_bulk_len = 64LL << 20;
  h->server = new Server(std::move(config));
  redistp::RegisterCommands(h->server->commands());
  redistp::Status s = h->server->Init();
  if (!s.ok()) Fail("Init", s.message());
  g_harness = h;
  std::atexit(RemoveSocket);
}

std::string EncodeResp(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n";
    out += a;
    out += "\r\n";
  }
  return out;
}

// ---- the script generator -----------------------------------------------------------------------

const char* const kNumbers[] = {"0", "1", "-1", "2", "3", "0.5", "-0.0", "1e308", "-1e308", "2^31",
                                "2^53", "2^63", "-2^63", "0/0", "1/0", "-1/0", "4294967296",
                                "1.5e-300", "7999", "100000",
                                // The 32-bit edges: LuaBitOp and Lua's int arguments wrap there.
                                "-2^31", "2^31-1", "-2^31-1", "2^32-1"};
const char* const kStrings[] = {"''",
                                "'a'",
                                "'x\\0y'",
                                "'\\r\\n'",
                                "'%d'",
                                "'%s%s%q'",
                                "'-ERR x'",
                                "'-'",
                                "'ok'",
                                "'err'",
                                "'{'",
                                "'[1,2,{\"a\":null}]'",
                                "'{\"a\":[1e999,-0]}'",
                                "'[[[[[[[[[[[[1]]]]]]]]]]]]'",
                                "'\\147\\1\\2\\3'",
                                "'\\220\\255\\255'",
                                "'\\193'",
                                "'\\222\\0\\1\\1'",
                                "'>!4i'",
                                "'i'",
                                "'c0'",
                                "'s'",
                                "'d'",
                                "'Bc0'",
                                "'i17'",
                                "'<I8'",
                                "'hhhhhhhhhh'",
                                "'x'",
                                "'%'",
                                "'a?'",
                                "'(a*)'",
                                "'%a-'",
                                "'1e309'",
                                "'0x10'",
                                "' 12 '",
                                "'nan'",
                                "'ping'",
                                "'set'",
                                "'get'",
                                "'k1'",
                                "'double'",
                                "'map'"};
const char* const kLibTables[] = {
    "_G",        "redis",  "string",   "table", "math", "coroutine",        "cjson",
    "bit",       "struct", "cmsgpack", "KEYS",  "ARGV", "getmetatable('')", "getmetatable(_G)",
    "cjson.null"};
const char* const kCommands[] = {"'ping'",  "'echo'",     "'set'",     "'get'",    "'del'",
                                 "'incr'",  "'hset'",     "'hgetall'", "'lpush'",  "'lrange'",
                                 "'sadd'",  "'smembers'", "'zadd'",    "'zrange'", "'type'",
                                 "'mget'",  "'eval'",     "'nosuch'",  "'xadd'",   "'time'",
                                 "'settp'", "'deltp'",    "'publish'", "'object'", "'exists'"};
const char* const kDebugTypes[] = {"'string'",   "'integer'", "'double'", "'bignum'", "'null'",
                                   "'array'",    "'set'",     "'map'",    "'attrib'", "'push'",
                                   "'verbatim'", "'true'",    "'false'"};
const char* const kFunctions[] = {"error",
                                  "tostring",
                                  "tonumber",
                                  "type",
                                  "rawget",
                                  "rawset",
                                  "rawequal",
                                  "next",
                                  "pairs",
                                  "ipairs",
                                  "unpack",
                                  "select",
                                  "getmetatable",
                                  "setmetatable",
                                  "pcall",
                                  "assert",
                                  "table.insert",
                                  "table.remove",
                                  "table.concat",
                                  "table.sort",
                                  "table.getn",
                                  "table.maxn",
                                  "table.foreach",
                                  "table.setn",
                                  "string.upper",
                                  "string.format",
                                  "string.sub",
                                  "string.byte",
                                  "string.char",
                                  "string.find",
                                  "string.match",
                                  "string.gmatch",
                                  "string.gsub",
                                  "string.len",
                                  "cjson.encode",
                                  "cjson.decode",
                                  "cmsgpack.pack",
                                  "cmsgpack.unpack",
                                  "cmsgpack.unpack_one",
                                  "cmsgpack.unpack_limit",
                                  "struct.pack",
                                  "struct.unpack",
                                  "struct.size",
                                  "bit.band",
                                  "bit.bor",
                                  "bit.tohex",
                                  "bit.lshift",
                                  "bit.arshift",
                                  "bit.bswap",
                                  "bit.tobit",
                                  "redis.call",
                                  "redis.pcall",
                                  "redis.error_reply",
                                  "redis.status_reply",
                                  "redis.sha1hex",
                                  "redis.setresp",
                                  "redis.set_repl",
                                  "redis.acl_check_cmd",
                                  "coroutine.wrap",
                                  "coroutine.create",
                                  "coroutine.resume",
                                  "coroutine.yield",
                                  "coroutine.status",
                                  "loadstring",
                                  "math.random",
                                  "math.floor",
                                  "string.dump",
                                  "xpcall",
                                  "gcinfo"};
const char* const kMetaEvents[] = {"__index", "__newindex", "__len",    "__tostring",
                                   "__eq",    "__call",     "__concat", "__gc",
                                   "__lt",    "__add",      "__unm",    "__metatable"};
const char* const kFields[] = {"err",
                               "ok",
                               "double",
                               "big_number",
                               "map",
                               "set",
                               "verbatim_string",
                               "format",
                               "string",
                               "source",
                               "line",
                               "ignore_error_stats_update",
                               "x",
                               "_G"};

template <typename T, size_t N>
constexpr size_t Count(const T (&)[N]) {
  return N;
}

class Gen {
 public:
  Gen(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }

  std::string Script() {
    std::string body;
    const int statements = Byte() % 6;
    for (int s = 0; s < statements && !done(); ++s) body += Statement(0) + "\n";
    body += "return " + Expr(0) + "\n";
    return body;
  }

 private:
  uint8_t Byte() { return i_ < n_ ? d_[i_++] : 0; }
  template <size_t N>
  const char* Pick(const char* const (&table)[N]) {
    return table[Byte() % N];
  }

  std::string Var() { return "v" + std::to_string(Byte() % (vars_ == 0 ? 1 : vars_)); }

  std::string Statement(int depth) {
    switch (Byte() % 12) {
      case 0:
        if (in_loop_) break;
        return "local v" + std::to_string(vars_++) + " = " + Expr(depth + 1);
      case 1:
        return "pcall(function() " + Statement(depth + 1) + " end)";
      case 2: {
        if (in_loop_ || depth > 1) break;
        static const char* const kLoops[] = {"1", "2", "10", "100", "1000"};
        in_loop_ = true;
        std::string s =
            std::string("for i = 1, ") + Pick(kLoops) + " do " + Statement(depth + 1) + " end";
        in_loop_ = false;
        return s;
      }
      case 3:
        return "if " + Expr(depth + 1) + " then " + Statement(depth + 1) + " else " +
               Statement(depth + 1) + " end";
      case 4:
        return "error(" + Expr(depth + 1) + ")";
      case 5:
        if (vars_ == 0 || in_loop_) break;
        return Var() + " = " + Expr(depth + 1);
      case 6:
        return "local _ = (" + Expr(depth + 1) + ")[" + Expr(depth + 1) + "]";
      case 7:
        return "(" + Expr(depth + 1) + ")[" + Expr(depth + 1) + "] = " + Expr(depth + 1);
      case 8:
        return "redis.setresp(" + std::string(Byte() & 1 ? "3" : "2") + ")";
      default:
        break;
    }
    return Call(depth + 1);
  }

  std::string Call(int depth) {
    switch (Byte() % 6) {
      case 0: {
        std::string s = std::string(Byte() & 1 ? "redis.pcall(" : "redis.call(") + Pick(kCommands);
        const int argc = Byte() % 4;
        for (int a = 0; a < argc; ++a) s += ", " + Expr(depth + 1);
        return s + ")";
      }
      case 1:
        return std::string("redis.call('debug', 'protocol', ") + Pick(kDebugTypes) + ")";
      case 2:
        return "pcall(" + Function(depth + 1) + ", " + Expr(depth + 1) + ")";
      case 3:
        return "coroutine.resume(coroutine.create(" + Function(depth + 1) + "), " +
               Expr(depth + 1) + ")";
      default: {
        std::string s = std::string(Pick(kFunctions)) + "(";
        const int argc = Byte() % 4;
        for (int a = 0; a < argc; ++a) s += (a > 0 ? ", " : "") + Expr(depth + 1);
        return s + ")";
      }
    }
  }

  // A function value: Lua code that raises or returns something odd, or a library function.
  std::string Function(int depth) {
    switch (Byte() % 6) {
      case 0:
        return "function(...) error(" + Expr(depth + 1) + ") end";
      case 1:
        return "function(...) return " + Expr(depth + 1) + " end";
      case 2:
        return "function(...) " + Statement(depth + 1) + " end";
      case 3:
        return "function(a, b) return a, b, ... end";
      case 4:
        return "function() coroutine.yield(" + Expr(depth + 1) + ") return " + Expr(depth + 1) +
               " end";
      default:
        return Pick(kFunctions);
    }
  }

  std::string Table(int depth) {
    std::string s = "{";
    const int n = Byte() % 5;
    for (int i = 0; i < n; ++i) {
      switch (Byte() % 4) {
        case 0:
          s += std::string(Pick(kFields)) + " = " + Expr(depth + 1);
          break;
        case 1:
          s += "[" + Expr(depth + 1) + "] = " + Expr(depth + 1);
          break;
        default:
          s += Expr(depth + 1);
      }
      s += ", ";
    }
    return s + "}";
  }

  std::string Expr(int depth) {
    if (depth > 6 || done()) return Pick(kNumbers);
    switch (Byte() % 24) {
      case 0:
        return Pick(kNumbers);
      case 1:
      case 2:
        return Pick(kStrings);
      case 3:
        return Byte() & 1 ? "nil" : (Byte() & 1 ? "true" : "false");
      case 4:
      case 5:
        return Table(depth);
      case 6:
        return Pick(kLibTables);
      case 7:
        if (vars_ == 0 || in_loop_) break;
        return Var();
      case 8: {
        // A metatabled table: events raising or returning odd values.
        std::string mt = "{";
        const int n = 1 + Byte() % 3;
        for (int i = 0; i < n; ++i) {
          mt += std::string(Pick(kMetaEvents)) + " = " +
                (Byte() & 1 ? Function(depth + 1) : Expr(depth + 1)) + ", ";
        }
        return "setmetatable(" + Table(depth) + ", " + mt + "})";
      }
      case 9:
        return Call(depth);
      case 10:
        return "(" + Function(depth) + ")(" + Expr(depth + 1) + ")";
      case 11: {
        static const char* const kOps[] = {" .. ", " + ", " == ", " < ", " and ", " or ", " % "};
        return "(" + Expr(depth + 1) + Pick(kOps) + Expr(depth + 1) + ")";
      }
      case 12: {
        static const char* const kUnary[] = {"#", "-", "not "};
        return std::string("(") + Pick(kUnary) + Expr(depth + 1) + ")";
      }
      case 13:
        return "(" + Expr(depth + 1) + ")[" + Expr(depth + 1) + "]";
      case 14: {
        // RESP3 shapes and error/status tables.
        return std::string("{") + Pick(kFields) + " = " + Expr(depth + 1) + "}";
      }
      case 15:
        if (in_loop_) break;
        // A big string: a short literal repeated up to a megabyte.
        return std::string("string.rep(") + Pick(kStrings) + ", " +
               std::to_string(1u << (Byte() % 19)) + ")";
      case 16:
        if (in_loop_ || depth > 2) break;
        // Deep recursion, ended by Lua's limits (C stack through pcall or the Lua stack).
        return Byte() & 1
                   ? "(function() local function f(n) return 1 + f(n + 1) end return f(1) end)()"
                   : "(function() local function f() return pcall(f) end return f() end)()";
      case 17:
        if (in_loop_ || depth > 2) break;
        // Deeply nested and self-containing tables.
        return Byte() & 1 ? "(function() local t = {} for i = 1, " +
                                std::to_string(1 + Byte() * 40) + " do t = {t} end return t end)()"
                          : "(function() local t = {1} t[2] = t return t end)()";
      case 18:
        return "select('#', unpack(" + Expr(depth + 1) + ", 1, " + Pick(kNumbers) + "))";
      case 19:
        return "redis.error_reply(" + Expr(depth + 1) + ")";
      case 20:
        return "redis.status_reply(" + Expr(depth + 1) + ")";
      case 21:
        return std::string("loadstring(") + Pick(kStrings) + ")";
      case 22:
        return "cjson.decode(cjson.encode(" + Expr(depth + 1) + "))";
      default:
        return "cmsgpack.unpack(cmsgpack.pack(" + Expr(depth + 1) + "))";
    }
    return Pick(kNumbers);
  }

  const uint8_t* d_;
  size_t n_;
  size_t i_ = 0;
  int vars_ = 0;
  bool in_loop_ = false;
};

// Runs `commands` on connection 0 (the last is PING), with the kill commands queued on
// connection 1 when `kill` is set; checks the replies.
void Run(Harness& h, const std::vector<std::vector<std::string>>& commands, bool kill, bool eval) {
  if (kill) {
    h.Queue(1, EncodeResp({eval ? "script" : "function", "kill"}) + EncodeResp({"ping"}));
  }
  std::string bytes;
  for (const auto& c : commands) bytes += EncodeResp(c);
  h.Send(0, bytes);
  if (kill) h.Send(1, "");
  std::vector<std::string> replies = h.Replies(0, commands.size());
  if (std::getenv("LUA_FUZZ_PRINT") != nullptr) {
    for (const std::string& r : replies) std::fprintf(stderr, "reply: %.200s\n", r.c_str());
  }
  if (replies.back() != "+PONG\r\n") Fail("no PONG after the script", replies.back());
  if (kill) {
    // Its PING may be answered BUSY: read while the script ran on, unkillable once it wrote.
    std::vector<std::string> k = h.Replies(1, 2);
    if (k[1] != "+PONG\r\n" && k[1].rfind("-BUSY ", 0) != 0) {
      Fail("neither PONG nor BUSY on the killing connection", k[1]);
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_harness == nullptr) Init();
  Harness& h = *g_harness;
  if (size < 1) return 0;
  const uint8_t flags = data[0];
  // With the top bit of the first byte set the rest of the input is the script itself (the seed
  // corpus holds the known crashers that way, and mutations of them stay near Lua).
  std::string body;
  if ((flags & 0x80) != 0) {
    body.assign(reinterpret_cast<const char*>(data + 1), size - 1);
  } else {
    Gen gen(data + 1, size - 1);
    body = gen.Script();
  }
  if (std::getenv("LUA_FUZZ_PRINT") != nullptr) std::fprintf(stderr, "%s\n", body.c_str());
  const bool resp3 = (flags & 1) != 0;
  if (resp3) {
    h.Send(0, EncodeResp({"hello", "3"}));
    h.conns[0].in.clear();
  }
  // For a quarter of the inputs Lua runs out of memory part-way (after a number of allocations
  // drawn from the input) while the scripts and the library load run: every path must still
  // answer.
  const bool oom = (flags & 0x60) == 0x60;
  const long countdown = static_cast<long>(((data[size - 1] << 5) ^ size) % 6000);
  {
    std::optional<OutOfMemory> limit;
    if (oom) limit.emplace(redistp::ScriptEngine::Of(*h.server).lua_state(), countdown);
    Run(h, {{"eval", body, "1", "k1", "a", "b"}, {"ping"}}, (flags & 6) == 6, true);
  }
  const std::string library =
      "#!lua name=fz\nredis.register_function('fz', function(KEYS, ARGV)\n" + body + "\nend)";
  {
    std::optional<OutOfMemory> limit;
    if (oom) limit.emplace(redistp::FunctionEngine::Of(*h.server).lua_state(), countdown);
    Run(h,
        {{"function", "load", "replace", library}, {"fcall", "fz", "1", "k1", "a", "b"}, {"ping"}},
        (flags & 24) == 24, false);
  }
  h.Send(0, EncodeResp({"script", "flush"}) + EncodeResp({"function", "flush"}) +
                EncodeResp({"flushall"}) + EncodeResp({"hello", "2"}));
  h.Replies(0, 4);
  return 0;
}
