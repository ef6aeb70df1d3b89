#include "framework/text_file.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

#include "framework/errors.hpp"

namespace pinbench {
namespace {

std::string reason(int err) {
  return std::strerror(err);
}

// Closes a descriptor on every path out of a function.
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  int get() const { return fd_; }
  // Closes now and returns close(2)'s errno, or 0.
  int close_now() {
    const int fd = fd_;
    fd_ = -1;
    return fd >= 0 && ::close(fd) != 0 ? errno : 0;
  }

 private:
  int fd_;
};

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a fifo";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

std::string mib(std::uint64_t bytes) {
  return bytes % (1u << 20) == 0 ? fmt::format("{}", bytes >> 20)
                                 : fmt::format("{:.1f}", static_cast<double>(bytes) / (1 << 20));
}

// ---- The registry ----
// A slot is free (0), being filled or emptied (1: a handler must not read it), or holds a path
// (2). The handler reads only slots in state 2, after an acquire load.
struct Slot {
  std::atomic<int> state{0};
  char path[kMaxTemporaryPath];
};
Slot g_slots[kMaxTemporaries];
static_assert(std::atomic<int>::is_always_lock_free, "the registry needs lock-free atomics");

// ---- Writing ----

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string name_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// Letters and digits from the kernel's random source: the name of a temporary file must not be
// guessable, so nobody can plant a link there before it is created.
std::string random_suffix() {
  static const char kAlphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
  unsigned char bytes[12];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    const ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw InputError(fmt::format("no random bytes for a file name: {}", reason(errno)));
    got += static_cast<std::size_t>(n);
  }
  std::string s;
  for (unsigned char b : bytes) s += kAlphabet[b % (sizeof kAlphabet - 1)];
  return s;
}

// The destination must be absent or a regular file (not a link); returns the mode of the file
// it replaces, if any.
std::optional<mode_t> check_destination(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::nullopt;
    throw InputError(fmt::format("cannot write '{}': {}", path, reason(errno)));
  }
  if (S_ISLNK(st.st_mode)) {
    throw InputError(fmt::format(
        "'{}' is a symbolic link: pinbench does not write through links (name the file itself)",
        path));
  }
  if (!S_ISREG(st.st_mode)) {
    throw InputError(
        fmt::format("'{}' is {}, not a regular file: pinbench writes reports only to regular files",
                    path, kind_of(st.st_mode)));
  }
  return st.st_mode & 0777;
}

bool write_all(int fd, std::string_view text, int* err) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      *err = errno;
      return false;
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  return true;
}

// A temporary file written in full, registered until it is renamed or removed.
class Temporary {
 public:
  Temporary(const std::string& path, std::string_view text) : dest_(path) {
    const std::optional<mode_t> mode = check_destination(path);
    const std::string folder = folder_of(path);
    int fd = -1;
    for (int attempt = 0; attempt < 16 && fd < 0; ++attempt) {
      tmp_ = folder + "/." + name_of(path) + "." + random_suffix() + ".tmp";
      // Registered before it exists, so a signal between open and registration cannot leave it.
      slot_ = register_temporary(tmp_.c_str());
      fd = ::open(tmp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
      if (fd < 0) {
        const int err = errno;
        unregister_temporary(slot_);
        slot_ = -1;
        if (err != EEXIST)
          throw InputError(fmt::format("cannot write '{}': {}", path, reason(err)));
      }
    }
    if (fd < 0) throw InputError(fmt::format("cannot write '{}': no free temporary name", path));
    Fd file(fd);
    created_ = true;
    int err = 0;
    if (mode && ::fchmod(file.get(), *mode) != 0) err = errno;
    if (err == 0) write_all(file.get(), text, &err);
    if (err == 0) err = file.close_now();
    if (err != 0) {
      remove();
      throw InputError(fmt::format("writing '{}' failed: {}", path, reason(err)));
    }
  }
  Temporary(const Temporary&) = delete;
  Temporary& operator=(const Temporary&) = delete;
  Temporary(Temporary&& o) noexcept
      : dest_(std::move(o.dest_)), tmp_(std::move(o.tmp_)), slot_(o.slot_), created_(o.created_) {
    o.slot_ = -1;
    o.created_ = false;
  }
  ~Temporary() { remove(); }

  void rename_into_place() {
    // Checked again just before the rename: the window for swapping in a device shrinks to
    // the two calls.
    check_destination(dest_);
    if (::rename(tmp_.c_str(), dest_.c_str()) != 0) {
      const int err = errno;
      remove();
      throw InputError(
          fmt::format("cannot move the file into place at '{}': {}", dest_, reason(err)));
    }
    created_ = false;
    unregister_temporary(slot_);
    slot_ = -1;
  }

 private:
  void remove() noexcept {
    if (created_) ::unlink(tmp_.c_str());
    created_ = false;
    unregister_temporary(slot_);
    slot_ = -1;
  }

  std::string dest_;
  std::string tmp_;
  int slot_ = -1;
  bool created_ = false;
};

void to_stdout_or_throw(std::string_view text) {
  if (write_stdout(text) == StdoutWrite::kClosed) throw StdoutClosed();
}

}  // namespace

// ---- Reading ----

std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            const std::string& what) {
  // O_NONBLOCK: opening a FIFO with no writer must not hang; it is refused below.
  const int raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (raw < 0) {
    if (errno == EISDIR) throw InputError(fmt::format("'{}' is a directory, not a {}", path, what));
    throw InputError(fmt::format("cannot open {} '{}'", what, path));
  }
  Fd fd(raw);
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) {
    throw InputError(fmt::format("cannot read {} '{}': {}", what, path, reason(errno)));
  }
  if (S_ISDIR(st.st_mode))
    throw InputError(fmt::format("'{}' is a directory, not a {}", path, what));
  // A FIFO, a device or a socket can be endless or never end: only files are read.
  if (!S_ISREG(st.st_mode)) {
    throw InputError(
        fmt::format("'{}' is {}, not a regular file: pinbench reads a {} only from a file", path,
                    kind_of(st.st_mode), what));
  }
  const std::string too_large = fmt::format(
      "{} '{}' is larger than {} MiB, the most pinbench reads", what, path, mib(max_bytes));
  if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    throw InputError(too_large);
  }
  std::string text;
  // A regular file's size is known; a stream grows the buffer as it comes, never past the cap.
  std::size_t capacity = S_ISREG(st.st_mode) ? static_cast<std::size_t>(st.st_size) + 1 : 1 << 16;
  text.resize(capacity);
  std::size_t used = 0;
  for (;;) {
    if (used == text.size()) {
      if (used > max_bytes) throw InputError(too_large);
      text.resize(static_cast<std::size_t>(
          std::min<std::uint64_t>(static_cast<std::uint64_t>(text.size()) * 2, max_bytes + 1)));
    }
    const ssize_t n = ::read(fd.get(), &text[used], text.size() - used);
    if (n < 0) {
      if (errno == EINTR) continue;
      if (errno == EISDIR)
        throw InputError(fmt::format("'{}' is a directory, not a {}", path, what));
      throw InputError(fmt::format("cannot read {} '{}': {}", what, path, reason(errno)));
    }
    if (n == 0) break;
    used += static_cast<std::size_t>(n);
    if (used > max_bytes) throw InputError(too_large);
  }
  text.resize(used);
  text.shrink_to_fit();
  return text;
}

// ---- Writing ----

void write_text_file(const std::string& path, std::string_view text) {
  if (path == "-") {
    to_stdout_or_throw(text);
    return;
  }
  Temporary tmp(path, text);
  tmp.rename_into_place();
}

void write_text_files(const std::vector<OutputFile>& files) {
  std::vector<Temporary> written;
  written.reserve(files.size());
  for (const OutputFile& f : files) {
    if (f.path != "-") written.emplace_back(f.path, f.text);
  }
  for (Temporary& t : written) t.rename_into_place();
  for (const OutputFile& f : files) {
    if (f.path == "-") to_stdout_or_throw(f.text);
  }
}

// ---- Standard output ----

namespace {

// Why the last write through install_stdout_writer's stream failed (0: none did).
std::atomic<int> g_stdout_errno{0};

ssize_t write_remembering(void*, const char* buf, std::size_t size) {
  int err = 0;
  if (write_all(STDOUT_FILENO, std::string_view(buf, size), &err)) {
    return static_cast<ssize_t>(size);
  }
  g_stdout_errno.store(err);
  return -1;
}

}  // namespace

void install_stdout_writer() {
  cookie_io_functions_t io{};
  io.write = write_remembering;
  FILE* f = fopencookie(nullptr, "w", io);
  if (f == nullptr) return;  // stdio's own stream stays; a failure is then "unknown error"
  std::fflush(stdout);
  std::setvbuf(f, nullptr, isatty(STDOUT_FILENO) != 0 ? _IOLBF : _IOFBF, BUFSIZ);
  stdout = f;
}

StdoutWrite flush_stdout() {
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout)) {
    int err = g_stdout_errno.exchange(0);
    if (err == 0) err = errno;
    std::clearerr(stdout);
    if (err == EPIPE) return StdoutWrite::kClosed;
    throw InputError(fmt::format("cannot write to standard output: {}",
                                 err != 0 ? reason(err) : "unknown error"));
  }
  return StdoutWrite::kWritten;
}

StdoutWrite write_stdout(std::string_view text) {
  if (flush_stdout() == StdoutWrite::kClosed) return StdoutWrite::kClosed;
  int err = 0;
  if (write_all(STDOUT_FILENO, text, &err)) return StdoutWrite::kWritten;
  if (err == EPIPE) return StdoutWrite::kClosed;
  throw InputError(fmt::format("cannot write to standard output: {}", reason(err)));
}

// ---- The registry ----

int register_temporary(const char* path) noexcept {
  const std::size_t len = std::strlen(path);
  if (len >= kMaxTemporaryPath) return -1;
  for (std::size_t i = 0; i < kMaxTemporaries; ++i) {
    int expected = 0;
    if (g_slots[i].state.compare_exchange_strong(expected, 1, std::memory_order_acquire)) {
      std::memcpy(g_slots[i].path, path, len + 1);
      g_slots[i].state.store(2, std::memory_order_release);
      return static_cast<int>(i);
    }
  }
  return -1;
}

void unregister_temporary(int slot) noexcept {
  if (slot < 0 || static_cast<std::size_t>(slot) >= kMaxTemporaries) return;
  g_slots[slot].state.store(1, std::memory_order_release);
  g_slots[slot].state.store(0, std::memory_order_release);
}

std::size_t remove_temporaries_now() noexcept {
  std::size_t removed = 0;
  for (Slot& s : g_slots) {
    if (s.state.load(std::memory_order_acquire) != 2) continue;
    const int saved = errno;  // a handler must leave errno as it found it
    if (::unlink(s.path) == 0) ++removed;
    errno = saved;
  }
  return removed;
}

std::size_t registered_temporaries() noexcept {
  std::size_t n = 0;
  for (const Slot& s : g_slots) n += s.state.load(std::memory_order_acquire) == 2 ? 1 : 0;
  return n;
}

// ---- Outputs against inputs ----

std::optional<FileIdentity> file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return FileIdentity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

namespace {

std::vector<NamedPath>& protected_files() {
  static std::vector<NamedPath> files;
  return files;
}

// Creates a file in `path`'s folder and removes it: the one proof that the output can be made
// there (a read-only mount, /proc, a folder of someone else's pass access(2) as root).
void probe_folder(const std::string& path) {
  const std::string folder = folder_of(path);
  std::string probe;
  int fd = -1;
  int err = EEXIST;
  for (int attempt = 0; attempt < 16 && fd < 0 && err == EEXIST; ++attempt) {
    probe = folder + "/." + name_of(path) + "." + random_suffix() + ".probe";
    const int slot = register_temporary(probe.c_str());
    fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    err = fd < 0 ? errno : 0;
    if (fd >= 0) {
      ::close(fd);
      ::unlink(probe.c_str());
    }
    unregister_temporary(slot);
  }
  if (fd < 0) {
    throw InputError(fmt::format("cannot write '{}': no file can be created in '{}': {}", path,
                                 folder, reason(err)));
  }
}

}  // namespace

void protect_from_outputs(std::vector<NamedPath> files) {
  protected_files() = std::move(files);
}

void check_outputs(const std::vector<NamedPath>& given_inputs,
                   const std::vector<NamedPath>& outputs, const std::string& stdout_taken_by) {
  std::vector<NamedPath> inputs = given_inputs;
  inputs.insert(inputs.end(), protected_files().begin(), protected_files().end());
  // Where an output will be: the file's identity when it exists, else its folder's and its
  // name, so "x" and "./x" meet even before either is written.
  struct Place {
    std::optional<FileIdentity> file;
    std::optional<FileIdentity> folder;
    std::string name;
    bool same(const Place& o) const {
      if (file && o.file) return *file == *o.file;
      if (file || o.file) return false;
      return folder && o.folder && *folder == *o.folder && name == o.name;
    }
  };
  std::vector<std::pair<const NamedPath*, Place>> seen;
  const NamedPath* on_stdout = nullptr;
  for (const NamedPath& out : outputs) {
    if (out.path.empty()) continue;
    if (out.path == "-") {
      if (on_stdout != nullptr) {
        throw InputError(
            fmt::format("the {} and the {} both go to standard output", on_stdout->what, out.what));
      }
      if (!stdout_taken_by.empty()) {
        throw InputError(
            fmt::format("the {} cannot go to standard output: {} goes there (name a file)",
                        out.what, stdout_taken_by));
      }
      on_stdout = &out;
      continue;
    }
    Place p{file_identity(out.path), file_identity(folder_of(out.path)), name_of(out.path)};
    if (p.file) {
      for (const NamedPath& in : inputs) {
        if (in.path.empty() || in.path == "-") continue;
        if (file_identity(in.path) == p.file) {
          throw InputError(fmt::format("the {} '{}' would overwrite the {} '{}'", out.what,
                                       out.path, in.what, in.path));
        }
      }
    }
    for (const auto& [other, place] : seen) {
      if (place.same(p)) {
        throw InputError(fmt::format("the {} '{}' and the {} '{}' are one file", out.what, out.path,
                                     other->what, other->path));
      }
    }
    // What writing it would meet, met now (after the clashes, which say more): a run of
    // minutes, or a user's program that cannot be run again, must not end in "is a directory".
    check_destination(out.path);
    probe_folder(out.path);
    seen.emplace_back(&out, p);
  }
}

}  // namespace pinbench
