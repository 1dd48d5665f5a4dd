// faultinject.so: disk and fork faults for a server under test, switched on and off while it
// runs. Loaded with LD_PRELOAD, so the same test drives redis-tp and Debian's redis-server.
//
// Model. The library overrides the calls through which a server reaches the disk and makes
// children: write, writev, pwrite, pwrite64, fwrite (Redis writes its RDB file with stdio, and
// stdio's own writes inside libc cannot be intercepted), fsync, fdatasync, rename and fork. Each
// call looks at the control file named by $FAULTINJECT_CONTROL; without that variable, or
// while the file is missing or empty, every call goes straight to libc. The file holds one
// rule per line:
//
//   <call> <glob> <action> [after=N] [times=M]
//
//   call    write (write, writev, pwrite, fwrite), fsync (fsync, fdatasync), rename, fork
//   glob    fnmatch(3) pattern of the file's absolute path (a descriptor's path comes from
//           /proc/self/fd; for rename either name may match; fork ignores it, write `*`)
//   action  an errno name (ENOSPC, EIO, EDQUOT, EROFS, EACCES, EPERM, EXDEV, EAGAIN, ENOMEM,
//           EBADF, EINVAL): the call fails with it, doing nothing;
//           short:<errno>: the first faulted write writes half its bytes (at least one) and
//           returns that count, later ones fail with <errno> (a disk that fills mid-write);
//           hang: the call blocks until the control file changes, then runs normally (a
//           disk that does not answer: a slow fsync)
//   after=N the first N matching calls pass (default 0); times=M at most M calls fault
//           (default: all)
//
// '#' starts a comment line. The file is read again whenever its inode, size or mtime
// changes (a test writes a new file and renames it into place), and every counter restarts
// then. Counters are per process: a forked child starts with its parent's.
//
// $FAULTINJECT_LOG, when set, names a file to which every fault is appended as one line
// "<pid> <call> <path> <action>", so a test can wait until a fault has happened.
//
// Invariants. The library never changes what a call does when no rule matches. It takes its
// lock only around reading and counting rules (never while a call runs or hangs); fork holds
// it across the real fork, so a child never inherits it held by another thread.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

enum Call { kWrite, kFsync, kRename, kFork, kCalls };
static const char* const kCallNames[kCalls] = {"write", "fsync", "rename", "fork"};

enum Action { kFail, kShort, kHang };

#define kMaxRules 16
#define kMaxGlob 512

struct Rule {
  enum Call call;
  char glob[kMaxGlob];
  enum Action action;
  int err;
  long after;
  long times;  // -1: unlimited
  long seen;   // matching calls so far
  long fired;  // faults so far
};

static struct Rule rules[kMaxRules];
static int rule_count;
static int active_calls[kCalls];  // rules per call, for the fast path
static struct stat control_stat;
static int control_known;  // control_stat describes the file the rules came from
static unsigned long generation;
static volatile int lock_word;

static void Lock(void) {
  while (__atomic_exchange_n(&lock_word, 1, __ATOMIC_ACQUIRE)) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, NULL);
  }
}
static void Unlock(void) { __atomic_store_n(&lock_word, 0, __ATOMIC_RELEASE); }

// The real functions, found once.
static ssize_t (*real_write)(int, const void*, size_t);
static ssize_t (*real_writev)(int, const struct iovec*, int);
static ssize_t (*real_pwrite)(int, const void*, size_t, off_t);
static ssize_t (*real_pwrite64)(int, const void*, size_t, off64_t);
static size_t (*real_fwrite)(const void*, size_t, size_t, FILE*);
static int (*real_fsync)(int);
static int (*real_fdatasync)(int);
static int (*real_rename)(const char*, const char*);
static pid_t (*real_fork)(void);

static void* Next(const char* name) { return dlsym(RTLD_NEXT, name); }

__attribute__((constructor)) static void Init(void) {
  real_write = Next("write");
  real_writev = Next("writev");
  real_pwrite = Next("pwrite");
  real_pwrite64 = Next("pwrite64");
  real_fwrite = Next("fwrite");
  real_fsync = Next("fsync");
  real_fdatasync = Next("fdatasync");
  real_rename = Next("rename");
  real_fork = Next("fork");
}

static const struct {
  const char* name;
  int value;
} kErrnos[] = {{"ENOSPC", ENOSPC}, {"EIO", EIO},     {"EDQUOT", EDQUOT}, {"EROFS", EROFS},
               {"EACCES", EACCES}, {"EPERM", EPERM}, {"EXDEV", EXDEV},   {"EAGAIN", EAGAIN},
               {"ENOMEM", ENOMEM}, {"EBADF", EBADF}, {"EINVAL", EINVAL}, {"EFBIG", EFBIG},
               {"ENOENT", ENOENT}, {"EBUSY", EBUSY}};

static int ErrnoByName(const char* name) {
  for (size_t i = 0; i < sizeof(kErrnos) / sizeof(kErrnos[0]); ++i) {
    if (strcmp(kErrnos[i].name, name) == 0) return kErrnos[i].value;
  }
  return 0;
}

// Parses one rule line; 0 when it is not a rule (comments, blank or malformed lines).
static int ParseRule(char* line, struct Rule* r) {
  char call[16], glob[kMaxGlob], action[32], opt1[32] = "", opt2[32] = "";
  int n = sscanf(line, "%15s %511s %31s %31s %31s", call, glob, action, opt1, opt2);
  if (n < 3 || call[0] == '#') return 0;
  memset(r, 0, sizeof(*r));
  r->call = kCalls;
  for (int c = 0; c < kCalls; ++c) {
    if (strcmp(call, kCallNames[c]) == 0) r->call = (enum Call)c;
  }
  if (r->call == kCalls) return 0;
  snprintf(r->glob, sizeof(r->glob), "%s", glob);
  if (strcmp(action, "hang") == 0) {
    r->action = kHang;
  } else if (strncmp(action, "short:", 6) == 0) {
    r->action = kShort;
    r->err = ErrnoByName(action + 6);
  } else {
    r->action = kFail;
    r->err = ErrnoByName(action);
  }
  if (r->action != kHang && r->err == 0) return 0;
  r->times = -1;
  const char* opts[2] = {opt1, opt2};
  for (int i = 0; i < 2; ++i) {
    if (strncmp(opts[i], "after=", 6) == 0) r->after = atol(opts[i] + 6);
    if (strncmp(opts[i], "times=", 6) == 0) r->times = atol(opts[i] + 6);
  }
  return 1;
}

// Reads the control file again if it changed. Called with the lock held.
static void Refresh(void) {
  const char* path = getenv("FAULTINJECT_CONTROL");
  if (path == NULL) return;
  struct stat st;
  if (stat(path, &st) != 0) {
    if (control_known || rule_count > 0) {
      rule_count = 0;
      memset(active_calls, 0, sizeof(active_calls));
      control_known = 0;
      ++generation;
    }
    return;
  }
  if (control_known && st.st_ino == control_stat.st_ino && st.st_size == control_stat.st_size &&
      st.st_mtim.tv_sec == control_stat.st_mtim.tv_sec &&
      st.st_mtim.tv_nsec == control_stat.st_mtim.tv_nsec) {
    return;
  }
  control_stat = st;
  control_known = 1;
  ++generation;
  rule_count = 0;
  memset(active_calls, 0, sizeof(active_calls));
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;
  char text[8192];
  ssize_t len = read(fd, text, sizeof(text) - 1);
  close(fd);
  if (len <= 0) return;
  text[len] = '\0';
  char* save = NULL;
  for (char* line = strtok_r(text, "\n", &save); line != NULL && rule_count < kMaxRules;
       line = strtok_r(NULL, "\n", &save)) {
    if (ParseRule(line, &rules[rule_count])) {
      ++active_calls[rules[rule_count].call];
      ++rule_count;
    }
  }
}

static void FdPath(int fd, char* out, size_t size) {
  char link[64];
  snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
  ssize_t n = readlink(link, out, size - 1);
  out[n > 0 ? n : 0] = '\0';
}

// An absolute form of a path given to rename (relative to the working directory).
static void AbsPath(const char* path, char* out, size_t size) {
  if (path[0] == '/') {
    snprintf(out, size, "%s", path);
    return;
  }
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == NULL) cwd[0] = '\0';
  snprintf(out, size, "%s/%s", cwd, path);
}

static void LogFault(enum Call call, const char* path, enum Action what, int err) {
  const char* log = getenv("FAULTINJECT_LOG");
  if (log == NULL) return;
  int fd = open(log, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  char line[kMaxGlob + 128];
  int n = snprintf(line, sizeof(line), "%ld %s %s %s %s\n", (long)getpid(), kCallNames[call],
                   path[0] ? path : "-",
                   what == kHang    ? "hang"
                   : what == kShort ? "short"
                                    : "fail",
                   what == kHang ? "" : strerror(err));
  if (n > 0) real_write(fd, line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
  close(fd);
}

// The decision for one call: kPass, or the rule's action with *err set. A short write turns
// into a failure after its first fault. Paths are looked up only when a rule for the call
// exists, so an unused library costs one stat per call.
enum Verdict { kPass, kDoFail, kDoShort, kDoHang };

static enum Verdict Decide(enum Call call, int fd, const char* p1, const char* p2, int* err,
                           unsigned long* gen) {
  if (getenv("FAULTINJECT_CONTROL") == NULL) return kPass;
  Lock();
  Refresh();
  if (active_calls[call] == 0) {
    Unlock();
    return kPass;
  }
  char a[PATH_MAX] = "", b[PATH_MAX] = "";
  if (fd >= 0) FdPath(fd, a, sizeof(a));
  if (p1 != NULL) AbsPath(p1, a, sizeof(a));
  if (p2 != NULL) AbsPath(p2, b, sizeof(b));
  enum Verdict v = kPass;
  for (int i = 0; i < rule_count; ++i) {
    struct Rule* r = &rules[i];
    if (r->call != call) continue;
    int match =
        call == kFork || fnmatch(r->glob, a, 0) == 0 || (b[0] && fnmatch(r->glob, b, 0) == 0);
    if (!match) continue;
    if (r->seen++ < r->after) continue;
    if (r->times >= 0 && r->fired >= r->times) continue;
    ++r->fired;
    *err = r->err;
    *gen = generation;
    v = r->action == kHang ? kDoHang : r->action == kShort && r->fired == 1 ? kDoShort : kDoFail;
    LogFault(call, b[0] && fnmatch(r->glob, a, 0) != 0 ? b : a,
             v == kDoHang    ? kHang
             : v == kDoShort ? kShort
                             : kFail,
             r->err);
    break;
  }
  Unlock();
  return v;
}

// Blocks until the control file changes (the rule that hung this call was lifted).
static void HangUntilChanged(unsigned long gen) {
  for (;;) {
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
    Lock();
    Refresh();
    int changed = generation != gen;
    Unlock();
    if (changed) return;
  }
}

ssize_t write(int fd, const void* buf, size_t count) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kWrite, fd, NULL, NULL, &err, &gen)) {
    case kDoFail:
      errno = err;
      return -1;
    case kDoShort:
      return real_write(fd, buf, count > 1 ? count / 2 : count);
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_write(fd, buf, count);
}

ssize_t writev(int fd, const struct iovec* iov, int iovcnt) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kWrite, fd, NULL, NULL, &err, &gen)) {
    case kDoFail:
      errno = err;
      return -1;
    case kDoShort:
      if (iovcnt > 0)
        return real_write(fd, iov[0].iov_base,
                          iov[0].iov_len > 1 ? iov[0].iov_len / 2 : iov[0].iov_len);
      break;
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_writev(fd, iov, iovcnt);
}

ssize_t pwrite(int fd, const void* buf, size_t count, off_t offset) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kWrite, fd, NULL, NULL, &err, &gen)) {
    case kDoFail:
      errno = err;
      return -1;
    case kDoShort:
      return real_pwrite(fd, buf, count > 1 ? count / 2 : count, offset);
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_pwrite(fd, buf, count, offset);
}

ssize_t pwrite64(int fd, const void* buf, size_t count, off64_t offset) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kWrite, fd, NULL, NULL, &err, &gen)) {
    case kDoFail:
      errno = err;
      return -1;
    case kDoShort:
      return real_pwrite64(fd, buf, count > 1 ? count / 2 : count, offset);
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_pwrite64(fd, buf, count, offset);
}

// stdio: a fault writes nothing (or, for a short write, the first half of the bytes, which
// fwrite reports as fewer whole items) and marks the stream as failed, as a real write error
// inside fwrite would.
size_t fwrite(const void* ptr, size_t size, size_t nmemb, FILE* stream) {
  int err = 0;
  unsigned long gen = 0;
  int fd = fileno(stream);
  switch (fd >= 0 ? Decide(kWrite, fd, NULL, NULL, &err, &gen) : kPass) {
    case kDoFail:
      errno = err;
      return 0;
    case kDoShort: {
      size_t bytes = size * nmemb;
      size_t half = bytes > 1 ? bytes / 2 : bytes;
      size_t done = real_fwrite(ptr, 1, half, stream);
      errno = err;
      return size == 0 ? 0 : done / size;
    }
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_fwrite(ptr, size, nmemb, stream);
}

static int SyncCall(int (*real)(int), int fd) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kFsync, fd, NULL, NULL, &err, &gen)) {
    case kDoFail:
    case kDoShort:
      errno = err;
      return -1;
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real(fd);
}

int fsync(int fd) { return SyncCall(real_fsync, fd); }
int fdatasync(int fd) { return SyncCall(real_fdatasync, fd); }

int rename(const char* from, const char* to) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kRename, -1, from, to, &err, &gen)) {
    case kDoFail:
    case kDoShort:
      errno = err;
      return -1;
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  return real_rename(from, to);
}

pid_t fork(void) {
  int err = 0;
  unsigned long gen = 0;
  switch (Decide(kFork, -1, NULL, NULL, &err, &gen)) {
    case kDoFail:
    case kDoShort:
      errno = err;
      return -1;
    case kDoHang:
      HangUntilChanged(gen);
      break;
    case kPass:
      break;
  }
  Lock();
  pid_t pid = real_fork();
  Unlock();
  return pid;
}
