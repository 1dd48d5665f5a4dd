// Errors as values. A Status is either OK or carries the exact client-visible error text
// (without the leading '-' and trailing CRLF), e.g. "ERR value is not an integer or out of range".
// Result<T> is a value or such an error. No exceptions cross event-loop callbacks.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace redistp {

class Status {
 public:
  Status() = default;
  static Status Ok() { return Status(); }
  static Status Error(std::string msg) { return Status(std::move(msg)); }

  bool ok() const { return !failed_; }
  const std::string& message() const { return message_; }

 private:
  explicit Status(std::string msg) : failed_(true), message_(std::move(msg)) {}
  bool failed_ = false;
  std::string message_;
};

template <typename T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}       // NOLINT: implicit by design
  Result(Status error) : v_(std::move(error)) {}  // NOLINT
  bool ok() const { return v_.index() == 0; }
  T& value() { return std::get<0>(v_); }
  const T& value() const { return std::get<0>(v_); }
  const Status& status() const { return std::get<1>(v_); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace redistp
