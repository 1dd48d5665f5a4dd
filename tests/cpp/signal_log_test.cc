// The signal-safe formatting used by signal handlers: numbers, truncation at the capacity, and
// the log line's shape in a file.
#include "util/signal_log.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

namespace redistp {
namespace {

std::string Number(long long v, size_t cap = 64) {
  char buf[64];
  size_t len = 0;
  SignalSafeAppendNumber(buf, &len, cap, v);
  return std::string(buf, len);
}

TEST(SignalLogTest, NumbersInDecimal) {
  EXPECT_EQ(Number(0), "0");
  EXPECT_EQ(Number(7), "7");
  EXPECT_EQ(Number(1234567890123LL), "1234567890123");
  EXPECT_EQ(Number(-42), "-42");
  EXPECT_EQ(Number(-9223372036854775807LL - 1), "-9223372036854775808");
  EXPECT_EQ(Number(12345, 3), "123");  // never past the capacity
}

TEST(SignalLogTest, TextStopsAtTheCapacity) {
  char buf[8];
  size_t len = 0;
  SignalSafeAppendText(buf, &len, sizeof(buf), "temp-");
  SignalSafeAppendText(buf, &len, sizeof(buf), "12345");
  EXPECT_EQ(std::string(buf, len), "temp-123");
}

TEST(SignalLogTest, LineInRedisHandlerFormat) {
  char path[] = "/tmp/signal-log-test.XXXXXX";
  int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  SignalSafeLog(path, "Received SIGUSR1 in child, exiting now.");
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  std::remove(path);
  const std::string prefix = std::to_string(getpid()) + ":signal-handler (";
  EXPECT_EQ(line.rfind(prefix, 0), 0u) << line;
  EXPECT_NE(line.find(") Received SIGUSR1 in child, exiting now."), std::string::npos) << line;
}

}  // namespace
}  // namespace redistp
