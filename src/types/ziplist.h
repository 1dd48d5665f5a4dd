// Ziplist: a validating reader of the packed encoding Redis used before listpacks.
//
// Redis up to 6.2 stored small lists, hashes and sorted sets (and each node of a quicklist) as a
// ziplist; 7.0 no longer writes one but still loads it from RDB files and DUMP payloads of RDB
// version <= 9, converting it to a listpack. We do the same: this file only reads ziplists, so
// a blob from outside is decoded once, into entries, and then appended to a listpack.
//
// Layout (numbers little-endian unless said otherwise):
//
//   offset 0         4          8          10                                  bytes-1
//          +---------+----------+----------+---------+-----+---------+------+
//          | zlbytes | zltail   | zllen    | entry 0 | ... | entry N | 0xFF |
//          | u32     | u32      | u16      |         |     |         |      |
//          +---------+----------+----------+---------+-----+---------+------+
//
//   zlbytes  bytes of the whole blob;  zltail  offset of the last entry (10 when empty);
//   zllen    number of entries, or 65535 meaning "count them";
//   entry    <prevlen> <encoding> <data>
//     prevlen   bytes of the previous entry (0 for the first): one byte below 254, else 0xFE and
//               a u32;
//     encoding  00llllll               string of 0..63 bytes
//               01llllll llllllll      string, 14-bit length (big-endian)
//               10xxxxxx + u32 (BE)    string, 32-bit length
//               11000000 / 11010000 / 11100000   int16 / int32 / int64 follows
//               11110000 / 11111110    int24 / int8 follows
//               1111xxxx (0001..1101)  the integer xxxx - 1 (0..12), no data
//               anything else in 11xxxxxx is invalid; 0xFF only ends the list.
//
// Trust: DecodeZiplist checks every byte before handing out an entry: the header against the
// blob's size, each entry's bounds, prevlen chain, encoding, the tail offset, the count (unless
// 65535) and the terminator, so a corrupt blob is an error and never a read out of bounds.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace redistp {

// One decoded entry: an integer, or a string viewing into the blob (valid while the blob is).
struct ZiplistEntry {
  bool is_int = false;
  int64_t num = 0;
  std::string_view str;
};

// Validates the whole of `blob` as a ziplist and, if it is well formed, replaces *out with its
// entries in order and returns true. On false *out is unspecified.
bool DecodeZiplist(std::string_view blob, std::vector<ZiplistEntry>* out);

}  // namespace redistp
