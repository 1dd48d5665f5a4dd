// The link layer against Redis 7.0 itself (Debian's /usr/bin/redis-server), not run by default:
// every test here is DISABLED_ (run with --gtest_also_run_disabled_tests
// --gtest_filter='BusLinkRedis*'). Two Redis nodes in cluster mode on 127.0.0.1 are met with
// each other; a BusNet then connects to the first one's bus port and sends a MEET it built
// (a random 40-hex sender, its own listener's port as cport, no ip). Redis answers the MEET
// with a PONG on that link, connects back to the listener and sends PINGs carrying gossip about
// the other node and its hostname extension; the test answers them with PONGs, after which
// Redis lists the sender under its own name in CLUSTER NODES. What arrives is printed.
#include <arpa/inet.h>
#include <event2/event.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <random>
#include <thread>

#include "cluster/bus_link.h"
#include "free_port.h"
#include "server/log.h"

namespace redistp {
namespace {

constexpr const char* kRedis = "/usr/bin/redis-server";

bool PortFree(int port) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa = testnet::LoopbackAddr(port);
  const bool ok = bind(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) == 0;
  close(fd);
  return ok;
}

// One command over a fresh connection; the reply's first line, or for a bulk reply its body.
// Empty when the server does not answer.
std::string Command(int port, const std::vector<std::string>& argv) {
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in sa = testnet::LoopbackAddr(port);
  if (connect(fd, reinterpret_cast<sockaddr*>(&sa), sizeof(sa)) != 0) {
    close(fd);
    return "";
  }
  std::string req = "*" + std::to_string(argv.size()) + "\r\n";
  for (const std::string& a : argv) req += "$" + std::to_string(a.size()) + "\r\n" + a + "\r\n";
  if (write(fd, req.data(), req.size()) != static_cast<ssize_t>(req.size())) {
    close(fd);
    return "";
  }
  std::string in;
  char buf[16384];
  for (int i = 0; i < 1000; ++i) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n <= 0) break;
    in.append(buf, static_cast<size_t>(n));
    size_t eol = in.find("\r\n");
    if (eol == std::string::npos) continue;
    if (in[0] != '$') {
      close(fd);
      return in.substr(0, eol);
    }
    long len = std::stol(in.substr(1, eol - 1));
    if (len < 0) break;
    if (in.size() >= eol + 2 + static_cast<size_t>(len)) {
      close(fd);
      return in.substr(eol + 2, static_cast<size_t>(len));
    }
  }
  close(fd);
  return "";
}

pid_t StartRedis(int port, const std::string& dir) {
  const std::string p = std::to_string(port);
  const std::string conf = dir + "/nodes-" + p + ".conf";
  const std::string logfile = dir + "/redis-" + p + ".log";
  const std::string host = "redis-" + p + ".example";
  pid_t pid = fork();
  if (pid == 0) {
    execl(kRedis, kRedis, "--port", p.c_str(), "--bind", "127.0.0.1", "--cluster-enabled", "yes",
          "--cluster-config-file", conf.c_str(), "--dir", dir.c_str(), "--save", "", "--appendonly",
          "no", "--cluster-announce-hostname", host.c_str(), "--loglevel", "verbose", "--logfile",
          logfile.c_str(), static_cast<char*>(nullptr));
    _exit(127);
  }
  return pid;
}

// Polls `done` every 20 ms, at most `max_ms`.
bool Poll(const std::function<bool()>& done, int max_ms) {
  for (int waited = 0; waited <= max_ms; waited += 20) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

std::string RandomHexName() {
  std::random_device rd;
  std::mt19937_64 gen(rd());
  static const char kHex[] = "0123456789abcdef";
  std::string s;
  for (size_t i = 0; i < kBusNameLen; ++i) s += kHex[gen() % 16];
  return s;
}

struct Clock {
  static int64_t Now(void*) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
  }
};

void Noop(int, short, void*) {}

// Answers every PING with a PONG from `name` and prints what arrives.
class Node : public BusLinkOwner {
 public:
  void OnLinkAccepted(BusLink* link) override {
    ++accepted;
    std::printf("accepted a link from %s (local %s)\n", link->peer_ip().c_str(),
                link->local_ip().c_str());
  }
  void OnLinkConnected(BusLink* link) override {
    std::printf("connected to %s (local %s)\n", link->peer_ip().c_str(), link->local_ip().c_str());
  }
  void OnLinkFrame(BusLink* link, const BusMessage& m) override {
    std::printf("%s %s from %.40s port %u cport %u epoch %llu flags %#x, %zu gossip",
                link->dir() == BusLink::Dir::kFrom ? "in " : "out",
                std::string(BusTypeName(m.hdr.type)).c_str(), m.hdr.sender.data(), m.hdr.port,
                m.hdr.cport, static_cast<unsigned long long>(m.hdr.current_epoch), m.hdr.flags,
                m.gossip.size());
    for (const BusPingExt& e : m.exts) {
      if (e.type == kBusExtHostname) {
        std::printf(", hostname %s", std::string(BusHostnameOf(e)).c_str());
        hostname_seen = true;
      }
    }
    std::printf("\n");
    for (const BusGossip& g : m.gossip) {
      std::printf("    gossip %.40s %s:%u@%u flags %#x\n", g.nodename.data(),
                  std::string(BusIpView(g.ip)).c_str(), g.port, g.cport, g.flags);
      ++gossip_seen;
    }
    if (m.type() == BusType::kPong && link->dir() == BusLink::Dir::kTo) ++pongs_on_meet_link;
    if (m.type() == BusType::kPing && link->dir() == BusLink::Dir::kFrom) {
      ++pings_in;
      BusMessage pong = Template(BusType::kPong);
      net->Send(link, pong);
    }
  }
  void OnLinkClosed(BusLink* link) override {
    std::printf("link %s %s closed\n", link->dir() == BusLink::Dir::kFrom ? "from" : "to",
                link->peer_ip().c_str());
  }

  BusMessage Template(BusType type) const {
    BusMessage m;
    m.hdr.type = static_cast<uint16_t>(type);
    m.hdr.sender = MakeBusName(name);
    m.hdr.port = static_cast<uint16_t>(client_port);
    m.hdr.cport = static_cast<uint16_t>(bus_port);
    m.hdr.flags = kBusNodeMaster;
    return m;
  }

  BusNet* net = nullptr;
  std::string name = RandomHexName();
  int client_port = 0;
  int bus_port = 0;
  int accepted = 0;
  int pings_in = 0;
  int pongs_on_meet_link = 0;
  int gossip_seen = 0;
  bool hostname_seen = false;
};

TEST(BusLinkRedis, DISABLED_MeetWithRedis70) {
  if (access(kRedis, X_OK) != 0) GTEST_SKIP() << kRedis << " not installed";
  const std::string dir =
      std::filesystem::temp_directory_path() / ("buslink-interop-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  // Client ports whose bus ports (+10000) are free too.
  int p1 = 0, p2 = 0;
  for (int i = 0; i < 200 && p2 == 0; ++i) {
    const int p = 21000 + static_cast<int>((getpid() + i * 37) % 9000);
    if (p == p1 || !PortFree(p) || !PortFree(p + 10000)) continue;
    (p1 == 0 ? p1 : p2) = p;
  }
  ASSERT_NE(p2, 0);
  pid_t r1 = StartRedis(p1, dir), r2 = StartRedis(p2, dir);
  ASSERT_TRUE(Poll([&] { return Command(p1, {"PING"}) == "+PONG"; }, 5000));
  ASSERT_TRUE(Poll([&] { return Command(p2, {"PING"}) == "+PONG"; }, 5000));
  ASSERT_EQ(Command(p1, {"CLUSTER", "MEET", "127.0.0.1", std::to_string(p2)}), "+OK");
  ASSERT_TRUE(Poll(
      [&] {
        std::string nodes = Command(p1, {"CLUSTER", "NODES"});
        return nodes.find("handshake") == std::string::npos &&
               std::count(nodes.begin(), nodes.end(), '\n') == 2;
      },
      10000));

  Logger log;
  log.set_level(LogLevel::kVerbose);
  EventBasePtr base(event_base_new());
  EventPtr tick(event_new(base.get(), -1, EV_PERSIST, &Noop, nullptr));
  timeval tv{0, 10000};
  event_add(tick.get(), &tv);
  Node node;
  BusNet net(base.get(), node, log, &Clock::Now, nullptr);
  node.net = &net;
  node.bus_port = testnet::FreeLoopbackPort();
  node.client_port = node.bus_port - 10000;
  ASSERT_TRUE(net.Listen({"127.0.0.1"}, node.bus_port).ok());
  std::printf("our node %s, bus port %d; redis at %d and %d\n", node.name.c_str(), node.bus_port,
              p1, p2);
  BusLink* meet_link = net.Connect("127.0.0.1", p1 + 10000, nullptr, 5000);
  net.Send(meet_link, node.Template(BusType::kMeet));

  bool listed = false;
  std::string nodes;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (int i = 0; i < 2000 && std::chrono::steady_clock::now() < deadline; ++i) {
    event_base_loop(base.get(), EVLOOP_ONCE);
    if (i % 50 == 0) {
      net.Cron();
      nodes = Command(p1, {"CLUSTER", "NODES"});
      listed = nodes.find(node.name) != std::string::npos &&
               nodes.find("handshake") == std::string::npos;
    }
    if (listed && node.pings_in >= 2 && node.pongs_on_meet_link >= 1 && node.accepted >= 2) {
      break;
    }
  }
  std::printf("CLUSTER NODES of %d:\n%s", p1, nodes.c_str());
  std::printf("sent %llu frames, received %llu\n",
              static_cast<unsigned long long>(net.sent_total()),
              static_cast<unsigned long long>(net.received_total()));
  EXPECT_GE(node.pongs_on_meet_link, 1);
  EXPECT_GE(node.accepted, 1);
  EXPECT_GE(node.pings_in, 1);
  EXPECT_GE(node.gossip_seen, 1);
  EXPECT_TRUE(node.hostname_seen);
  EXPECT_TRUE(listed);

  kill(r1, SIGKILL);
  kill(r2, SIGKILL);
  waitpid(r1, nullptr, 0);
  waitpid(r2, nullptr, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace redistp
