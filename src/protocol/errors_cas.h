// Error texts of the compare-and-set / compare-and-delete commands (SET's IFEQ, IFNE, IFDEQ and
// IFDNE, DELEX, DELIFEQ, DIGEST), byte-identical to those of the servers the commands come from
// (Redis 8.4 for DELEX and the digest options; Valkey's DELIFEQ and SET IFEQ answer the
// common texts, WRONGTYPE and the syntax error). Kept apart from errors.h's family headers so
// that these few texts do not make every command file recompile; only the string family's
// compare-and-set files include it.
#pragma once

#include <string_view>

namespace redistp::err {

// DELEX with a condition on a key that holds another type (Redis 8.4 answers this, not
// WRONGTYPE).
inline constexpr std::string_view kDelexNotString =
    "ERR Key should be of string type if conditions are specified";
// DELEX's third argument is none of its four condition words.
inline constexpr std::string_view kDelexCondition =
    "ERR Invalid condition. Use IFEQ, IFNE, IFDEQ, or IFDNE";
// IFDEQ / IFDNE (of SET and DELEX) given a digest whose length is not 16. Only the length is
// checked: a digest of 16 non-hex characters is accepted and simply matches nothing.
inline constexpr std::string_view kDigestLength = "ERR must be exactly 16 hexadecimal characters";

}  // namespace redistp::err
