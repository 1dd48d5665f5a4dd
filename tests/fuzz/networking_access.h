// The server's friend for the in-process fuzz harnesses (dispatch_fuzz, lua_fuzz): reaches the
// accept, read and write handlers and the end-of-turn pass that the event loop normally calls,
// so a harness drives a real Server over socketpairs without a loop.
#pragma once

#include "server/server.h"

namespace redistp {

struct NetworkingAccess {
  static void Accept(Server& s, int listen_fd) {
    s.OnAccept(listen_fd, /*unix_socket=*/true, /*tls=*/false);
  }
  static void Readable(Server& s, Client* c) {
    s.OnReadable(c);
    s.AfterCallback();
  }
  static void Writable(Server& s, Client* c) {
    s.OnWritable(c);
    s.AfterCallback();
  }
  static void EndOfTurn(Server& s) { s.BeforeSleep(); }
  static int ListenFd(Server& s) { return s.listeners_.front()->fd; }
};

}  // namespace redistp
