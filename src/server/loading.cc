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
// Signals. SIGTERM and SIGINT are only recorded by their handler (server/shutdown_signals.h);
// the next pass ends the process without saving, as Redis does from its loading loop
// ("Received shutdown signal during loading, scheduling shutdown."). One that arrives after
// the last pass is the cron's, once the server runs.
//
// key-load-delay (a debug knob): each key loaded sleeps that many microseconds; a negative -N
// sleeps 1 µs with a chance of 1 in N (Redis's debugDelay), so tests can hold a server in the
// loading state with a modest file.
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <random>

#include "server/server.h"
#include "server/shutdown_signals.h"

namespace redistp {

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
}

void Server::EndLoading() {
  if (loading_depth_ == 0 || --loading_depth_ > 0) return;
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
  if (const int sig = TakeShutdownSignal(); sig != 0) {
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
  if (listeners_.empty()) return;  // no listeners (a tool's embedded server)
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
