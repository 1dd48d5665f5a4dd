// CommandRunner: runs the command of redis-tp-lock and redis-tp-elect so that the whole of it —
// the command and everything it starts — can be stopped when the lock or the leadership ends,
// and is stopped even if this process is killed with SIGKILL.
//
// Model. The command runs in a process group of its own (setpgid in the child; it is the group
// leader, so the group id is its pid). A shell's `sleep` in `-c 'sleep 32; echo done'` is in
// that group too, so signalling the group (kill(-pgid)) reaches it, where signalling the child
// alone would not. This process is also a child subreaper (PR_SET_CHILD_SUBREAPER): whatever the
// command leaves behind when its shell dies is reparented here and reaped here, so "the group is
// empty" can be observed (kill(-pgid, 0) fails) instead of guessed.
//
// Stopping (Stop): SIGTERM to the group, then SIGKILL to the group `kill_after` later if any of
// it is still there; Finished() becomes true only when the command exited and, after a Stop,
// the group is empty (or its SIGKILL was sent and a bounded wait passed). A tool therefore
// releases its lock only after the command is gone.
//
// Surviving our own SIGKILL. PR_SET_PDEATHSIG reaches only the direct child, so a watchdog
// process is forked at start, before any connection to the server exists (it must not hold the
// lock's socket: a lock lives as long as its socket). It reads a pipe whose write end only this
// process holds (close-on-exec, so the command does not inherit it). The group id goes down the
// pipe when the command starts, and "done" when this process finishes normally. End of file
// without "done" means this process died: the watchdog stops the group as Stop does (SIGTERM,
// SIGKILL after `kill_after`) and exits. The watchdog ignores SIGINT/SIGTERM/SIGHUP/SIGQUIT so a
// signal meant for the tool's own process group cannot take it away first. The direct child
// also keeps PR_SET_PDEATHSIG(SIGTERM) as a second line should the watchdog be gone.
//
// Normal end: when the command exits by itself, processes it left running in its group are
// left alone (as flock(1) does); only a lost lock, a signal to the tool, or the tool's death
// stops the group.
//
// The terminal: when stdin is a terminal whose foreground group is ours, the command's group is
// made the foreground group (so ^C and ^Z reach the command as they would without the tool) and
// ours is restored at the end.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>
#include <utility>
#include <vector>

struct event_base;
struct event;

namespace redistp::tools {

class CommandRunner {
 public:
  // `program` prefixes messages; `kill_after` is the grace between SIGTERM and SIGKILL.
  CommandRunner(event_base* base, const char* program, std::chrono::milliseconds kill_after);
  // Tells the watchdog we end normally, frees the events. Does not signal the command.
  ~CommandRunner();
  CommandRunner(const CommandRunner&) = delete;
  CommandRunner& operator=(const CommandRunner&) = delete;

  // Forks the watchdog. Call before opening any socket that must not outlive this process.
  // Returns false (errno set) when fork or pipe fails.
  bool StartWatchdog();

  // Forks and execs `argv` with `env` added to the environment, in a new process group.
  // Returns false (errno set) when fork fails; exec failures are the child's exit status
  // 126/127, with a message on stderr. Call once.
  bool Start(const std::vector<std::string>& argv,
             const std::vector<std::pair<std::string, std::string>>& env);

  // Stops the whole group: `sig` now (SIGTERM, or what the tool received), SIGKILL after
  // kill_after. A second call only sends `sig` again. `kill_now` skips straight to SIGKILL.
  void Stop(int sig, bool kill_now = false);
  // Sends `sig` to the group without starting a stop (used with --keep-running).
  void Signal(int sig);

  // The command exited and, after a Stop, its group is gone. The loop may stop then.
  bool Finished() const { return finished_; }
  bool stopping() const { return stopping_; }
  // The command's wait status (valid once it exited).
  int status() const { return status_; }
  // Exit status in the shell's manner: the command's, or 128+N when it died of signal N.
  int ExitStatus() const;

 private:
  void Reap();
  void CheckFinished();
  void KillGroup();
  static void OnSigchld(int, short, void* arg);
  static void OnTimer(int, short, void* arg);

  event_base* base_;
  const char* program_;
  std::chrono::milliseconds kill_after_;
  int watchdog_fd_ = -1;  // write end of the watchdog's pipe
  pid_t watchdog_ = -1;
  pid_t child_ = -1;
  bool exited_ = false;
  int status_ = 0;
  bool stopping_ = false;
  bool killed_ = false;
  bool finished_ = false;
  bool gave_terminal_ = false;
  std::chrono::steady_clock::time_point killed_at_;
  event* sigchld_ev_ = nullptr;
  event* timer_ev_ = nullptr;  // while stopping: polls the group, sends SIGKILL at the grace
  std::chrono::steady_clock::time_point stop_started_;
};

}  // namespace redistp::tools
