// A server process the tester owns: started on a free 127.0.0.1 port in its own temporary
// directory, with persistence off, and stopped (SIGTERM, then SIGKILL) by Stop() or the
// destructor. Restart() brings a crashed server back on the same port so that shrinking can
// go on after a divergence that was a crash; a persistence round trip (roundtrip.h) kills it
// with SIGKILL on purpose and restarts it with arguments of its own (appendonly yes, the
// configuration it had), on the same port and directory, so it loads what it wrote.
#pragma once

#include <sys/types.h>

#include <string>
#include <vector>

namespace difftest {

class ServerProcess {
 public:
  ServerProcess(std::string label, std::string binary) : label_(label), binary_(binary) {}
  ~ServerProcess();
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // Creates the temporary directory, picks a port and starts the server, waiting (bounded)
  // until it accepts connections. Returns false with error() set on failure.
  bool Start();
  // True while the child process has not exited.
  bool Running();
  // Stops the process if running (SIGKILL) and starts it again on the same port and directory;
  // `extra` goes after the usual arguments (a later argument wins).
  bool Restart(const std::vector<std::string>& extra = {});
  // Stops the process and removes its directory (keeps it when keep_dir is set).
  void Stop(bool keep_dir = false);

  int port() const { return port_; }
  const std::string& label() const { return label_; }
  const std::string& dir() const { return dir_; }
  const std::string& error() const { return error_; }
  // The last lines of the server's log file, for crash reports.
  std::string LogTail(int lines) const;

 private:
  bool Spawn(const std::vector<std::string>& extra = {});
  bool WaitReady();

  std::string label_;
  std::string binary_;
  std::string dir_;
  std::string error_;
  int port_ = 0;
  pid_t pid_ = -1;
};

// A port on 127.0.0.1 that was free a moment ago (bound to port 0 and released).
int PickFreePort();

}  // namespace difftest
