// Files in and out, safely: inputs read from regular files only and with a cap (a FIFO or a
// device that never ends is refused before reading), outputs written whole or not at all, never
// through a link or over something that is not a regular file, and standard output whose failures
// are errors. docs/record-schema.md, "Limits" and "Writing", describes the rules for users.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace pinbench {

// ---- Reading -----------------------------------------------------------------------------

// Reads the whole of `path`, at most `max_bytes`; `what` names the kind of input in messages
// ("run record", "nsys export"). Only a regular file is read, its size checked first; a FIFO
// (opened without waiting for a writer), a device or a socket is refused at once, and a file that
// grows while read is cut off at `max_bytes` + 1 bytes. Throws InputError with one of:
//   "cannot open WHAT 'PATH'"
//   "'PATH' is a directory, not a WHAT"
//   "'PATH' is a fifo, not a regular file: pinbench reads a WHAT only from a file" (or a
//   character device, a block device, a socket)
//   "WHAT 'PATH' is larger than N MiB, the most pinbench reads"
//   "cannot read WHAT 'PATH': REASON"
std::string read_input_file(const std::string& path, std::uint64_t max_bytes,
                            const std::string& what);

// ---- Writing files -----------------------------------------------------------------------

// Writes `text` to `path` whole or not at all: into a temporary file created exclusively
// (O_CREAT | O_EXCL | O_NOFOLLOW, a random name ".NAME.XXXXXXXXXXXX.tmp", mode 0666 less the
// umask, or the mode of the file it replaces) in `path`'s folder, then renamed over `path`.
// The temporary file is in the registry below while it exists and is removed on any failure.
// `-` writes to standard output (write_stdout; a closed pipe throws StdoutClosed).
// Throws InputError, one line naming the path, when:
//   - `path` exists and is not a regular file: "'PATH' is a directory|character device|block
//     device|fifo|socket, not a regular file: pinbench writes reports only to regular files";
//   - `path` is a symbolic link: "'PATH' is a symbolic link: pinbench does not write through
//     links (name the file itself)". A planted link must not redirect a root-run pinbench
//     into a file of someone else's choosing, and replacing the link silently would surprise;
//   - the folder cannot be written ("cannot write 'PATH': REASON"), a write fails ("writing
//     'PATH' failed: REASON", e.g. No space left on device), or the rename fails ("cannot move
//     the file into place at 'PATH': REASON").
void write_text_file(const std::string& path, std::string_view text);

// Several outputs of one command, as close to all-or-nothing as files allow: every file is
// written to its temporary first, and only when all of them succeeded are they renamed into
// place (in order). A failure before the renames leaves every destination as it was.
struct OutputFile {
  std::string path;  // "-" for standard output, written after the renames
  std::string text;
};
void write_text_files(const std::vector<OutputFile>& files);

// ---- Standard output ---------------------------------------------------------------------

// Thrown by write_text_file("-") when standard output is a closed pipe (EPIPE), as when the
// output is piped into `head`. Not an InputError: the reader chose to stop, so the CLI should
// end quietly (nothing on stderr; exit 0 is the suggestion). Needs SIGPIPE ignored (else the
// process dies of the signal first, which is also quiet, with status 141).
class StdoutClosed : public std::runtime_error {
 public:
  StdoutClosed() : std::runtime_error("standard output was closed") {}
};

enum class StdoutWrite {
  kWritten,  // every byte went out
  kClosed,   // EPIPE: the reading end is gone
};

// Flushes stdio's buffer, then writes `text` to file descriptor 1, retrying short writes and
// EINTR. Returns kClosed on EPIPE; throws InputError("cannot write to standard output: REASON")
// on any other failure (ENOSPC from /dev/full, EIO, a closed descriptor).
StdoutWrite write_stdout(std::string_view text);

// Makes `stdout` a stdio stream over file descriptor 1 that remembers why a write failed, so
// that text printed with printf and lost to a closed pipe or a full disk is reported by its
// reason (EPIPE, ENOSPC) and not as "unknown error". Call it first thing in main().
void install_stdout_writer();

// Flushes stdio's stdout and reports its state: for the CLI to call once before exiting, so
// that text printed with printf and lost to a full disk is an error, not exit 0. Same outcomes
// as write_stdout.
StdoutWrite flush_stdout();

// ---- Temporary files in flight, for a signal handler -------------------------------------

// The registry of temporary files being written, so a SIGINT or SIGTERM handler can remove
// them. Fixed slots of fixed size, no allocation and no locks: safe to read from a handler.
// write_text_file registers its temporaries itself; other writers may use it too.
constexpr std::size_t kMaxTemporaries = 64;
constexpr std::size_t kMaxTemporaryPath = 4096;

// Adds `path` and returns its slot, or -1 when every slot is taken or the path is too long
// (the file is then written unprotected, as before the registry).
int register_temporary(const char* path) noexcept;
// Forgets a slot (after the file was renamed or removed). A slot of -1 is ignored.
void unregister_temporary(int slot) noexcept;
// Unlinks every registered path. Async-signal-safe (atomics and unlink(2) only): call it from
// the SIGINT/SIGTERM handler, then _exit or re-raise. Returns how many it unlinked.
std::size_t remove_temporaries_now() noexcept;
// How many paths are registered now.
std::size_t registered_temporaries() noexcept;

// ---- Outputs against inputs --------------------------------------------------------------

// A file a command reads or writes, and how messages name it: {"run.json", "run record"},
// {"out.html", "HTML report"}.
struct NamedPath {
  std::string path;
  std::string what;
};

// The identity of a file (st_dev, st_ino), following links; nothing when it does not exist.
struct FileIdentity {
  std::uint64_t device = 0;
  std::uint64_t inode = 0;
  bool operator==(const FileIdentity& o) const { return device == o.device && inode == o.inode; }
};
std::optional<FileIdentity> file_identity(const std::string& path);

// The one output policy, for every command and every output it writes. Refuses, before anything
// is read, run or written:
//   - an output that is one of the inputs (by file identity, so through links, `./x` and hard
//     links alike): a record read, a program run and the files its arguments name, and always
//     the files protect_from_outputs() named (pinbench's own program and libraries);
//   - two outputs on one file (by identity when it exists, else by the identity of the folder and
//     the name), and two outputs to standard output;
//   - an output on standard output (`-`) where something else writes there: `stdout_taken_by`
//     says what ("the command's tables", "the program's own output"); "" where nothing does;
//   - an output write_text_file would refuse (a directory, a link, a device, a fifo), or one in a
//     folder where no file can be created (missing, read-only, /proc): a file is created there
//     and removed, so the check is the write's own.
// Throws InputError with one of:
//   "the OUT.WHAT 'OUT.PATH' would overwrite the IN.WHAT 'IN.PATH'"
//   "the B.WHAT 'B.PATH' and the A.WHAT 'A.PATH' are one file"
//   "the A.WHAT and the B.WHAT both go to standard output"
//   "the WHAT cannot go to standard output: TAKEN_BY goes there (name a file)"
//   write_text_file's own messages: "'PATH' is a directory, not a regular file: ...",
//   "'PATH' is a symbolic link: ...", and "cannot write 'PATH': no file can be created in
//   'FOLDER': REASON"
// Outputs with an empty path are skipped.
void check_outputs(const std::vector<NamedPath>& inputs, const std::vector<NamedPath>& outputs,
                   const std::string& stdout_taken_by);

// Files that no output of this process may replace, added to every check_outputs' inputs: the
// CLI names pinbench's program and libraries here once, at start.
void protect_from_outputs(std::vector<NamedPath> files);

}  // namespace pinbench
