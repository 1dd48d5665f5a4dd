// CommandRunner: the command in its own process group, stopped as a whole (command_runner.h).
#include "tools/command_runner.h"

#include <event2/event.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "tools/tool_common.h"

namespace redistp::tools {
namespace {

// While stopping, how often the group is checked for being empty.
constexpr std::chrono::milliseconds kPollInterval{20};
// After SIGKILL, how long to wait for the group to go (a process in uninterruptible sleep dies
// only when it wakes) before giving up the wait with a warning.
constexpr std::chrono::milliseconds kAfterKillWait{5000};

bool GroupGone(pid_t pgid) { return kill(-pgid, 0) == -1 && errno == ESRCH; }

void SleepMs(long ms) {
  timespec ts{ms / 1000, (ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) == -1 && errno == EINTR) {
  }
}

// The watchdog's whole life (see the header): read the group id and "done" from `fd`; at end
// of file without "done", stop the group. Never returns.
[[noreturn]] void WatchdogMain(int fd, const char* program, long kill_after_ms) {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU}) {
    signal(sig, SIG_IGN);
  }
  signal(SIGPIPE, SIG_DFL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, nullptr);
  prctl(PR_SET_NAME, "tp-watchdog");
  const int devnull = open("/dev/null", O_RDWR);
  if (devnull >= 0) {
    dup2(devnull, STDIN_FILENO);
    dup2(devnull, STDOUT_FILENO);
  }
  // Keep only the pipe and stderr: an inherited descriptor (a caller's pipe) must not be kept
  // open by us after the tool is gone.
  const long max_fd = sysconf(_SC_OPEN_MAX);
  for (long i = 3; i < (max_fd > 0 && max_fd < 65536 ? max_fd : 65536); ++i) {
    if (i != fd) close(static_cast<int>(i));
  }
  std::string input;
  char buf[64];
  for (;;) {
    const ssize_t n = read(fd, buf, sizeof(buf));
    if (n > 0) {
      input.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    break;  // end of file (or an error, which means the same: the writer is gone)
  }
  // Messages: "G<pgid>\n" when the command starts, "D" when the tool ends normally.
  if (input.find('D') != std::string::npos) _exit(0);
  const size_t g = input.find('G');
  if (g == std::string::npos) _exit(0);  // no command was started
  const pid_t pgid = static_cast<pid_t>(std::atol(input.c_str() + g + 1));
  if (pgid <= 1 || GroupGone(pgid)) _exit(0);
  std::fprintf(stderr, "%s: the tool died; stopping its command (process group %d)\n", program,
               static_cast<int>(pgid));
  kill(-pgid, SIGTERM);
  for (long waited = 0; waited < kill_after_ms; waited += kPollInterval.count()) {
    if (GroupGone(pgid)) _exit(0);
    SleepMs(kPollInterval.count());
  }
  kill(-pgid, SIGKILL);
  _exit(0);
}

void Arm(event* ev, std::chrono::milliseconds delay) {
  timeval tv;
  tv.tv_sec = static_cast<time_t>(delay.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((delay.count() % 1000) * 1000);
  evtimer_add(ev, &tv);
}

// Takes the terminal for `pgid` (or gives it back to ours) without being stopped by SIGTTOU.
void SetForeground(pid_t pgid) {
  sigset_t block, old;
  sigemptyset(&block);
  sigaddset(&block, SIGTTOU);
  sigprocmask(SIG_BLOCK, &block, &old);
  tcsetpgrp(STDIN_FILENO, pgid);
  sigprocmask(SIG_SETMASK, &old, nullptr);
}

}  // namespace

CommandRunner::CommandRunner(event_base* base, const char* program,
                             std::chrono::milliseconds kill_after)
    : base_(base), program_(program), kill_after_(kill_after) {
  sigchld_ev_ = evsignal_new(base_, SIGCHLD, &CommandRunner::OnSigchld, this);
  event_add(sigchld_ev_, nullptr);
  timer_ev_ = evtimer_new(base_, &CommandRunner::OnTimer, this);
}

CommandRunner::~CommandRunner() {
  if (watchdog_fd_ >= 0) {
    // Best effort: if the write fails, the watchdog sees end of file and finds the group gone
    // (or stops what is left of it, which is what a tool that ends has to want anyway).
    if (write(watchdog_fd_, "D", 1) < 0) {
    }
    close(watchdog_fd_);
  }
  if (gave_terminal_) SetForeground(getpgrp());
  event_free(sigchld_ev_);
  event_free(timer_ev_);
}

bool CommandRunner::StartWatchdog() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  const pid_t pid = fork();
  if (pid < 0) {
    const int err = errno;
    close(fds[0]);
    close(fds[1]);
    errno = err;
    return false;
  }
  if (pid == 0) {
    close(fds[1]);
    WatchdogMain(fds[0], program_, static_cast<long>(kill_after_.count()));
  }
  close(fds[0]);
  watchdog_ = pid;
  watchdog_fd_ = fds[1];
  return true;
}

bool CommandRunner::Start(const std::vector<std::string>& argv,
                          const std::vector<std::pair<std::string, std::string>>& env) {
  // Orphans of the command come to us, so the group can be seen to empty (header).
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  const pid_t parent = getpid();
  const bool take_terminal = isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
  const bool watched = watchdog_fd_ >= 0;
  const pid_t pid = fork();
  if (pid < 0) return false;
  if (pid == 0) {
    setpgid(0, 0);
    if (take_terminal) SetForeground(getpid());
    for (int sig :
         {SIGCHLD, SIGTERM, SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU}) {
      signal(sig, SIG_DFL);
    }
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    if (watched) {
      prctl(PR_SET_PDEATHSIG, SIGTERM);
      if (getppid() != parent) _exit(kExitOsError);  // the tool is already gone
    }
    for (const auto& [name, value] : env) setenv(name.c_str(), value.c_str(), 1);
    if (argv.empty() || argv[0].empty()) {
      std::fprintf(stderr, "%s: cannot run '': empty command name\n", program_);
      _exit(127);
    }
    std::vector<char*> args;
    for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    execvp(args[0], args.data());
    const int err = errno;
    std::fprintf(stderr, "%s: cannot run %s: %s\n", program_, args[0], std::strerror(err));
    _exit(err == ENOENT ? 127 : 126);
  }
  setpgid(pid, pid);  // also here, so the group exists before we might signal it
  child_ = pid;
  if (take_terminal) {
    SetForeground(pid);
    gave_terminal_ = true;
  }
  if (watched) {
    const std::string message = "G" + std::to_string(pid) + "\n";
    if (write(watchdog_fd_, message.data(), message.size()) < 0) {
      std::fprintf(stderr, "%s: cannot reach the watchdog: %s\n", program_, std::strerror(errno));
    }
  }
  return true;
}

void CommandRunner::Signal(int sig) {
  if (child_ > 0 && !finished_) kill(-child_, sig);
}

void CommandRunner::Stop(int sig, bool kill_now) {
  if (child_ <= 0 || finished_) return;
  if (kill_now) {
    if (!stopping_) stop_started_ = std::chrono::steady_clock::now();
    stopping_ = true;
    KillGroup();
  } else {
    kill(-child_, sig);
    if (!stopping_) {
      stopping_ = true;
      stop_started_ = std::chrono::steady_clock::now();
    }
  }
  Arm(timer_ev_, kPollInterval);
  CheckFinished();
}

int CommandRunner::ExitStatus() const {
  if (WIFEXITED(status_)) return WEXITSTATUS(status_);
  if (WIFSIGNALED(status_)) return 128 + WTERMSIG(status_);
  return kExitOsError;
}

// Reaps every child that ended: the command, orphans reparented to us, the watchdog.
void CommandRunner::Reap() {
  for (;;) {
    int status = 0;
    const pid_t pid = waitpid(-1, &status, WNOHANG);
    if (pid <= 0) return;
    if (pid == child_ && !exited_) {
      exited_ = true;
      status_ = status;
    } else if (pid == watchdog_) {
      watchdog_ = -1;
    }
  }
}

void CommandRunner::CheckFinished() {
  if (finished_ || !exited_) return;
  if (stopping_ && !GroupGone(child_)) {
    if (!killed_ || std::chrono::steady_clock::now() - killed_at_ < kAfterKillWait) return;
    std::fprintf(stderr, "%s: processes of the command's group %d outlived SIGKILL; not waiting\n",
                 program_, static_cast<int>(child_));
  }
  finished_ = true;
  evtimer_del(timer_ev_);
}

void CommandRunner::KillGroup() {
  if (killed_) return;
  killed_ = true;
  killed_at_ = std::chrono::steady_clock::now();
  kill(-child_, SIGKILL);
}

void CommandRunner::OnSigchld(int, short, void* arg) {
  auto* self = static_cast<CommandRunner*>(arg);
  self->Reap();
  self->CheckFinished();
}

void CommandRunner::OnTimer(int, short, void* arg) {
  auto* self = static_cast<CommandRunner*>(arg);
  self->Reap();
  if (!self->killed_ &&
      std::chrono::steady_clock::now() - self->stop_started_ >= self->kill_after_) {
    std::fprintf(stderr, "%s: the command's group outlived SIGTERM by %lld ms; sending SIGKILL\n",
                 self->program_, static_cast<long long>(self->kill_after_.count()));
    self->KillGroup();
  }
  self->CheckFinished();
  if (!self->finished_) Arm(self->timer_ev_, kPollInterval);
}

}  // namespace redistp::tools
