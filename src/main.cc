// redis-server (redis-tp): parse the command line and redis.conf, daemonize if asked, build the
// Server and run its event loop. Same invocation as Redis: `redis-server [config] [--opt val]`.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <clocale>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "cluster/cluster.h"
#include "commands/register.h"
#include "commands/server_info.h"
#include "persistence/persistence.h"
#include "replication/replication.h"
#include "server/banner.h"
#include "server/config.h"
#include "server/crash_report.h"
#include "server/proc_title.h"
#include "server/server.h"
#include "server/version.h"

namespace {

void PrintVersion() {
  std::printf("Redis server v=%s sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=redis-tp-%s\n",
              redistp::kRedisVersion, redistp::kRedisTpVersion);
}

void PrintUsage() {
  std::fprintf(stderr,
               "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n"
               "       ./redis-server - (read config from stdin)\n"
               "       ./redis-server -v or --version\n"
               "       ./redis-server -h or --help\n\n"
               "Examples:\n"
               "       ./redis-server (run the server with default conf)\n"
               "       ./redis-server /etc/redis/6379.conf\n"
               "       ./redis-server --port 7777\n"
               "       ./redis-server /etc/myredis.conf --loglevel verbose -\n"
               "       ./redis-server /etc/myredis.conf --loglevel verbose\n");
}

void Daemonize() {
  if (fork() != 0) _exit(0);
  setsid();
  int fd = open("/dev/null", O_RDWR);
  if (fd >= 0) {
    dup2(fd, STDIN_FILENO);
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) close(fd);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // First, while nothing holds pointers into argv or the environment: the process title takes
  // over their memory (server/proc_title.h); argv[] now points at copies.
  redistp::ProcTitleInit(argc, argv);
  // Collation from the environment, as Redis sets it: SORT ... ALPHA and Lua's string
  // comparisons use strcoll, so both servers order strings alike in any locale.
  std::setlocale(LC_COLLATE, "");
  if (argc >= 2) {
    if (std::strcmp(argv[1], "-v") == 0 || std::strcmp(argv[1], "--version") == 0) {
      PrintVersion();
      return 0;
    }
    if (std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0) {
      PrintUsage();
      return 0;
    }
  }
  redistp::Config config;
  // rename-command lines are judged as they are read (an unknown command or a taken name is a
  // FATAL error at that line, as in Redis) against a scratch command table; the server's own
  // table gets the same renames, in the same order, once it is filled.
  redistp::CommandTable rename_probe;
  (void)redistp::RegisterCommands(rename_probe);
  config.OnDirective("rename-command", [&rename_probe](const std::vector<std::string>& args) {
    return rename_probe.Rename(args[0], args[1]);
  });
  redistp::Status s = config.LoadFromArgs(argc, argv);
  if (!s.ok()) {
    std::fprintf(stderr, "%s\n", s.message().c_str());
    return 1;
  }
  if (!config.dir.empty() && chdir(config.dir.c_str()) != 0) {
    std::fprintf(stderr, "Can't chdir to '%s': %s\n", config.dir.c_str(), std::strerror(errno));
    return 1;
  }
  // A supervised server stays in the foreground whatever `daemonize` says, as Redis 7.0.
  std::string supervised_mode;
  config.GetValue("supervised", &supervised_mode);
  redistp::Supervision supervision = redistp::Supervision::Detect(supervised_mode);
  if (config.daemonize && !supervision.supervised()) Daemonize();

  redistp::Server server(std::move(config));
  server.set_executable(argv[0]);
  redistp::Logger& log = server.log();
  log.Configure(server.config().logfile, static_cast<redistp::LogLevel>(server.config().loglevel));
  // Redis logs these before its server exists, as warnings and with the role 'C'.
  log.set_role('C');
  supervision.LogPending(log);
  server.set_supervision(std::move(supervision));
  log.Log(redistp::LogLevel::kWarning, "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
  log.Log(redistp::LogLevel::kWarning,
          "Redis version=%s, bits=64, commit=00000000, modified=0, pid=%d, just started "
          "(redis-tp %s)",
          redistp::kRedisVersion, static_cast<int>(getpid()), redistp::kRedisTpVersion);
  if (argc == 1) {
    log.Log(redistp::LogLevel::kWarning,
            "Warning: no config file specified, using the default config. In order to specify "
            "a config file use %s /path/to/redis.conf",
            argv[0]);
  } else {
    log.Log(redistp::LogLevel::kWarning, "Configuration loaded");
  }
  log.set_role('M');
  s = redistp::RegisterCommands(server.commands());
  for (const auto& [from, to] : server.config().rename_commands) {
    if (s.ok()) s = server.commands().Rename(from, to);
  }
  if (s.ok()) s = server.Init();
  if (!s.ok()) {
    log.Raw(redistp::LogLevel::kWarning, s.message());
    return 1;
  }
  // The ports are bound: the title can name them.
  if (server.config().set_proc_title) redistp::ApplyServerProcTitle(server);
  // The users (redis.conf's `user` lines or the aclfile) are loaded first of the subsystems;
  // from here on every command is judged by them.
  redistp::Acl::Of(server);
  redistp::InstallCrashHandlers(&server, [&server] { return redistp::InfoAllText(server); });
  // A cluster node loads (or creates) and locks its nodes.conf before the banner and the data,
  // whose keys it then counts per slot (Redis's clusterInit runs there). Its errors are logged
  // already; Redis exits with 1 for them.
  if (!redistp::Cluster::Setup(server).ok()) return 1;
  // The banner names the TLS port when there is no plain one (Redis's rule).
  redistp::LogStartupBanner(log, server.config(),
                            server.tcp_port() != 0 ? server.tcp_port() : server.tls_port());
  // Then, as in Redis 7.0, "Server initialized" and the warnings of the users the config file
  // creates (the disabled ones), before the modules and the dataset are loaded.
  log.Log(redistp::LogLevel::kWarning, "Server initialized");
  for (const std::vector<std::string>& user : server.config().users) {
    if (redistp::UserDirectiveEnabled(user)) continue;
    log.Log(redistp::LogLevel::kNotice,
            "The user '%s' is disabled (there is no 'on' modifier in the user description). "
            "Make sure this is not a configuration error.",
            user[0].c_str());
  }
  // Redis loads the modules of the configuration before the dataset; redis-tp has none to load.
  if (!redistp::CheckNoModules(server)) return 1;
  // The subsystems that start with the server: persistence loads the dataset (the AOF or the
  // RDB file) before the first client is served. Its errors are logged already.
  redistp::Persistence::Of(server);
  // Replication starts after the data is loaded: a replica's link then begins its handshake.
  redistp::Replication::Of(server);
  s = server.StartSubsystems();
  if (!s.ok()) return 1;
  return server.Run();
}
