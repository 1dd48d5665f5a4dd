// libFuzzer harness for command dispatch: a real Server in-process, clients on real sockets,
// commands decoded from the fuzzer's bytes.
//
// Model. One Server lives for the whole run, built like main.cc builds it but listening only on
// a private unix socket (no TCP). Each input drives up to kClients connections through the
// server's own network path: the harness writes request bytes into its end of a connection,
// calls the server's read handler, runs the end-of-turn pass (hand-offs, pushes, writes), and
// drains the replies. So the query-buffer limit, parsing, the admission gate, MULTI/EXEC,
// blocking, watches, pushes and teardown all run exactly as for a network client.
//
// Input format (each step; the input ends when bytes run out or after kMaxSteps):
//   op byte: low 2 bits pick the client (0..2, 3 = client 0); bit 2 set = raw protocol bytes
//            (next byte is a length, then that many bytes are sent as-is: bad frames, inline
//            junk, cut pipelines); otherwise a command:
//   name byte picks a command (or "command subcommand") from the live command table, minus
//            the few that would stop or reconfigure the process (kDenied);
//   argc byte: number of arguments (0..7); then per argument a kind byte and its payload:
//            a key from a small pool, an integer or float from edge-value tables, a keyword
//            option, a short number, or raw bytes.
// Encoded commands are sent as RESP multibulk, so arguments reach handlers byte for byte.
// After every step a blocked client is unblocked and a pause is lifted, so no input can stall
// the harness; at the end of each input its clients are closed and FLUSHALL empties every
// database, so inputs do not depend on each other (beyond the server's counters).
//
// A propagation sink is attached, as the AOF would be: every record the server emits must be a
// command its own AOF loader accepts (not empty, a name of the command table, an arity the
// table allows), or the harness aborts (issue 20: an empty record, "*0" in the AOF, made the
// server refuse its own file).
//
// String growth is bounded by proto-max-bulk-len, set to its minimum (1mb) here, and numbers
// from the tables are either small or far out of any valid range, so no input allocates
// hundreds of megabytes on purpose.
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "commands/register.h"
#include "networking_access.h"
#include "server/command.h"
#include "server/config.h"
#include "server/propagation.h"
#include "server/server.h"

namespace {

using redistp::Client;
using redistp::NetworkingAccess;
using redistp::Server;

constexpr int kClients = 3;
constexpr int kMaxSteps = 64;

// Commands that would end the process, write files, reconfigure the server for every later
// input, or sleep: never generated (they have their own tcl tests).
// Scripts are left out too: a script may loop forever by design (random bytes can spell
// "while 1 do end"), and nothing here would kill it; scripting has its own tests.
constexpr std::string_view kDenied[] = {
    "shutdown", "debug",   "config|set", "config|rewrite", "save",  "bgsave",  "bgrewriteaof",
    "eval",     "evalsha", "eval_ro",    "evalsha_ro",     "fcall", "fcall_ro"};

const char* const kKeys[] = {"k0", "k1", "k2", "k3", "tk", "{a}x", "{a}y", ""};
const char* const kInts[] = {"0",
                             "1",
                             "-1",
                             "2",
                             "3",
                             "10",
                             "100",
                             "-100",
                             "65536",
                             "9223372036854775807",
                             "-9223372036854775808",
                             "9223372036854775808",
                             "99999999999999999999",
                             "1e3",
                             "0x10",
                             "+1",
                             " 1",
                             "18446744073709551615"};
const char* const kFloats[] = {"0.5", "-1.5",  "inf",    "-inf",  "+inf",
                               "nan", "1e308", "1e-308", "3.0e3", "1.7976931348623157e309",
                               "0.",  ".5",    "-0"};
const char* const kWords[] = {
    "EX",      "PX",      "EXAT",       "PXAT",    "NX",      "XX",          "GT",
    "LT",      "GET",     "KEEPTTL",    "PERSIST", "COUNT",   "MATCH",       "TYPE",
    "string",  "LIMIT",   "WITHSCORES", "IDX",     "LEN",     "MINMATCHLEN", "WITHMATCHLEN",
    "AND",     "OR",      "XOR",        "NOT",     "BIT",     "BYTE",        "OVERFLOW",
    "WRAP",    "SAT",     "FAIL",       "INCRBY",  "SET",     "GET",         "u8",
    "i64",     "u63",     "#1",         "FENCE",   "TIMEOUT", "ON",          "OFF",
    "SKIP",    "ID",      "ADDR",       "LADDR",   "USER",    "SKIPME",      "yes",
    "no",      "WRITE",   "ALL",        "REPLACE", "DB",      "ABSTTL",      "IDLETIME",
    "FREQ",    "SAMPLES", "*",          "?",       "[a-",     "\\",          "3",
    "ASYNC",   "SYNC",    "default",    "RESET",   "NORMAL",  "MASTER",      "PUBSUB",
    "REPLICA", "TRACKING"};

template <typename T, size_t N>
constexpr size_t Count(const T (&)[N]) {
  return N;
}

// Reads the fuzzer's bytes; past the end it yields zeros, and done() tells the caller to stop.
class Input {
 public:
  Input(const uint8_t* d, size_t n) : d_(d), n_(n) {}
  bool done() const { return i_ >= n_; }
  uint8_t Byte() { return i_ < n_ ? d_[i_++] : 0; }
  std::string_view Bytes(size_t n) {
    if (n > n_ - i_) n = n_ - i_;
    std::string_view v(reinterpret_cast<const char*>(d_ + i_), n);
    i_ += n;
    return v;
  }

 private:
  const uint8_t* d_;
  size_t n_;
  size_t i_ = 0;
};

// Checks each record as the AOF loader would read it.
struct RecordCheck : redistp::PropagationSink {
  Server* server = nullptr;
  void OnPropagate(const std::vector<std::string>& argv) override {
    if (argv.empty()) {
      std::fprintf(stderr, "dispatch_fuzz: an empty propagation record\n");
      std::abort();
    }
    const redistp::CommandSpec* spec = server->commands().Find(argv[0]);
    const int argc = static_cast<int>(argv.size());
    if (spec == nullptr || (spec->arity > 0 ? argc != spec->arity : argc < -spec->arity)) {
      std::fprintf(stderr, "dispatch_fuzz: a propagation record no loader accepts: %s (%d args)\n",
                   argv[0].c_str(), argc);
      std::abort();
    }
  }
};

struct Harness {
  Server* server = nullptr;
  RecordCheck records;
  std::string socket_path;
  std::vector<std::vector<std::string>> commands;  // name words, e.g. {"client", "list"}
  struct Conn {
    int fd = -1;  // the harness's end
    uint64_t id = 0;
  };
  Conn conns[kClients];

  // The server-side object of connection i, or nullptr if the server closed it.
  Client* ServerSide(int i) { return server->FindClient(conns[i].id); }

  // Connects a new client i (the previous one, if any, must be gone).
  void Connect(int i) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_un sa{};
    sa.sun_family = AF_UNIX;
    std::memcpy(sa.sun_path, socket_path.c_str(), socket_path.size() + 1);
    if (fd < 0 || connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
      std::perror("dispatch_fuzz: connect");
      std::abort();
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    uint64_t before = server->clients().empty() ? 0 : server->clients().rbegin()->first;
    NetworkingAccess::Accept(*server, NetworkingAccess::ListenFd(*server));
    auto it = server->clients().rbegin();
    if (it == server->clients().rend() || it->first <= before) {
      std::fprintf(stderr, "dispatch_fuzz: accept produced no client\n");
      std::abort();
    }
    conns[i] = {fd, it->first};
  }

  void Disconnect(int i) {
    if (conns[i].fd < 0) return;
    Client* c = ServerSide(i);
    if (c != nullptr) server->CloseClient(c, "fuzz input done");
    close(conns[i].fd);
    conns[i] = {};
  }

  // Reads and discards whatever the server wrote to connection i; lets a client whose write
  // event is armed write more.
  void Drain(int i) {
    char buf[65536];
    for (int rounds = 0; rounds < 1000; ++rounds) {
      ssize_t n = read(conns[i].fd, buf, sizeof(buf));
      if (n <= 0) break;
      Client* c = ServerSide(i);
      if (c != nullptr && c->write_armed) NetworkingAccess::Writable(*server, c);
    }
  }

  // Sends bytes on connection i and lets the server read and process them, turn by turn, the
  // way the event loop would. Afterwards no client is left blocked or paused.
  void Send(int i, std::string_view bytes) {
    if (conns[i].fd < 0 || ServerSide(i) == nullptr) {
      if (conns[i].fd >= 0) close(conns[i].fd);
      conns[i] = {};
      Connect(i);
    }
    size_t off = 0;
    for (int turns = 0; turns < 10000; ++turns) {
      if (off < bytes.size()) {
        ssize_t n = write(conns[i].fd, bytes.data() + off, bytes.size() - off);
        if (n > 0) off += static_cast<size_t>(n);
      }
      Client* c = ServerSide(i);
      if (c != nullptr) NetworkingAccess::Readable(*server, c);
      Settle();
      if (off < bytes.size()) continue;
      // Everything is sent: stop once the server has read all of it (or closed the client).
      c = ServerSide(i);
      int unread = 0;
      if (c == nullptr || ioctl(c->fd, FIONREAD, &unread) != 0 || unread == 0) break;
    }
  }

  // One loop turn's tail: unblock and unpause everyone, write, drain every connection.
  void Settle() {
    for (int round = 0; round < 4; ++round) {
      if (server->pause_end_ms() != 0) server->UnpauseClients();
      for (int j = 0; j < kClients; ++j) {
        Client* c = conns[j].fd >= 0 ? ServerSide(j) : nullptr;
        if (c != nullptr && c->blocking.active) server->UnblockClient(c, true);
      }
      NetworkingAccess::EndOfTurn(*server);
      for (int j = 0; j < kClients; ++j) {
        if (conns[j].fd >= 0) Drain(j);
      }
    }
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
  h->socket_path = "/tmp/redistp-dispatch-fuzz-" + std::to_string(getpid()) + ".sock";
  config.unixsocket = h->socket_path;
  config.loglevel = redistp::LogVerbosity::kWarning;
  config.proto_max_bulk_len = 1LL << 20;
  config.client_query_buffer_limit = 1LL << 20;
  h->server = new Server(std::move(config));
  redistp::RegisterCommands(h->server->commands());
  redistp::Status s = h->server->Init();
  if (!s.ok()) {
    std::fprintf(stderr, "dispatch_fuzz: Init: %s\n", s.message().c_str());
    std::abort();
  }
  for (const auto& spec : h->server->commands().all()) {
    auto denied = [](std::string_view full) {
      for (std::string_view d : kDenied) {
        if (d == full) return true;
      }
      return false;
    };
    if (!denied(spec->full_name)) h->commands.push_back({spec->name});
    for (const auto& sub : spec->subcommands) {
      if (!denied(sub.full_name)) h->commands.push_back({spec->name, sub.name});
    }
  }
  h->records.server = h->server;
  h->server->propagator().AddSink(&h->records);
  g_harness = h;
  std::atexit(RemoveSocket);
}

// Appends one argument decoded from the input.
void DecodeArg(Input& in, std::vector<std::string>* args) {
  uint8_t kind = in.Byte();
  uint8_t v = in.Byte();
  switch (kind % 8) {
    case 0:
    case 1:
    case 2:
      args->emplace_back(kKeys[v % Count(kKeys)]);
      break;
    case 3:
      args->emplace_back(kInts[v % Count(kInts)]);
      break;
    case 4:
      args->emplace_back(kFloats[v % Count(kFloats)]);
      break;
    case 5:
    case 6:
      args->emplace_back(kWords[v % Count(kWords)]);
      break;
    default:
      if (v & 1) {
        // A short number, maybe negative.
        int n = (static_cast<int>(in.Byte()) << 8 | in.Byte()) - ((v & 2) ? 32768 : 0);
        args->push_back(std::to_string(n));
      } else {
        args->emplace_back(in.Bytes(v >> 3));
      }
  }
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

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (g_harness == nullptr) Init();
  Harness& h = *g_harness;
  Input in(data, size);
  for (int step = 0; step < kMaxSteps && !in.done(); ++step) {
    uint8_t op = in.Byte();
    int client = (op & 3) % kClients;
    if (op & 4) {
      h.Send(client, in.Bytes(in.Byte()));
      continue;
    }
    std::vector<std::string> args = h.commands[in.Byte() % h.commands.size()];
    int argc = in.Byte() % 8;
    for (int a = 0; a < argc; ++a) DecodeArg(in, &args);
    h.Send(client, EncodeResp(args));
  }
  for (int i = 0; i < kClients; ++i) h.Disconnect(i);
  h.Send(0, EncodeResp({"flushall"}));
  h.Disconnect(0);
  h.Settle();
  return 0;
}
