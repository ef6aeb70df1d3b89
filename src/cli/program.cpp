// Starting a program as a shell would, and capturing a helper's output (program.hpp).
#include "cli/program.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "framework/errors.hpp"
#include "framework/interrupt.hpp"
#include "framework/printable.hpp"

extern char** environ;

namespace pinbench::cli {
namespace {

// While a program runs, the signals pinbench passes on are blocked in pinbench and taken in
// turn by sigtimedwait (with SIGCHLD, which says the program ended), so each is handled in the
// open, where its sender can be compared with the program: a signal is never acted on before the
// program's pid is known, and never sent back to the process that sent it. The handler below only
// catches one delivered to another thread, or in the moment the mask is lifted, and drops it.
extern "C" void drop_signal(int) {}

// How a signal reached pinbench: from a terminal (the program's process group has it too), from
// another process with kill(2) or sigqueue(3), or from pinbench itself (SIGXFSZ for a file grown
// past its limit).
bool sent_by_someone_else(const siginfo_t& info) {
  return (info.si_code == SI_USER || info.si_code == SI_QUEUE) && info.si_pid != getpid();
}

bool asks_to_stop(int sig) {
  return sig == SIGINT || sig == SIGTERM;
}

// The processes whose parent is this one, from /proc.
std::vector<pid_t> children() {
  std::vector<pid_t> out;
  const std::string me = std::to_string(getpid());
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last.
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream rest(text.substr(close + 1));
    std::string state, ppid;
    rest >> state >> ppid;
    if (ppid == me && state != "Z") out.push_back(static_cast<pid_t>(std::stol(name)));
  }
  return out;
}

// "pid 123 (sleep 30)": its command line, at most 80 characters of it.
std::string process_words(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/cmdline", std::ios::binary);
  std::string cmd((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!cmd.empty() && cmd.back() == '\0') cmd.pop_back();
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  if (cmd.size() > 80) cmd = cmd.substr(0, 77) + "...";
  return cmd.empty() ? fmt::format("pid {}", pid) : fmt::format("pid {} ({})", pid, cmd);
}

// Whether `pid` is this process's child, or a child's child, and so on: the program and what it
// started, whose signals to pinbench are addressed to pinbench (a readiness signal to $PPID).
bool descends_from_me(pid_t pid) {
  const pid_t me = getpid();
  for (int depth = 0; depth < 64 && pid > 1; ++depth) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const std::size_t close = text.rfind(')');
    if (close == std::string::npos) return false;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    long ppid = 0;
    if (!(rest >> state >> ppid)) return false;
    if (ppid == me) return true;
    pid = static_cast<pid_t>(ppid);
  }
  return false;
}

// The next of `set` to arrive within `timeout_s` seconds (0: none did), its sender in `info`.
int next_signal(const sigset_t& set, double timeout_s, siginfo_t* info) {
  const double s = std::max(0.0, timeout_s);
  timespec ts{};
  ts.tv_sec = static_cast<time_t>(s);
  ts.tv_nsec = static_cast<long>((s - static_cast<double>(ts.tv_sec)) * 1e9);
  for (;;) {
    const int sig = sigtimedwait(&set, info, &ts);
    if (sig > 0) return sig;
    if (errno != EINTR) return 0;  // EAGAIN: the time passed
  }
}

// Waits for the program (`pid`), passing on each signal that someone else sent pinbench; a
// signal from the program or what it started is theirs to pinbench, and a terminal's reached the
// program already. Returns its wait status.
int wait_for_program(pid_t pid, const sigset_t& taken) {
  for (;;) {
    int status = 0;
    const pid_t r = waitpid(pid, &status, WNOHANG);
    if (r == pid) return status;
    if (r < 0 && errno != EINTR) return 0;
    siginfo_t info{};
    const int sig = next_signal(taken, 0.1, &info);
    if (sig == 0 || sig == SIGCHLD) continue;
    if (sent_by_someone_else(info) && info.si_pid != pid && !descends_from_me(info.si_pid)) {
      kill(pid, sig);
    }
  }
}

struct DescendantWait {
  std::vector<std::string> still_running;
  int stopped_by = 0;
};

// Reaps what the program left (pinbench is their subreaper) until none is left, `wait_s` has
// passed, or a signal came: one someone else sent is passed on to those processes; SIGINT or
// SIGTERM from anywhere, a terminal's Ctrl-C included, stops the wait at once. Names those still
// running.
DescendantWait wait_for_descendants(double wait_s, const sigset_t& taken) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::max(0.0, wait_s)));
  DescendantWait out;
  int pass_on = 0;
  for (;;) {
    int status = 0;
    pid_t reaped = 0;
    while ((reaped = waitpid(-1, &status, WNOHANG)) > 0 || (reaped < 0 && errno == EINTR)) {
    }
    if (reaped < 0) return out;  // ECHILD: nothing is left
    const double left =
        std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    siginfo_t info{};
    const int sig = next_signal(taken, std::min(0.1, left), &info);
    if (sig == 0 || sig == SIGCHLD) continue;
    const bool by_process = info.si_code == SI_USER || info.si_code == SI_QUEUE;
    if (by_process && (info.si_pid == getpid() || descends_from_me(info.si_pid))) continue;
    if (by_process) pass_on = sig;  // a terminal's reached the processes in its foreground already
    if (asks_to_stop(sig)) out.stopped_by = sig;
    if (pass_on != 0 || out.stopped_by != 0) break;
  }
  for (const pid_t pid : children()) {
    if (pass_on != 0) kill(pid, pass_on);
    out.still_running.push_back(process_words(pid));
  }
  return out;
}

}  // namespace

const std::vector<int>& forwarded_signals() {
  static const std::vector<int> signals = {SIGINT,  SIGTERM,   SIGHUP,  SIGQUIT, SIGUSR1, SIGUSR2,
                                           SIGALRM, SIGVTALRM, SIGXCPU, SIGXFSZ, SIGPWR};
  return signals;
}

bool executable_file(const std::string& path) {
  struct stat st {};
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

std::string resolve_program(const std::string& name) {
  if (name.find('/') != std::string::npos) {
    if (!executable_file(name)) {
      throw InputError(fmt::format("program '{}' is not an executable file", name));
    }
    return name;
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    const std::size_t to = std::min(dirs.find(':', from), dirs.size());
    const std::string dir = to > from ? dirs.substr(from, to - from) : ".";
    if (executable_file(dir + "/" + name)) return dir + "/" + name;
    from = to + 1;
  }
  throw InputError(fmt::format("program '{}' not found on PATH", name));
}

ProgramExit run_program(const std::string& path, const std::vector<std::string>& argv,
                        const std::vector<std::string>& drop,
                        const std::vector<std::string>& extra_env, double wait_s) {
  std::vector<std::string> env;
  for (char** e = environ; *e != nullptr; ++e) {
    const std::string entry = *e;
    const auto dropped = [&](const std::string& prefix) { return entry.rfind(prefix, 0) == 0; };
    if (std::any_of(drop.begin(), drop.end(), dropped)) continue;
    env.push_back(entry);
  }
  env.insert(env.end(), extra_env.begin(), extra_env.end());
  std::vector<char*> cenv, cargv;
  for (std::string& e : env) cenv.push_back(e.data());
  cenv.push_back(nullptr);
  std::vector<std::string> args = argv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);

  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none, all;
  sigemptyset(&none);
  sigfillset(&all);
  sigdelset(&all, SIGKILL);
  sigdelset(&all, SIGSTOP);
  // pinbench ignores SIGPIPE and handles SIGINT; the program starts as a shell would start it.
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &all);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);

  // The signals pinbench passes on, and SIGCHLD, are blocked from before the spawn to after the
  // last wait and taken in turn (wait_for_program, wait_for_descendants); the program starts
  // with none blocked (above).
  sigset_t taken, before;
  sigemptyset(&taken);
  for (const int sig : forwarded_signals()) sigaddset(&taken, sig);
  sigaddset(&taken, SIGCHLD);
  struct sigaction dropping {};
  dropping.sa_handler = drop_signal;
  dropping.sa_flags = SA_RESTART;
  sigemptyset(&dropping.sa_mask);
  const std::vector<int>& forwarded = forwarded_signals();
  std::vector<struct sigaction> old(forwarded.size());
  for (std::size_t i = 0; i < forwarded.size(); ++i) sigaction(forwarded[i], &dropping, &old[i]);
  pthread_sigmask(SIG_BLOCK, &taken, &before);
  const auto restore = [&] {
    // What came after the last wait is dropped, not left to end pinbench by its default.
    siginfo_t info{};
    while (next_signal(taken, 0, &info) != 0) {
    }
    pthread_sigmask(SIG_SETMASK, &before, nullptr);
    for (std::size_t i = 0; i < forwarded.size(); ++i) sigaction(forwarded[i], &old[i], nullptr);
    prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0);
  };
  // What the program leaves running (a daemon's grandchild, a worker in the background) becomes
  // pinbench's child when its parent ends, so it can be waited for, or at least named.
  prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);

  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, path.c_str(), nullptr, &attr, cargv.data(), cenv.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    restore();
    throw InputError(fmt::format("cannot start '{}': {}", path, std::strerror(rc)));
  }
  const int status = wait_for_program(pid, taken);
  ProgramExit f;
  f.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  DescendantWait left = wait_for_descendants(wait_s, taken);
  restore();
  f.still_running = std::move(left.still_running);
  f.stopped_by = left.stopped_by;
  if (f.stopped_by != 0) {
    std::fprintf(stderr, "\npinbench: %s: stopped waiting for what the program left running\n",
                 signal_name(f.stopped_by));
  }
  if (WIFEXITED(status)) f.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  return f;
}

int exit_status_of(const ProgramExit& e) {
  if (e.stopped_by != 0) return exit_code_for_signal(e.stopped_by);
  if (e.signal != 0) return exit_code_for_signal(e.signal);
  return e.exit_status;
}

std::string capture(const std::vector<std::string>& argv) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return "";
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  std::vector<std::string> args = argv;
  std::vector<char*> cargv;
  for (std::string& a : args) cargv.push_back(a.data());
  cargv.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, args[0].c_str(), &actions, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  close(fds[1]);
  std::string out;
  if (rc == 0) {
    char buf[65536];
    ssize_t n = 0;
    while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    }
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  close(fds[0]);
  return out;
}

std::string preload_with(const std::string& library, const char* who) {
  const char* other = std::getenv("LD_PRELOAD");
  if (other == nullptr || *other == '\0') return library;
  std::fprintf(stderr, "pinbench: note: LD_PRELOAD already names %s; %s\n",
               printable(other).c_str(), who);
  return library + ":" + other;
}

DriverSight probe_cuda_driver() {
  DriverSight d;
  // Kept loaded: pinbench's own CUDA runtime would load it again to describe the GPU.
  if (dlopen(kCudaDriverLibrary, RTLD_LAZY | RTLD_LOCAL) != nullptr) {
    d.state = DriverSight::State::kLoaded;
    return d;
  }
  d.state = DriverSight::State::kMissing;
  const char* why = dlerror();
  d.error = printable(why != nullptr ? why : "the loader gave no reason");
  return d;
}

}  // namespace pinbench::cli
