// CRC-64 as Redis computes it for DUMP / RESTORE and FUNCTION DUMP / RESTORE payloads (and RDB
// files): the "Jones" polynomial 0xad93d23594c935a9, processed bit-reflected (so the table is
// built from the reflected form 0x95ac9329ac4bc9b5, least significant bit first), initial value
// 0 and no final xor. Its check value, the CRC of "123456789", is 0xe9c6d914c4b8d9ca.
//
// A payload's trailer is this CRC over every byte before it, stored as 8 bytes little-endian.
// Because the initial value is 0, leading zero bytes do not change the CRC.
#pragma once

#include <cstdint>
#include <string_view>

namespace redistp {

// Extends `crc` (the CRC of the bytes before `data`, 0 to start) over `data`.
uint64_t Crc64(uint64_t crc, std::string_view data);

}  // namespace redistp
