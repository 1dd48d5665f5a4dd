// Serving the clients while a dataset loads.
//
// Model. Loading an RDB file or an AOF (at startup, DEBUG RELOAD, DEBUG LOADAOF) runs from start
// to end without returning to the event loop: at startup the loop has not started yet, and a
// DEBUG reload runs inside its caller's command. Redis 7.0 still answers the other connections
// meanwhile, so a client (or a test) sees `LOADING Redis is loading the dataset in memory`, INFO
// shows the progress (loading:1 and the loading_* figures), the commands flagged `loading`
// (INFO, CONFIG, CLIENT, SHUTDOWN, ...) work, and SHUTDOWN or SIGTERM end the process at once.
//
// A LoadingPeriod (server.h) brackets a load. The loaders report the bytes they consume
// (LoadingProgress); each time the count crosses a multiple of
// loading-process-events-interval-bytes (2 MB by default) the other connections get one
// non-blocking pass: the busy pass of server/busy.cc, with no caller to leave out (a DEBUG
// reload's own client is protected and skipped). The admission list answers LOADING before
// BUSY, so a script of the AOF that runs long serves the others through the same poll set and
// they still hear LOADING. Periods nest (the RDB preamble of an AOF base): the outer one holds
// the figures and owns the poll set; the inner ones only count.
//
// Signals. The event loop's signal events are not dispatched during a load, so for the outer
// period SIGTERM and SIGINT get a handler of ours that only records the signal; the next pass
// (or the end of the load) ends the process without saving, as Redis does from its loading
// loop ("Received shutdown signal during loading, scheduling shutdown."). The loop's handlers
// are back when the period ends.
//
// key-load-delay (a debug knob): each key loaded sleeps that many microseconds; a negative -N
// sleeps 1 µs with a chance of 1 in N (Redis's debugDelay), so tests can hold a server in the
// loading state with a modest file.
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <random>

#include "server/server.h"

namespace redistp {
namespace {

// The signal recorded during a load (0: none). Only the handler writes it while a period is
// open; the passes read and clear it.
volatile sig_atomic_t g_loading_signal = 0;

void RecordLoadingSignal(int sig) { g_loading_signal = sig; }

// The loop's handlers, put back when the outer period ends.
struct sigaction g_saved_term;
struct sigaction g_saved_int;
bool g_handlers_swapped = false;

void SwapInLoadingHandlers() {
  struct sigaction sa {};
  sa.sa_handler = RecordLoadingSignal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  g_loading_signal = 0;
  g_handlers_swapped = sigaction(SIGTERM, &sa, &g_saved_term) == 0;
  if (g_handlers_swapped && sigaction(SIGINT, &sa, &g_saved_int) != 0) {
    sigaction(SIGTERM, &g_saved_term, nullptr);
    g_handlers_swapped = false;
  }
}

void RestoreLoopHandlers() {
  if (!g_handlers_swapped) return;
  sigaction(SIGTERM, &g_saved_term, nullptr);
  sigaction(SIGINT, &g_saved_int, nullptr);
  g_handlers_swapped = false;
}

}  // namespace

void Server::BeginLoading(uint64_t total_bytes) {
  if (loading_depth_++ > 0) return;
  loading_was_set_ = loading_;
  loading_ = true;
  loading_stats_ = LoadingStats{};
  loading_stats_.start_time = NowMs() / 1000;
  loading_stats_.total_bytes = total_bytes;
  const uint64_t interval =
      static_cast<uint64_t>(std::max<int64_t>(1, config_.loading_process_events_interval_bytes));
  loading_next_serve_ = interval;
  // Only a server with its own listeners (and signal events) serves and traps signals.
  if (!signal_events_.empty()) SwapInLoadingHandlers();
}

void Server::EndLoading() {
  if (loading_depth_ == 0 || --loading_depth_ > 0) return;
  // A signal that came after the last pass still ends the process, before the data is used.
  if (g_loading_signal != 0) ServeWhileLoading();
  RestoreLoopHandlers();
  if (loading_owns_poll_) {
    loading_owns_poll_ = false;
    EndBusyScript();
  }
  loading_ = loading_was_set_;
}

void Server::LoadingProgress(uint64_t delta) {
  if (loading_depth_ == 0) return;
  loading_stats_.loaded_bytes += delta;
  if (loading_stats_.loaded_bytes < loading_next_serve_) return;
  const uint64_t interval =
      static_cast<uint64_t>(std::max<int64_t>(1, config_.loading_process_events_interval_bytes));
  loading_next_serve_ = (loading_stats_.loaded_bytes / interval + 1) * interval;
  ServeWhileLoading();
}

void Server::KeyLoadDelay() {
  // A simple generator of its own: the sleeps need no quality, and rand()'s state is the
  // scripts' (math.random) to keep.
  static std::minstd_rand gen(static_cast<unsigned>(getpid()));
  int64_t usec = config_.key_load_delay;
  if (usec < 0) usec = gen() % static_cast<uint64_t>(-usec) == 0 ? 1 : 0;
  if (usec > 0) usleep(static_cast<useconds_t>(usec));
}

void Server::ServeWhileLoading() {
  if (const int sig = g_loading_signal; sig != 0) {
    g_loading_signal = 0;
    log_.Log(LogLevel::kWarning, "Received shutdown signal during loading, scheduling shutdown.");
    log_.Log(LogLevel::kWarning, "User requested shutdown...");
    // Half a dataset is never saved: the signal's own save flags do not apply.
    if (BeginShutdown(kShutdownNoSave, nullptr, true) == ShutdownStart::kRefused) {
      log_.Log(LogLevel::kWarning,
               "SIGTERM received but errors trying to shut down the server, check the logs for "
               "more information");
    }
  }
  if (shutdown_requested_) ExitWhileLoading();
  if (signal_events_.empty()) return;  // no listeners (a tool's embedded server)
  if (busy_poll_fd_ < 0) {
    BeginBusyScript(nullptr, true);
    loading_owns_poll_ = busy_poll_fd_ >= 0;
  }
  ProcessEventsWhileBusy();
  // SHUTDOWN (always NOSAVE while loading) ran in this pass.
  if (shutdown_requested_) ExitWhileLoading();
}

void Server::ExitWhileLoading() {
  log_.Log(LogLevel::kWarning, "Redis is now ready to exit, bye bye...");
  if (!config_.pidfile.empty()) unlink(config_.pidfile.c_str());
  if (!config_.unixsocket.empty()) unlink(config_.unixsocket.c_str());
  std::exit(exit_code_);
}

}  // namespace redistp
