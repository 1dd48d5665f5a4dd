// Unit tests for ByteBuffer's sizing, the part the clients cron relies on: ReserveExact gives
// a big argument exactly the room it needs, ShrinkTo gives room back without losing or moving
// out of order the bytes still to be parsed, and never grows the buffer.
#include "util/byte_buffer.h"

#include <gtest/gtest.h>

#include <string>

namespace redistp {
namespace {

TEST(ByteBufferTest, ReserveExactDoesNotDouble) {
  ByteBuffer b;
  b.Append("*3\r\n");
  b.ReserveExact(300000);
  EXPECT_EQ(b.Capacity(), 300000u + 4);
  EXPECT_EQ(b.View(), "*3\r\n");
  // Enough room already: nothing changes.
  b.ReserveExact(1000);
  EXPECT_EQ(b.Capacity(), 300000u + 4);
}

TEST(ByteBufferTest, ReserveExactCompactsFirst) {
  ByteBuffer b;
  b.Append(std::string(100, 'a'));
  b.Append("tail");
  b.Consume(100);
  const size_t cap = b.Capacity();
  // After moving "tail" to the front there is room for cap - 4 bytes without growing.
  b.ReserveExact(cap - 4);
  EXPECT_EQ(b.Capacity(), cap);
  EXPECT_EQ(b.View(), "tail");
}

TEST(ByteBufferTest, ShrinkToKeepsPendingBytesAndNeverGrows) {
  ByteBuffer b;
  b.ReserveExact(100000);
  b.Append(std::string(10, 'x'));
  b.Append("pending");
  b.Consume(10);
  b.ShrinkTo(2000);
  EXPECT_EQ(b.Capacity(), 2000u);
  EXPECT_EQ(b.View(), "pending");
  // Never under what it holds.
  b.ShrinkTo(0);
  EXPECT_EQ(b.Capacity(), 7u);
  EXPECT_EQ(b.View(), "pending");
  // Never grows.
  b.ShrinkTo(50000);
  EXPECT_EQ(b.Capacity(), 7u);
  // Empty and shrunk to 0: the storage is freed; appending works again.
  b.Consume(7);
  b.ShrinkTo(0);
  EXPECT_EQ(b.Capacity(), 0u);
  b.Append("again");
  EXPECT_EQ(b.View(), "again");
}

}  // namespace
}  // namespace redistp
