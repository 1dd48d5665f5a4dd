// TEMPORARY SHIM written by the lead so other engineers can build; the config engineer
// (helper owning src/server/config.h) overwrites this file entirely with the real one.
#pragma once
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>
#include "util/status.h"
namespace redistp {
struct ClientOutputBufferLimit { long long hard = 0, soft = 0, soft_seconds = 0; };
class Config {
 public:
  long long port = 6379; std::vector<std::string> bind; bool protected_mode = true;
  long long tcp_backlog = 511, tcp_keepalive = 300; std::string unixsocket; long long unixsocketperm = 0;
  long long maxclients = 10000, timeout = 0; bool daemonize = false; std::string pidfile, logfile, dir;
  int loglevel = 2; int databases = 16; long long proto_max_bulk_len = 512LL<<20;
  long long client_query_buffer_limit = 1LL<<30; ClientOutputBufferLimit client_output_buffer_limits[3];
  std::string requirepass; long long hz = 10; long long slowlog_log_slower_than = 10000, slowlog_max_len = 128;
  long long latency_monitor_threshold = 0; long long active_expire_effort = 1;
  // Shim parser: config file (first arg) + --name value; knows only the fields above.
  Status LoadFromArgs(int argc, char** argv) {
    std::string text;
    int i = 1;
    if (i < argc && std::string(argv[i]).rfind("--", 0) != 0) {
      std::ifstream f(argv[i]);
      std::stringstream ss;
      ss << f.rdbuf();
      text = ss.str() + "\n";
      ++i;
    }
    for (; i < argc; ++i) {
      std::string a = argv[i];
      if (a.rfind("--", 0) == 0) text += "\n" + a.substr(2);
      else text += " " + a;
    }
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream ls(line);
      std::string k, v;
      ls >> k;
      std::vector<std::string> vals;
      while (ls >> v) {
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
        vals.push_back(v);
      }
      if (k.empty() || k[0] == '#' || vals.empty()) continue;
      auto n = [&]() { return std::atoll(vals[0].c_str()); };
      auto b = [&]() { return vals[0] == "yes"; };
      if (k == "port") port = n();
      else if (k == "bind") bind = vals;
      else if (k == "dir") dir = vals[0];
      else if (k == "logfile") logfile = vals[0] == "\"\"" ? "" : vals[0];
      else if (k == "requirepass") requirepass = vals[0];
      else if (k == "databases") databases = static_cast<int>(n());
      else if (k == "timeout") timeout = n();
      else if (k == "maxclients") maxclients = n();
      else if (k == "protected-mode") protected_mode = b();
      else if (k == "unixsocket") unixsocket = vals[0];
      else if (k == "daemonize") daemonize = b();
      else if (k == "pidfile") pidfile = vals[0];
      else if (k == "hz") hz = n();
      else if (k == "enable-debug-command") enable_debug_command = vals[0];
    }
    return Status::Ok();
  }
  std::string enable_debug_command = "no";
  std::string maxmemory_policy = "noeviction"; long long maxmemory = 0; std::string config_file;
  bool dynamic_hz = true;
  void OnChange(std::string_view, std::function<Status()>) {}
};
}
