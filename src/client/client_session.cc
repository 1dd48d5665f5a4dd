// Client, session half: SESSION OPEN / RESUME in the handshake, the client-side grace deadline,
// CloseSession() (the model is in redistp_client.h, "Sessions").
//
// The session step is always the last of the handshake, so the connection becomes ready only
// once the session is attached: watches and queued commands (lock acquisitions included) then
// run as the session's. A resume the server refuses is not a connection failure: listeners get
// kSessionLost and the same handshake opens a new session. A session given up by the client
// (deadline passed, Close()) is ended on the next connection — RESUME then CLOSE, replies
// ignored — so that keys its locks were told are lost do not linger until the server's grace.
#include <event2/event.h>

#include <algorithm>
#include <string>

#include "client/errors.h"
#include "client/redistp_client.h"

namespace redistp::client {
namespace {

constexpr char kErrNoSession[] = "ERR this client has no session";
constexpr char kInvalidToken[] = "ERR invalid or expired session token";

long long SessionIdOf(const std::string& token) {
  const size_t colon = token.find(':');
  if (colon == std::string::npos || colon == 0) return 0;
  long long id = 0;
  for (size_t i = 0; i < colon; ++i) {
    if (token[i] < '0' || token[i] > '9') return 0;
    id = id * 10 + (token[i] - '0');
  }
  return id;
}

}  // namespace

void Client::SendSessionHandshake() {
  const uint64_t gen = generation_;
  if (!session_token_.empty() && session_given_up_) {
    Write({"SESSION", "RESUME", session_token_}, nullptr, false);
    Write({"SESSION", "CLOSE"}, nullptr, false);
    session_token_.clear();
    session_id_ = 0;
    session_given_up_ = false;
  }
  if (session_token_.empty()) {
    WriteSessionOpen();
    return;
  }
  Write(
      {"SESSION", "RESUME", session_token_},
      [this, gen](const Reply& r) {
        if (r.local || gen != generation_) return;
        if (r.is_error()) {
          if (r.str.rfind(kInvalidToken, 0) != 0) {
            ConnectionLost("SESSION RESUME failed: " + r.str);
            return;
          }
          SessionLost("the server refused to resume the session: " + r.str);
          WriteSessionOpen();
          return;
        }
        evtimer_del(session_ev_);
        if (session_given_up_) {  // the deadline passed while this RESUME was on the wire
          Write({"SESSION", "CLOSE"}, nullptr, false);
          session_token_.clear();
          session_id_ = 0;
          session_given_up_ = false;
          WriteSessionOpen();
          return;
        }
        ++session_resumes_;
        OnReady();
      },
      false);
}

// SESSION OPEN as the last handshake step: its reply makes the connection ready.
void Client::WriteSessionOpen() {
  const uint64_t gen = generation_;
  Write(
      {"SESSION", "OPEN", std::to_string(options_.session_grace.count())},
      [this, gen](const Reply& r) {
        if (r.local || gen != generation_) return;
        OnSessionOpened(r, true);
      },
      false);
}

void Client::OnSessionOpened(const Reply& r, bool in_handshake) {
  if (r.is_error() || r.type != Reply::Type::kString || SessionIdOf(r.str) == 0) {
    const std::string why =
        "SESSION OPEN failed: " + (r.is_error() ? r.str : "unexpected reply " + r.ToString());
    ConnectionLost(why);
    return;
  }
  session_token_ = r.str;
  session_id_ = SessionIdOf(r.str);
  session_given_up_ = false;
  if (in_handshake) OnReady();
}

void Client::SessionLost(const std::string& reason) {
  evtimer_del(session_ev_);
  session_token_.clear();
  session_id_ = 0;
  Notify(ConnectionEvent::kSessionLost, reason);
}

// The connection ended with the session attached: unless a resume succeeds first, the session
// is presumed lost at session_proof_ + grace (see the header: never later than the server's).
void Client::ArmSessionDeadline() {
  const auto deadline = session_proof_ + options_.session_grace;
  const auto left = std::max(std::chrono::duration_cast<std::chrono::milliseconds>(
                                 deadline - std::chrono::steady_clock::now()),
                             std::chrono::milliseconds(0));
  timeval tv;
  tv.tv_sec = static_cast<time_t>(left.count() / 1000);
  tv.tv_usec = static_cast<suseconds_t>((left.count() % 1000) * 1000);
  evtimer_add(session_ev_, &tv);
}

void Client::OnSessionDeadline() {
  if (state_ == State::kReady || session_token_.empty() || session_given_up_) return;
  session_given_up_ = true;  // the token stays, to end the session on the next connection
  Notify(ConnectionEvent::kSessionLost, "no resume within the session grace of " +
                                            std::to_string(options_.session_grace.count()) + " ms");
}

void Client::SessionCb(int, short, void* arg) { static_cast<Client*>(arg)->OnSessionDeadline(); }

void Client::CloseSession(ReplyCallback cb) {
  if (options_.session_grace.count() <= 0 || session_token_.empty() || session_given_up_) {
    AddLocalSlot(std::move(cb), Reply::LocalError(kErrNoSession));
    return;
  }
  // Listeners first, so that locks stop watching before their keys go.
  Notify(ConnectionEvent::kSessionLost, "the session was closed by the program");
  session_given_up_ = true;  // until the new session is open, nothing is the session's
  Submit(Request{{"SESSION", "CLOSE"}, std::move(cb), true});
  Submit(Request{{"SESSION", "OPEN", std::to_string(options_.session_grace.count())},
                 [this](const Reply& r) {
                   if (r.local) return;  // the next connection's handshake opens one
                   OnSessionOpened(r, false);
                 },
                 true});
}

}  // namespace redistp::client
