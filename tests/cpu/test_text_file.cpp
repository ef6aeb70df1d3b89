// Outputs written whole or not at all, never over something that is not a regular file, never
// through a link, no temporary file left behind; standard output's failures; and the registry
// a signal handler empties.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "fixtures.hpp"
#include "framework/errors.hpp"
#include "framework/text_file.hpp"

namespace pinbench {
namespace {

namespace fs = std::filesystem;

std::string write_error(const std::string& path, const std::string& text = "x\n") {
  try {
    write_text_file(path, text);
  } catch (const InputError& e) {
    return e.what();
  }
  return "(written)";
}

// Every entry of `dir` but the ones named.
std::vector<std::string> entries(const std::string& dir) {
  std::vector<std::string> names;
  for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
    names.push_back(e.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

TEST(TextFile, WritesAndReplacesARegularFileLeavingNoTemporary) {
  const std::string dir = test::temp_dir();
  write_text_file(dir + "/a.csv", "one\n");
  EXPECT_EQ(test::read_file(dir + "/a.csv"), "one\n");
  ::chmod((dir + "/a.csv").c_str(), 0640);
  write_text_file(dir + "/a.csv", "two\n");
  EXPECT_EQ(test::read_file(dir + "/a.csv"), "two\n");
  struct stat st {};
  ASSERT_EQ(::stat((dir + "/a.csv").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0640u);  // the replaced file's mode is kept
  EXPECT_EQ(entries(dir), std::vector<std::string>{"a.csv"});
  EXPECT_EQ(registered_temporaries(), 0u);
  // A bare name lands in the working folder.
  const fs::path here = fs::current_path();
  fs::current_path(dir);
  write_text_file("b.md", "b\n");
  fs::current_path(here);
  EXPECT_EQ(test::read_file(dir + "/b.md"), "b\n");
}

TEST(TextFile, RefusesWhatIsNotARegularFile) {
  const std::string dir = test::temp_dir();
  fs::create_directory(dir + "/sub");
  EXPECT_EQ(write_error(dir + "/sub"),
            "'" + dir +
                "/sub' is a directory, not a regular file: pinbench writes reports only to "
                "regular files");
  EXPECT_EQ(write_error("/dev/null"),
            "'/dev/null' is a character device, not a regular file: pinbench writes reports only "
            "to regular files");
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);
  EXPECT_EQ(write_error(dir + "/fifo"),
            "'" + dir +
                "/fifo' is a fifo, not a regular file: pinbench writes reports only to regular "
                "files");
  const int s = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(s, 0);
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  const std::string sock = dir + "/sock";
  ASSERT_LT(sock.size(), sizeof addr.sun_path);
  std::snprintf(addr.sun_path, sizeof addr.sun_path, "%s", sock.c_str());
  ASSERT_EQ(::bind(s, reinterpret_cast<const sockaddr*>(&addr), sizeof addr), 0);
  EXPECT_EQ(write_error(sock),
            "'" + sock +
                "' is a socket, not a regular file: pinbench writes reports only to "
                "regular files");
  ::close(s);
  EXPECT_TRUE(fs::is_socket(sock));
  EXPECT_TRUE(fs::is_fifo(dir + "/fifo"));
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"fifo", "sock", "sub"}));
}

TEST(TextFile, RefusesALinkAndLeavesWhatItNames) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/precious", "keep\n");
  fs::create_symlink(dir + "/precious", dir + "/o.csv");
  EXPECT_EQ(write_error(dir + "/o.csv"),
            "'" + dir +
                "/o.csv' is a symbolic link: pinbench does not write through links (name the "
                "file itself)");
  EXPECT_EQ(test::read_file(dir + "/precious"), "keep\n");
  fs::create_symlink(dir + "/absent", dir + "/dangling.csv");
  EXPECT_NE(write_error(dir + "/dangling.csv").find("is a symbolic link"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/absent"));
  // The old fixed name is no longer used: a link planted there is never written through.
  fs::create_symlink(dir + "/precious", dir + "/r.csv.tmp");
  write_text_file(dir + "/r.csv", "report\n");
  EXPECT_EQ(test::read_file(dir + "/precious"), "keep\n");
  EXPECT_EQ(test::read_file(dir + "/r.csv"), "report\n");
}

TEST(TextFile, AFailedWriteLeavesNoTemporaryAndTheOldFile) {
  const std::string dir = test::temp_dir();
  EXPECT_EQ(write_error(dir + "/no/such/folder/r.html"),
            "cannot write '" + dir + "/no/such/folder/r.html': No such file or directory");
  if (::geteuid() != 0) {
    fs::create_directory(dir + "/ro");
    fs::permissions(dir + "/ro", fs::perms::owner_read | fs::perms::owner_exec);
    EXPECT_EQ(write_error(dir + "/ro/r.csv"),
              "cannot write '" + dir + "/ro/r.csv': Permission denied");
  }
  EXPECT_EQ(registered_temporaries(), 0u);
}

TEST(TextFile, AFullDiskIsAnErrorAndLeavesNothing) {
  // A small tmpfs is not available to every test runner; RLIMIT_FSIZE makes any folder "full"
  // for one child process.
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/r.csv", "old\n");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit lim {
      1000, 1000
    };
    ::setrlimit(RLIMIT_FSIZE, &lim);
    const std::string e = write_error(dir + "/r.csv", std::string(5000, 'x'));
    _exit(e.rfind("writing '" + dir + "/r.csv' failed: File too large", 0) == 0 ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  EXPECT_EQ(test::read_file(dir + "/r.csv"), "old\n");
  EXPECT_EQ(entries(dir), std::vector<std::string>{"r.csv"});
}

TEST(TextFile, SeveralOutputsAreRenamedOnlyWhenAllWereWritten) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/a.md", "old a\n");
  fs::create_directory(dir + "/b.csv");
  EXPECT_THROW(write_text_files({{dir + "/a.md", "new a\n"}, {dir + "/b.csv", "b\n"}}), InputError);
  EXPECT_EQ(test::read_file(dir + "/a.md"), "old a\n");
  EXPECT_EQ(entries(dir), (std::vector<std::string>{"a.md", "b.csv"}));
  write_text_files({{dir + "/a.md", "new a\n"}, {dir + "/c.csv", "c\n"}});
  EXPECT_EQ(test::read_file(dir + "/a.md"), "new a\n");
  EXPECT_EQ(test::read_file(dir + "/c.csv"), "c\n");
  EXPECT_EQ(registered_temporaries(), 0u);
}

TEST(TextFile, ReadInputFileRefusesDirectoriesAndEndlessStreams) {
  const std::string dir = test::temp_dir();
  auto error_of = [](const std::string& path, std::uint64_t cap) {
    try {
      read_input_file(path, cap, "nsys export");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(read)");
  };
  EXPECT_EQ(error_of(dir, 100), "'" + dir + "' is a directory, not a nsys export");
  EXPECT_EQ(error_of(dir + "/absent", 100), "cannot open nsys export '" + dir + "/absent'");
  test::write_file(dir + "/x.csv", std::string(101, 'a'));
  EXPECT_EQ(error_of(dir + "/x.csv", 100),
            "nsys export '" + dir + "/x.csv' is larger than 0.0 MiB, the most pinbench reads");
  EXPECT_EQ(read_input_file(dir + "/x.csv", 101, "nsys export"), std::string(101, 'a'));
  EXPECT_EQ(error_of("/dev/zero", 3 << 20),
            "'/dev/zero' is a character device, not a regular file: pinbench reads a nsys "
            "export only from a file");
  // A pipe is refused too, even one that would end: only files are read.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::write(fds[1], "a,b\n", 4), 4);
  ::close(fds[1]);
  const std::string pipe = "/proc/self/fd/" + std::to_string(fds[0]);
  EXPECT_EQ(error_of(pipe, 100), "'" + pipe +
                                     "' is a fifo, not a regular file: pinbench reads a nsys "
                                     "export only from a file");
  ::close(fds[0]);
}

// Runs `f` in a child whose standard output is `fd`; returns what the child exits with.
int with_stdout(int fd, int (*f)()) {
  std::fflush(stdout);
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(fd, STDOUT_FILENO);
    _exit(f());
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status);
}

// 0 when `write` throws exactly the InputError a full disk under standard output gives; 1 for
// anything else, no exception included.
template <typename Write>
int full_disk_refusal(Write write) {
  try {
    write();
  } catch (const InputError& e) {
    return std::string(e.what()) == "cannot write to standard output: No space left on device" ? 0
                                                                                               : 1;
  }
  return 1;
}

TEST(TextFile, StandardOutputFailuresAreErrorsButAClosedPipeIsNot) {
  const int full = ::open("/dev/full", O_WRONLY);
  ASSERT_GE(full, 0);
  // 0: the exact InputError; 1: anything else.
  EXPECT_EQ(with_stdout(full, [] { return full_disk_refusal([] { write_stdout("report\n"); }); }),
            0);
  // Text printed with printf and lost to the full disk is found by flush_stdout.
  EXPECT_EQ(with_stdout(full,
                        [] {
                          std::printf("written later\n");
                          return full_disk_refusal([] { flush_stdout(); });
                        }),
            0);
  ::close(full);

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);  // the reader is gone
  EXPECT_EQ(with_stdout(fds[1],
                        [] {
                          ::signal(SIGPIPE, SIG_IGN);
                          if (write_stdout("report\n") != StdoutWrite::kClosed) return 1;
                          try {
                            write_text_file("-", "report\n");
                          } catch (const StdoutClosed&) {
                            return 0;
                          }
                          return 1;
                        }),
            0);
  ::close(fds[1]);
}

TEST(TextFile, TheRegistryRemovesTemporariesInFlight) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/.a.tmp", "a");
  test::write_file(dir + "/.b.tmp", "b");
  const int a = register_temporary((dir + "/.a.tmp").c_str());
  const int b = register_temporary((dir + "/.b.tmp").c_str());
  ASSERT_GE(a, 0);
  ASSERT_GE(b, 0);
  EXPECT_NE(a, b);
  EXPECT_EQ(registered_temporaries(), 2u);
  unregister_temporary(b);
  EXPECT_EQ(registered_temporaries(), 1u);
  EXPECT_EQ(remove_temporaries_now(), 1u);
  EXPECT_FALSE(fs::exists(dir + "/.a.tmp"));
  EXPECT_TRUE(fs::exists(dir + "/.b.tmp"));  // written in full and unregistered: kept
  unregister_temporary(a);
  EXPECT_EQ(registered_temporaries(), 0u);
  EXPECT_EQ(register_temporary(std::string(kMaxTemporaryPath, 'x').c_str()), -1);
  unregister_temporary(-1);  // ignored

  std::vector<int> slots;
  for (std::size_t i = 0; i < kMaxTemporaries; ++i) slots.push_back(register_temporary("/x"));
  EXPECT_EQ(register_temporary("/x"), -1);  // full
  for (int s : slots) unregister_temporary(s);
  EXPECT_EQ(registered_temporaries(), 0u);
}

TEST(TextFile, ASignalHandlerRemovesTheTemporaryOfAnInterruptedWrite) {
  const std::string dir = test::temp_dir();
  const std::string tmp = dir + "/.r.csv.inflight.tmp";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    struct sigaction sa {};
    sa.sa_handler = [](int sig) {
      remove_temporaries_now();
      _exit(128 + sig);
    };
    ::sigaction(SIGTERM, &sa, nullptr);
    register_temporary(tmp.c_str());
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || ::write(fd, "half", 4) != 4) _exit(1);
    ::raise(SIGTERM);
    _exit(2);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  EXPECT_FALSE(fs::exists(tmp));
  EXPECT_TRUE(entries(dir).empty());
}

// What writing would refuse is refused before anything runs: a run of minutes, or a user's
// program, must not end in "is a directory".
TEST(TextFile, AnOutputThatCannotBeWrittenIsRefusedBeforehand) {
  const std::string dir = test::temp_dir();
  const auto error_of = [&](const std::string& path) {
    try {
      check_outputs({}, {{path, "run record"}}, "");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(fine)");
  };
  EXPECT_EQ(error_of(dir + "/run.json"), "(fine)");
  EXPECT_EQ(error_of(dir),
            "'" + dir +
                "' is a directory, not a regular file: pinbench writes reports only to "
                "regular files");
  EXPECT_EQ(error_of(dir + "/no/such/run.json"),
            "cannot write '" + dir + "/no/such/run.json': no file can be created in '" + dir +
                "/no/such': No such file or directory");
  // A regular file in a folder where nothing can be created passes access(2) as root; the
  // check creates a file there, as the write would.
  EXPECT_NE(error_of("/proc/version").find("cannot write '/proc/version': no file can be created"),
            std::string::npos);
  ::mkfifo((dir + "/fifo").c_str(), 0600);
  EXPECT_NE(error_of(dir + "/fifo").find("is a fifo, not a regular file"), std::string::npos);
  fs::create_symlink(dir + "/elsewhere", dir + "/link.json");
  EXPECT_NE(error_of(dir + "/link.json").find("is a symbolic link"), std::string::npos);
  EXPECT_FALSE(fs::exists(dir + "/run.json"));  // checked, not written
}

TEST(TextFile, OutputsAreComparedWithInputsByIdentity) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/run.json", "{}");
  test::write_file(dir + "/run.trace.json", "{}");
  fs::create_symlink(dir + "/run.trace.json", dir + "/link.html");
  fs::create_hard_link(dir + "/run.json", dir + "/hard.csv");
  auto error_of = [&](const std::vector<NamedPath>& outputs) {
    try {
      check_outputs({{dir + "/run.json", "run record"}, {dir + "/run.trace.json", "trace"}},
                    outputs, "");
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(fine)");
  };
  EXPECT_EQ(error_of({{dir + "/run.trace.json", "HTML report"}}),
            "the HTML report '" + dir + "/run.trace.json' would overwrite the trace '" + dir +
                "/run.trace.json'");
  EXPECT_EQ(error_of({{dir + "/link.html", "HTML report"}}),
            "the HTML report '" + dir + "/link.html' would overwrite the trace '" + dir +
                "/run.trace.json'");
  EXPECT_EQ(error_of({{dir + "/hard.csv", "CSV report"}}),
            "the CSV report '" + dir + "/hard.csv' would overwrite the run record '" + dir +
                "/run.json'");
  EXPECT_EQ(error_of({{dir + "/x.html", "HTML report"}, {dir + "/./x.html", "CSV report"}}),
            "the CSV report '" + dir + "/./x.html' and the HTML report '" + dir +
                "/x.html' are one file");
  EXPECT_EQ(error_of({{"-", "Markdown report"}, {"-", "CSV report"}}),
            "the Markdown report and the CSV report both go to standard output");
  EXPECT_EQ(error_of({{dir + "/x.html", "HTML report"},
                      {"", "Markdown report"},
                      {dir + "/x.csv", "CSV report"},
                      {"-", "JSON"}}),
            "(fine)");
  EXPECT_EQ(file_identity(dir + "/absent"), std::nullopt);
  EXPECT_EQ(file_identity(dir + "/hard.csv"), file_identity(dir + "/run.json"));
}

// Standard output is an output only where nothing else writes there; pinbench's own files are
// inputs of every command; the check leaves nothing behind in the folder.
TEST(TextFile, TheOutputPolicyKeepsStandardOutputAndPinbenchsOwnFiles) {
  const std::string dir = test::temp_dir();
  test::write_file(dir + "/libpinbench_x.so", "library");
  const auto error_of = [&](const std::vector<NamedPath>& outputs, const std::string& taken) {
    try {
      check_outputs({}, outputs, taken);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("(fine)");
  };
  EXPECT_EQ(error_of({{"-", "fleet record"}}, "the fleet's table"),
            "the fleet record cannot go to standard output: the fleet's table goes there (name a "
            "file)");
  EXPECT_EQ(error_of({{"-", "CSV report"}}, ""), "(fine)");
  protect_from_outputs({{dir + "/libpinbench_x.so", "pinbench library"}});
  EXPECT_EQ(error_of({{dir + "/libpinbench_x.so", "run record"}}, ""),
            "the run record '" + dir + "/libpinbench_x.so' would overwrite the pinbench library '" +
                dir + "/libpinbench_x.so'");
  protect_from_outputs({});
  EXPECT_EQ(error_of({{dir + "/new.json", "run record"}}, ""), "(fine)");
  EXPECT_EQ(entries(dir).size(), 1u);
}

}  // namespace
}  // namespace pinbench
