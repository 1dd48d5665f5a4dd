#include "persistence/aof_manifest.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>

#include "server/config_parse.h"
#include "util/file_io.h"
#include "util/numbers.h"
#include "util/repr.h"

namespace redistp {
namespace {

// Redis writes a name quoted only when it holds a byte a bare word cannot.
bool NeedsQuoting(std::string_view s) {
  for (unsigned char ch : s) {
    if (ch <= ' ' || ch >= 127 || ch == '"' || ch == '\'' || ch == '\\') return true;
  }
  return false;
}

void AppendLine(std::string* out, const AofFileInfo& f) {
  out->append("file ");
  out->append(NeedsQuoting(f.name) ? Repr(f.name) : f.name);
  out->append(" seq ");
  out->append(std::to_string(f.seq));
  out->append(" type ");
  out->push_back(static_cast<char>(f.type));
  out->push_back('\n');
}

bool IsBaseName(std::string_view s) { return s.find('/') == std::string_view::npos; }

}  // namespace

std::string AofManifestName(std::string_view prefix) { return std::string(prefix) + ".manifest"; }

std::string AofBaseName(std::string_view prefix, int64_t seq, bool rdb_preamble) {
  return std::string(prefix) + "." + std::to_string(seq) + ".base" +
         (rdb_preamble ? ".rdb" : ".aof");
}

std::string AofIncrName(std::string_view prefix, int64_t seq) {
  return std::string(prefix) + "." + std::to_string(seq) + ".incr.aof";
}

std::string AofPath(std::string_view dir, std::string_view name) {
  std::string p(dir);
  p.push_back('/');
  p.append(name);
  return p;
}

std::string AofManifest::Encode() const {
  std::string out;
  if (base) AppendLine(&out, *base);
  for (const AofFileInfo& f : history) AppendLine(&out, f);
  for (const AofFileInfo& f : incrs) AppendLine(&out, f);
  return out;
}

// Redis reads the manifest with fgets into a 1024-byte buffer: a line that does not fit (no
// newline within it) is an error, and so is a last line without its newline when it is that
// long; comment lines are skipped before that check.
Result<AofManifest> AofManifest::Parse(std::string_view text) {
  constexpr size_t kMaxLine = 1023;  // bytes fgets returns per call, newline included
  AofManifest m;
  int64_t max_seq = 0;
  size_t pos = 0;
  size_t lines = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    size_t end = nl == std::string_view::npos ? text.size() : nl + 1;
    // What one fgets call would return.
    size_t chunk_end = std::min(end, pos + kMaxLine);
    std::string_view chunk = text.substr(pos, chunk_end - pos);
    ++lines;
    pos = chunk_end;
    if (!chunk.empty() && chunk[0] == '#') continue;
    if (chunk.find('\n') == std::string_view::npos) {
      return Status::Error("The AOF manifest file contains too long line");
    }
    std::string_view line = TrimConfigLine(chunk);
    std::vector<std::string> words;
    if (line.empty() || !SplitConfigLine(line, &words) || words.size() < 6 ||
        words.size() % 2 != 0) {
      return Status::Error("Invalid AOF manifest file format");
    }
    AofFileInfo f;
    bool have_name = false;
    char type = 0;
    for (size_t i = 0; i < words.size(); i += 2) {
      if (EqualsIgnoreCase(words[i], "file")) {
        f.name = words[i + 1];
        have_name = true;
        if (!IsBaseName(f.name)) return Status::Error("File can't be a path, just a filename");
      } else if (EqualsIgnoreCase(words[i], "seq")) {
        f.seq = std::atoll(words[i + 1].c_str());
      } else if (EqualsIgnoreCase(words[i], "type")) {
        type = words[i + 1].empty() ? 0 : words[i + 1][0];
      }
      // Other keys are ignored: room for later versions' fields.
    }
    if (!have_name || f.name.empty() || f.seq == 0 || type == 0) {
      return Status::Error("Invalid AOF manifest file format");
    }
    if (type == 'b') {
      if (m.base) return Status::Error("Found duplicate base file information");
      f.type = AofFileType::kBase;
      m.base_seq = f.seq;
      m.base = std::move(f);
    } else if (type == 'h') {
      f.type = AofFileType::kHistory;
      m.history.push_back(std::move(f));
    } else if (type == 'i') {
      if (f.seq <= max_seq) return Status::Error("Found a non-monotonic sequence number");
      f.type = AofFileType::kIncr;
      max_seq = f.seq;
      m.incr_seq = f.seq;
      m.incrs.push_back(std::move(f));
    } else {
      return Status::Error("Unknown AOF file type");
    }
  }
  if (lines == 0) return Status::Error("Found an empty AOF manifest");
  return m;
}

Result<AofManifest> ReadAofManifest(const std::string& dir, std::string_view prefix,
                                    bool* missing) {
  *missing = false;
  const std::string path = AofPath(dir, AofManifestName(prefix));
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT || errno == ENOTDIR) {
      *missing = true;
      return AofManifest{};
    }
    return Status::Error("Fail to open AOF manifest " + AofManifestName(prefix) + ": " +
                         std::strerror(errno));
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  return AofManifest::Parse(ss.str());
}

// The error texts name the files as Redis's do: the temporary manifest and the manifest by
// their names, the directory's fsync by the manifest's path in it.
Status WriteAofManifest(const std::string& dir, std::string_view prefix, const AofManifest& m) {
  const std::string name = AofManifestName(prefix);
  const std::string tmp_name = "temp-" + name;
  const std::string tmp = AofPath(dir, tmp_name);
  const std::string path = AofPath(dir, name);
  const std::string text = m.Encode();
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) {
    return Status::Error("Can't open the AOF manifest file " + tmp_name + ": " +
                         std::strerror(errno));
  }
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      int e = n == 0 ? ENOSPC : errno;
      close(fd);
      return Status::Error("Error trying to write the temporary AOF manifest file " + tmp_name +
                           ": " + std::strerror(e));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    int e = errno;
    close(fd);
    return Status::Error("Fail to fsync the temp AOF file " + tmp_name + ": " + std::strerror(e) +
                         ".");
  }
  close(fd);
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    return Status::Error("Error trying to rename the temporary AOF manifest file " + tmp_name +
                         " into " + name + ": " + std::strerror(errno));
  }
  bool no_dir = false;
  if (const int e = FsyncDirectory(dir, &no_dir); e != 0 && !no_dir) {
    return Status::Error("Fail to fsync AOF directory " + path + ": " + std::strerror(e) + ".");
  }
  return Status::Ok();
}

}  // namespace redistp
