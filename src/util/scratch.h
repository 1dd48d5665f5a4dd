// Scratch strings. A member string reused from call to call (a channel name being published, a
// frame header) saves an allocation per call, but std::string never gives capacity back: one
// 32 MB key would leave the scratch 32 MB large for the life of the server. ReleaseScratch,
// called when the work is done, frees a scratch that grew past what ordinary names need, so
// what a server keeps never depends on the largest key it ever saw.
#pragma once

#include <cstddef>
#include <string>

namespace redistp {

// Capacity a scratch string may keep between uses: enough for any ordinary key or channel name.
inline constexpr size_t kScratchKeep = 4096;

inline void ReleaseScratch(std::string& s) {
  if (s.capacity() > kScratchKeep) std::string().swap(s);
}

}  // namespace redistp
