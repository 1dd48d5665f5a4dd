#include "server/proc_title.h"

#include <errno.h>  // program_invocation_name (GNU)
#include <unistd.h>

#include <cstring>
#include <string>

#include "server/config.h"
#include "server/server.h"

extern char** environ;

namespace redistp {

namespace {

// The block argv's strings (and the environment's after them) were handed in, now free for
// the title. Empty until ProcTitleInit.
char* g_area = nullptr;
size_t g_area_len = 0;
char** g_argv_copies = nullptr;
char** g_env_copies = nullptr;
// The longest title shown (Redis's own limit: a longer one is cut).
constexpr size_t kMaxTitle = 255;

}  // namespace

bool ExpandProcTitle(std::string_view tmpl, const ProcTitleVars& vars, std::string* out) {
  const std::pair<std::string_view, std::string_view> table[] = {{"title", vars.title},
                                                                 {"listen-addr", vars.listen_addr},
                                                                 {"server-mode", vars.server_mode},
                                                                 {"port", vars.port},
                                                                 {"tls-port", vars.tls_port},
                                                                 {"unixsocket", vars.unixsocket},
                                                                 {"config-file", vars.config_file}};
  size_t i = 0;
  while (i < tmpl.size()) {
    const size_t open = tmpl.find('{', i);
    if (open == std::string_view::npos) {
      out->append(tmpl.substr(i));
      break;
    }
    out->append(tmpl.substr(i, open - i));
    if (open + 1 >= tmpl.size()) return false;
    if (tmpl[open + 1] == '{') {  // "{{" is a literal brace
      out->push_back('{');
      i = open + 2;
      continue;
    }
    const size_t close = tmpl.find('}', open + 1);
    if (close == std::string_view::npos) return false;
    const std::string_view var = tmpl.substr(open + 1, close - open - 1);
    bool known = false;
    for (const auto& [name, value] : table) {
      if (name != var) continue;
      out->append(value);
      known = true;
      break;
    }
    if (!known) return false;
    i = close + 1;
  }
  return true;
}

void ProcTitleInit(int argc, char** argv) {
  if (g_area != nullptr || argc < 1 || argv[0] == nullptr) return;
  // The block: argv strings, then environment strings, as long as each begins right after the
  // previous one ends (the kernel lays them out so; anything else ends the usable span).
  char* begin = argv[0];
  char* end = begin + std::strlen(begin) + 1;
  for (int i = 1; i < argc; ++i) {
    if (argv[i] != end) break;
    end = argv[i] + std::strlen(argv[i]) + 1;
  }
  size_t env_count = 0;
  while (environ != nullptr && environ[env_count] != nullptr) ++env_count;
  for (size_t i = 0; i < env_count; ++i) {
    if (environ[i] != end) break;
    end = environ[i] + std::strlen(environ[i]) + 1;
  }
  // Copies that live as long as the process: argv[] and environ point at them from now on. The
  // environment's are held from a global as well: unsetenv() (of UPSTART_JOB, supervision.cc) drops
  // a string from environ, which a leak checker would then report at exit.
  char** env = new char*[env_count + 1];
  g_env_copies = new char*[env_count + 1];
  for (size_t i = 0; i < env_count; ++i) env[i] = g_env_copies[i] = strdup(environ[i]);
  env[env_count] = g_env_copies[env_count] = nullptr;
  environ = env;
  // Held from a global too, so a leak checker sees them reachable whatever becomes of argv[].
  g_argv_copies = new char*[static_cast<size_t>(argc)];
  for (int i = 0; i < argc; ++i) argv[i] = g_argv_copies[i] = strdup(argv[i]);
  program_invocation_name = argv[0];
  const char* slash = std::strrchr(argv[0], '/');
  program_invocation_short_name = slash != nullptr ? const_cast<char*>(slash + 1) : argv[0];
  g_area = begin;
  g_area_len = static_cast<size_t>(end - begin);
}

void ProcTitleSet(std::string_view title) {
  if (g_area == nullptr || g_area_len == 0) return;
  // At most kMaxTitle bytes, as Redis shows, and one NUL kept at the end of the block.
  size_t n = title.size() < kMaxTitle ? title.size() : kMaxTitle;
  if (n > g_area_len - 1) n = g_area_len - 1;
  std::memcpy(g_area, title.data(), n);
  std::memset(g_area + n, 0, g_area_len - n);
}

void ApplyServerProcTitle(Server& server, std::string_view title) {
  const Config& c = server.config();
  const std::string port = std::to_string(server.tcp_port());
  const std::string tls_port = std::to_string(server.tls_port());
  std::string listen;
  if (server.tcp_port() != 0 || server.tls_port() != 0) {
    listen = c.bind.empty() ? std::string("*") : c.bind.front();
    listen += ":" + (server.tcp_port() != 0 ? port : tls_port);
  } else {
    listen = "unixsocket:" + c.unixsocket;
  }
  ProcTitleVars vars;
  vars.title = title.empty() ? std::string_view(server.executable()) : title;
  vars.listen_addr = listen;
  vars.server_mode = "";
  vars.port = port;
  vars.tls_port = tls_port;
  vars.unixsocket = c.unixsocket;
  vars.config_file = c.config_file;
  std::string text;
  if (!ExpandProcTitle(c.proc_title_template, vars, &text)) return;  // CONFIG SET checked it
  const size_t first = text.find_first_not_of(' ');
  if (first == std::string::npos) return;
  const size_t last = text.find_last_not_of(' ');
  ProcTitleSet(std::string_view(text).substr(first, last - first + 1));
}

}  // namespace redistp
