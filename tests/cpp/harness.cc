// In-process command harness (see harness.h).
#include "harness.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <stdexcept>

#include "commands/register.h"

namespace redistp::testing {
namespace {

// Reads a CRLF-terminated line starting at `pos`; false if the CRLF has not arrived.
bool ReadLine(const std::string& data, size_t pos, std::string* line, size_t* next) {
  size_t end = data.find("\r\n", pos);
  if (end == std::string::npos) return false;
  *line = data.substr(pos, end - pos);
  *next = end + 2;
  return true;
}

std::string EncodeCommand(const std::vector<std::string>& args) {
  std::string out = "*" + std::to_string(args.size()) + "\r\n";
  for (const std::string& a : args) {
    out += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  }
  return out;
}

}  // namespace

bool ParseFrame(const std::string& data, size_t* pos, Frame* out) {
  size_t start = *pos;
  if (start >= data.size()) return false;
  std::string line;
  size_t p;
  if (!ReadLine(data, start + 1, &line, &p)) return false;
  Frame f;
  const char type = data[start];
  size_t count = 0;
  bool aggregate = false;
  switch (type) {
    case '+':
      f.kind = Frame::Kind::kSimple;
      f.str = line;
      break;
    case '-':
      f.kind = Frame::Kind::kError;
      f.str = line;
      break;
    case ':':
      f.kind = Frame::Kind::kInt;
      f.integer = std::strtoll(line.c_str(), nullptr, 10);
      break;
    case ',':
      f.kind = Frame::Kind::kDouble;
      f.str = line;
      break;
    case '(':
      f.kind = Frame::Kind::kBigNumber;
      f.str = line;
      break;
    case '#':
      f.kind = Frame::Kind::kBool;
      f.integer = line == "t" ? 1 : 0;
      break;
    case '_':
      f.kind = Frame::Kind::kNull;
      break;
    case '$':
    case '=':
    case '!': {
      long long n = std::strtoll(line.c_str(), nullptr, 10);
      if (n < 0) {
        f.kind = Frame::Kind::kNull;
        break;
      }
      if (data.size() < p + static_cast<size_t>(n) + 2) return false;
      f.kind = type == '='   ? Frame::Kind::kVerbatim
               : type == '!' ? Frame::Kind::kError
                             : Frame::Kind::kBulk;
      f.str = data.substr(p, static_cast<size_t>(n));
      p += static_cast<size_t>(n) + 2;
      break;
    }
    case '*':
    case '~':
    case '>':
    case '%': {
      long long n = std::strtoll(line.c_str(), nullptr, 10);
      if (n < 0) {
        f.kind = Frame::Kind::kNull;
        break;
      }
      f.kind = type == '*'   ? Frame::Kind::kArray
               : type == '~' ? Frame::Kind::kSet
               : type == '>' ? Frame::Kind::kPush
                             : Frame::Kind::kMap;
      count = static_cast<size_t>(n) * (type == '%' ? 2 : 1);
      aggregate = true;
      break;
    }
    default:
      throw std::runtime_error("harness: unknown RESP type byte '" + std::string(1, type) + "'");
  }
  if (aggregate) {
    for (size_t i = 0; i < count; ++i) {
      Frame child;
      if (!ParseFrame(data, &p, &child)) return false;
      f.elems.push_back(std::move(child));
    }
  }
  f.raw = data.substr(start, p - start);
  *pos = p;
  *out = std::move(f);
  return true;
}

std::string Frame::Text() const {
  switch (kind) {
    case Kind::kNone:
      return "(none)";
    case Kind::kSimple:
      return str;
    case Kind::kError:
      return "(error) " + str;
    case Kind::kInt:
      return "(integer) " + std::to_string(integer);
    case Kind::kBool:
      return integer ? "(true)" : "(false)";
    case Kind::kNull:
      return "(nil)";
    case Kind::kDouble:
    case Kind::kBigNumber:
      return str;
    case Kind::kBulk:
    case Kind::kVerbatim:
      return "\"" + str + "\"";
    default: {
      std::string out = kind == Kind::kPush ? ">[" : "[";
      for (size_t i = 0; i < elems.size(); ++i) {
        if (i > 0) out += ", ";
        out += elems[i].Text();
      }
      return out + "]";
    }
  }
}

Harness::Harness(Config config) {
  config.port = 0;
  config.unixsocket.clear();
  config.pidfile.clear();
  config.logfile.clear();
  server_ = std::make_unique<Server>(std::move(config), &clock_);
  RegisterCommands(server_->commands());
  Status s = server_->Init(Server::Listeners::kNone);
  if (!s.ok()) throw std::runtime_error("harness: server init failed: " + s.message());
  sink_.server = server_.get();
  server_->propagator().AddSink(&sink_);
}

void Harness::Sink::OnPropagate(const std::vector<std::string>& argv) {
  records.push_back(argv);
  if (argv.empty()) {
    ADD_FAILURE() << "an empty propagation record (\"*0\" in the AOF)";
    return;
  }
  const CommandSpec* spec = server->commands().Find(argv[0]);
  if (spec == nullptr) {
    ADD_FAILURE() << "a propagation record of an unknown command: " << argv[0];
    return;
  }
  // A container's record names a subcommand the loader finds (the stream's own records, such
  // as SESSION OWN, included), with that subcommand's arity.
  if (!spec->subcommands.empty() && argv.size() >= 2) {
    const CommandSpec* sub = spec->FindSubcommand(argv[1]);
    if (sub == nullptr) sub = spec->FindInternalSubcommand(argv[1]);
    if (sub == nullptr) {
      ADD_FAILURE() << "a propagation record of an unknown subcommand: " << argv[0] << " "
                    << argv[1];
      return;
    }
    spec = sub;
  }
  const int argc = static_cast<int>(argv.size());
  if (spec->arity > 0 ? argc != spec->arity : argc < -spec->arity) {
    ADD_FAILURE() << "a propagation record of " << argv[0] << " with " << argc << " arguments";
  }
}

Harness::~Harness() {
  for (auto& [name, conn] : conns_) {
    if (conn.peer_fd >= 0) close(conn.peer_fd);
  }
  server_.reset();
}

Client* Harness::Connect(const std::string& name) {
  Get(name);
  return client(name);
}

Harness::Conn& Harness::Get(const std::string& name) {
  auto it = conns_.find(name);
  if (it != conns_.end()) return it->second;
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds) != 0) {
    throw std::runtime_error("harness: socketpair failed");
  }
  // Room for big replies: the harness reads only after a turn ends.
  int size = 4 << 20;
  setsockopt(fds[0], SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
  setsockopt(fds[1], SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
  Client* c = server_->AttachClient(
      fds[0], false, "127.0.0.1:" + std::to_string(40000 + conns_.size()), "127.0.0.1:6379");
  Conn conn;
  conn.peer_fd = fds[1];
  conn.id = c->id;
  return conns_.emplace(name, std::move(conn)).first->second;
}

Client* Harness::client(const std::string& name) {
  Conn& conn = Get(name);
  return server_->FindClient(conn.id);
}

bool Harness::Closed(const std::string& name) {
  Drain();
  return Get(name).closed;
}

void Harness::SetResp(const std::string& name, int version) {
  Frame r = Run(name, {"HELLO", std::to_string(version)});
  if (r.kind == Frame::Kind::kError) throw std::runtime_error("harness: HELLO failed: " + r.str);
  Get(name).resp = version;
}

Frame Harness::Run(const std::string& name, const std::vector<std::string>& args) {
  Conn& conn = Get(name);
  Drain();
  Client* c = server_->FindClient(conn.id);
  if (c == nullptr) return Frame{};
  ++conn.outstanding;
  server_->DeliverInput(c, EncodeCommand(args));
  Drain();
  return TakeReply(name);
}

Frame Harness::TakeReply(const std::string& name) {
  Drain();
  Conn& conn = Get(name);
  if (conn.replies.empty()) return Frame{};
  Frame f = std::move(conn.replies.front());
  conn.replies.pop_front();
  return f;
}

std::vector<Frame> Harness::Pushes(const std::string& name) {
  Drain();
  std::vector<Frame> out;
  out.swap(Get(name).pushes);
  return out;
}

void Harness::Disconnect(const std::string& name) {
  Conn& conn = Get(name);
  Client* c = server_->FindClient(conn.id);
  if (conn.peer_fd >= 0) {
    close(conn.peer_fd);
    conn.peer_fd = -1;
  }
  conn.closed = true;
  if (c != nullptr) server_->DeliverEof(c);
  Drain();
}

void Harness::AdvanceTime(int64_t ms) {
  clock_.AdvanceMs(ms);
  server_->RunDueWork();
  Drain();
}

std::vector<std::vector<std::string>> Harness::Propagated() {
  std::vector<std::vector<std::string>> out;
  out.swap(sink_.records);
  return out;
}

void Harness::Drain() {
  for (auto& [name, conn] : conns_) DrainOne(conn);
}

void Harness::DrainOne(Conn& conn) {
  if (conn.peer_fd < 0) return;
  char buf[65536];
  for (;;) {
    ssize_t n = read(conn.peer_fd, buf, sizeof(buf));
    if (n > 0) {
      conn.inbox.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0) conn.closed = true;  // the server closed its end
    break;                           // EAGAIN: nothing more for now
  }
  size_t pos = 0;
  Frame f;
  while (ParseFrame(conn.inbox, &pos, &f)) {
    bool push = f.kind == Frame::Kind::kPush || (conn.resp == 2 && conn.outstanding == 0);
    if (push) {
      conn.pushes.push_back(std::move(f));
    } else {
      if (conn.outstanding > 0) --conn.outstanding;
      conn.replies.push_back(std::move(f));
    }
  }
  conn.inbox.erase(0, pos);
}

}  // namespace redistp::testing
