// Reply values, request encoding, and the hiredis-backed reply reader (see reply.h).
#include "client/reply.h"

#include <hiredis/read.h>

#include <utility>

namespace redistp::client {

Reply Reply::Status(std::string s) {
  Reply r;
  r.type = Type::kStatus;
  r.str = std::move(s);
  return r;
}

Reply Reply::Error(std::string s) {
  Reply r;
  r.type = Type::kError;
  r.str = std::move(s);
  return r;
}

Reply Reply::LocalError(std::string s) {
  Reply r = Error(std::move(s));
  r.local = true;
  return r;
}

Reply Reply::Integer(long long v) {
  Reply r;
  r.type = Type::kInteger;
  r.integer = v;
  return r;
}

Reply Reply::String(std::string s) {
  Reply r;
  r.type = Type::kString;
  r.str = std::move(s);
  return r;
}

Reply Reply::Nil() { return Reply(); }

Reply Reply::Array(std::vector<Reply> elements) {
  Reply r;
  r.type = Type::kArray;
  r.elements = std::move(elements);
  return r;
}

bool Reply::Is(std::string_view s) const {
  return (type == Type::kStatus || type == Type::kString) && str == s;
}

std::string Reply::ToString() const {
  switch (type) {
    case Type::kNil:
      return "(nil)";
    case Type::kStatus:
      return "+" + str;
    case Type::kError:
      return "-" + str;
    case Type::kInteger:
      return ":" + std::to_string(integer);
    case Type::kString:
      return "\"" + str + "\"";
    case Type::kArray: {
      std::string out = "[";
      for (size_t i = 0; i < elements.size(); ++i) {
        if (i > 0) out += ", ";
        out += elements[i].ToString();
      }
      return out + "]";
    }
  }
  return "?";
}

bool operator==(const Reply& a, const Reply& b) {
  return a.type == b.type && a.str == b.str && a.integer == b.integer && a.elements == b.elements;
}

void AppendCommand(std::string& out, const std::vector<std::string>& argv) {
  out += '*';
  out += std::to_string(argv.size());
  out += "\r\n";
  for (const std::string& arg : argv) {
    out += '$';
    out += std::to_string(arg.size());
    out += "\r\n";
    out += arg;
    out += "\r\n";
  }
}

namespace {

// hiredis calls these while parsing. A top-level value is allocated on the heap and handed to
// Next(); a nested value is moved into the slot its parent array reserved for it, and the
// returned pointer (which hiredis keeps as the parent of deeper values) points at that slot.
// Parent vectors are sized once when their header is read, so slot addresses stay valid.
void* Place(const redisReadTask* task, Reply&& value) {
  if (task->parent != nullptr) {
    auto* parent = static_cast<Reply*>(task->parent->obj);
    Reply& slot = parent->elements[static_cast<size_t>(task->idx)];
    slot = std::move(value);
    return &slot;
  }
  return new Reply(std::move(value));
}

void* CreateString(const redisReadTask* task, char* str, size_t len) {
  std::string s(str, len);
  switch (task->type) {
    case REDIS_REPLY_ERROR:
      return Place(task, Reply::Error(std::move(s)));
    case REDIS_REPLY_STATUS:
      return Place(task, Reply::Status(std::move(s)));
    default:
      return Place(task, Reply::String(std::move(s)));
  }
}

void* CreateArray(const redisReadTask* task, int elements) {
  Reply r;
  r.type = Reply::Type::kArray;
  r.elements.resize(elements > 0 ? static_cast<size_t>(elements) : 0);
  return Place(task, std::move(r));
}

void* CreateInteger(const redisReadTask* task, long long value) {
  return Place(task, Reply::Integer(value));
}

void* CreateNil(const redisReadTask* task) { return Place(task, Reply::Nil()); }

// hiredis frees only top-level objects (a partial reply on error or at reader teardown).
void FreeObject(void* obj) { delete static_cast<Reply*>(obj); }

redisReplyObjectFunctions kReplyFunctions = {CreateString, CreateArray, CreateInteger, CreateNil,
                                             FreeObject};

}  // namespace

struct ReplyReader::Impl {
  redisReader* reader = nullptr;
};

ReplyReader::ReplyReader() : impl_(std::make_unique<Impl>()) {
  impl_->reader = redisReaderCreateWithFunctions(&kReplyFunctions);
  if (impl_->reader == nullptr) error_ = "out of memory creating the reply reader";
}

ReplyReader::~ReplyReader() {
  if (impl_->reader != nullptr) redisReaderFree(impl_->reader);
}

void ReplyReader::Feed(const char* data, size_t len) {
  if (failed()) return;
  if (redisReaderFeed(impl_->reader, data, len) != REDIS_OK) error_ = impl_->reader->errstr;
}

std::optional<Reply> ReplyReader::Next() {
  if (failed()) return std::nullopt;
  void* obj = nullptr;
  if (redisReaderGetReply(impl_->reader, &obj) != REDIS_OK) {
    error_ = impl_->reader->errstr;
    if (error_.empty()) error_ = "protocol error";
    return std::nullopt;
  }
  if (obj == nullptr) return std::nullopt;
  std::unique_ptr<Reply> owned(static_cast<Reply*>(obj));
  return std::move(*owned);
}

}  // namespace redistp::client
