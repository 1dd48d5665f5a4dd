// The command-table check of difftest (--compare-commands): COMMAND INFO and COMMAND DOCS of
// every command and subcommand both servers have, compared field by field over RESP3, each
// difference reported with its path ("zadd info.flags", "zadd docs.arguments[score].type").
//
// Model. Arity, flags, key positions, ACL categories, tips and key specs must equal Redis 7.0's
// exactly (flags and categories are RESP3 sets, compared in any order), and so must the docs,
// except for the prose we write in our own words: summaries, key-spec notes and the texts of
// history entries (their versions are compared). Subcommands are compared as entries of their
// own ("config|get"); a subcommand Redis has and ours lacks is listed as a note, not a
// difference.
//
// Our additions. Newer servers' options change rows Redis 7.0 has: an argument or a history
// entry whose version is after 7.0 is taken out of our docs before the comparison, and the few
// other fields they change (BITOP's operation tokens) are listed by path in
// compare_commands.cc; both are printed as additions, not differences. A command or subcommand
// only ours has must be on the policy table's never-sent list (redis-tp's own commands, and
// newer servers' commands such as SCRIPT SHOW), or it is a difference: nothing is added
// silently.
#pragma once

namespace difftest {

// Prints every difference (or, with `test_line`, one [ok]/[err] line in the test suite's
// format followed by the differences, indented). Returns 0 when the tables agree, 1 when they
// differ, 2 when a table could not be read.
int CompareCommands(int ours_port, int redis_port, bool test_line);

}  // namespace difftest
