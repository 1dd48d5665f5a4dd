// The process title: what `ps` and /proc/<pid>/cmdline show for the server and its children.
//
// Model. Linux shows a process's command line from the memory its argv strings were given in
// (from the first argv byte to the end of the environment strings, which follow contiguously).
// To show another title a process writes into that memory. ProcTitleInit, called first thing in
// main, copies every argv and environment string elsewhere and points argv[], environ and
// glibc's program_invocation_name at the copies, so nothing still reads the original block;
// from then on ProcTitleSet may overwrite the block (the title, then NUL bytes to its end).
//
// What title. With set-proc-title yes (the default; immutable) the server starts showing
// proc-title-template expanded (with no, its command line stays as started until a CONFIG SET
// of the template, which retitles it either way, as Redis 7.0 does): {title} (the executable as
// started, or the kind of a background child: redis-rdb-bgsave, redis-aof-rewrite), {listen-addr}
// (the first bind address or '*', a colon and the TCP port, or the TLS port without one, or
// "unixsocket:<path>" without either), {server-mode} (empty: no sentinel or cluster mode here),
// {port}, {tls-port}, {unixsocket} and {config-file} (empty when none); "{{" is a literal brace.
// The result is trimmed of spaces at both ends and cut to 255 bytes (Redis's limit); a template
// that names another variable, or expands to nothing, is refused by CONFIG SET (config_special.cc).
// A CONFIG SET of the template retitles the server at once.
#pragma once

#include <string>
#include <string_view>

#include "util/status.h"

namespace redistp {

class Server;

struct ProcTitleVars {
  std::string_view title;
  std::string_view listen_addr;
  std::string_view server_mode;
  std::string_view port;
  std::string_view tls_port;
  std::string_view unixsocket;
  std::string_view config_file;
};

// Expands `tmpl` with `vars` into *out (untrimmed). False if a brace is unclosed or a variable
// is unknown; *out is then partial.
bool ExpandProcTitle(std::string_view tmpl, const ProcTitleVars& vars, std::string* out);

// Takes over argv's memory for the title (see above). Call once, before anything keeps pointers
// to argv or environment strings. Idempotent per process.
void ProcTitleInit(int argc, char** argv);
// Shows `title` (cut to the space ProcTitleInit found). A no-op before ProcTitleInit.
void ProcTitleSet(std::string_view title);

// Shows proc-title-template of `server` with {title} = `title`, or the executable's name when
// empty (a background child passes its kind). Whether to (set-proc-title) is the caller's call.
void ApplyServerProcTitle(Server& server, std::string_view title = {});

}  // namespace redistp
