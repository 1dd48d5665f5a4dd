// CRC-16 as Redis Cluster computes it to place keys in hash slots: CRC-16/XMODEM (polynomial
// 0x1021, initial value 0, not reflected, no final xor). Its check value, the CRC of
// "123456789", is 0x31c3.
//
// A key's hash slot is the CRC of the key modulo 16384 (the low 14 bits), except that a hash
// tag lets several keys share a slot: when the key holds a '{' and, somewhere after it, a '}'
// with at least one byte between them, only the bytes between the first '{' and the first '}'
// after it are hashed. "{}" (empty body) or a '{' with no '}' after it hash the whole key, and
// so does "{}{user}" (the first '{' decides, and its body is empty).
#pragma once

#include <cstdint>
#include <string_view>

namespace redistp {

inline constexpr int kClusterSlots = 16384;

// The CRC-16/XMODEM of `data`.
uint16_t Crc16(std::string_view data);

// The hash slot (0..16383) of `key`, honouring hash tags as above.
int KeyHashSlot(std::string_view key);

}  // namespace redistp
