// Error replies of the hash-field expiration commands (HEXPIRE ... HPERSIST from Redis 7.4,
// HGETDEL, HGETEX and HSETEX from 8.0), byte for byte as those servers send them.
#pragma once

#include <string_view>

namespace redistp::err {

// HEXPIRE family, HTTL family, HPERSIST, HGETDEL: the FIELDS block.
inline constexpr std::string_view kHashFieldsMissing =
    "ERR Mandatory argument FIELDS is missing or not at the right position";
inline constexpr std::string_view kHashNumFieldsNotPositive =
    "ERR Number of fields must be a positive integer";
inline constexpr std::string_view kHashNumFieldsMismatch =
    "ERR The `numfields` parameter must match the number of arguments";
// HEXPIRE family: a negative time.
inline constexpr std::string_view kHashExpireNegative = "ERR invalid expire time, must be >= 0";
// HGETEX, HSETEX: a numfields that is not a positive count.
inline constexpr std::string_view kHashInvalidNumFields = "ERR invalid number of fields";

}  // namespace redistp::err
