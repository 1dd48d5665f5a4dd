// Compare-and-set and compare-and-delete on string values: the conditions SET's IFEQ, IFNE,
// IFDEQ and IFDNE options and DELEX share, and the value digest DIGEST answers.
//
// Model. A condition compares a key's current string value with an argument, either byte for
// byte (IFEQ, IFNE) or by digest (IFDEQ, IFDNE). The digest is the XXH3-64 hash of the value's
// bytes (no seed; an integer-encoded value hashes as its decimal text) written as 16 lowercase
// hex digits, leading zeros kept: the number Redis 8.4's DIGEST answers, so a client can hash
// a value it read and compare without sending the value back. A digest argument is compared
// with that text ignoring ASCII case, and is checked for its length only (16) — and only when
// there is a value to compare it with, since a missing key answers before any comparison.
//
// What a condition means for a missing key is the command's business (SET IFNE creates the
// key, DELEX answers 0); EvaluateCas is asked only about an existing string.
#pragma once

#include <cstddef>
#include <string_view>

#include "server/command.h"

namespace redistp {

inline constexpr size_t kDigestHexLength = 16;

enum class CasCondition : unsigned char { kNone, kIfEq, kIfNe, kIfDeq, kIfDne };

// Writes the digest of `bytes` into out[0..16) (no terminator).
void FormatValueDigest(std::string_view bytes, char out[kDigestHexLength]);

// The condition named by `word` (IFEQ, IFNE, IFDEQ, IFDNE in any case), kNone for any other.
CasCondition ParseCasCondition(std::string_view word);

// Whether `cond` (not kNone) holds for an existing key whose value is `current`, given the
// command's comparison argument `arg`. A digest condition whose argument is not 16 characters
// long replies Redis's error, sets *replied and returns false.
bool EvaluateCas(CommandContext& c, CasCondition cond, std::string_view current,
                 std::string_view arg, bool* replied);

// Whether the condition creates a missing key when SET carries it (IFNE and IFDNE do: a
// missing key's value equals nothing).
inline bool CasHoldsForMissingKey(CasCondition cond) {
  return cond == CasCondition::kIfNe || cond == CasCondition::kIfDne;
}

// Registers DIGEST, DELEX and DELIFEQ (strings_cas.cc); called by RegisterStringCommands.
void RegisterStringCasCommands(CommandTable& table);

}  // namespace redistp
