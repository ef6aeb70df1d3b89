// Starting a program as a shell would, and capturing a helper's output (program.hpp).
#include "cli/program.hpp"

#include <dlfcn.h>
#include <fcntl.h>
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
#include "framework/printable.hpp"

extern char** environ;

namespace pinbench::cli {
namespace {

// The child of a terminal gets the terminal's SIGINT itself; a signal sent to pinbench alone (by
// kill, a job runner's SIGTERM) is passed on, so the program ends the way it would without us.
// Once the program is gone, a signal is remembered instead: the wait for what it left running
// passes it on to those processes and stops.
volatile sig_atomic_t g_child = 0;
volatile sig_atomic_t g_pending = 0;
extern "C" void forward_signal(int sig, siginfo_t* info, void*) {
  // Sent by someone else: not a terminal's (the program has it too), nor pinbench's own
  // (SIGXFSZ for a file grown past its limit).
  if (info == nullptr || (info->si_code != SI_USER && info->si_code != SI_QUEUE) ||
      info->si_pid == getpid()) {
    return;
  }
  if (g_child > 0 && info->si_pid != g_child) {
    kill(g_child, sig);
  } else if (g_child == 0) {
    g_pending = sig;
  }
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

// Reaps what the program left (pinbench is their subreaper) until none is left, `wait_s` has
// passed, or a signal came; returns those still running.
std::vector<std::string> wait_for_descendants(double wait_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(std::max(0.0, wait_s)));
  for (;;) {
    int status = 0;
    const pid_t reaped = waitpid(-1, &status, WNOHANG);
    if (reaped > 0) continue;
    if (reaped < 0 && errno == EINTR) continue;
    if (reaped < 0) return {};  // ECHILD: nothing is left
    if (g_pending != 0 || std::chrono::steady_clock::now() >= deadline) break;
    usleep(10000);
  }
  std::vector<std::string> left;
  for (const pid_t pid : children()) {
    if (g_pending != 0) kill(pid, g_pending);
    left.push_back(process_words(pid));
  }
  return left;
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

  struct sigaction fwd {};
  fwd.sa_sigaction = forward_signal;
  fwd.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&fwd.sa_mask);
  const std::vector<int>& forwarded = forwarded_signals();
  std::vector<struct sigaction> old(forwarded.size());
  g_pending = 0;
  for (std::size_t i = 0; i < forwarded.size(); ++i) sigaction(forwarded[i], &fwd, &old[i]);
  const auto restore = [&] {
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
  g_child = pid;
  // A signal that came between the handlers and the spawn is the program's too.
  if (g_pending != 0) {
    kill(pid, g_pending);
    g_pending = 0;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProgramExit f;
  f.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  g_child = 0;
  f.still_running = wait_for_descendants(wait_s);
  restore();
  if (WIFEXITED(status)) f.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) f.signal = WTERMSIG(status);
  return f;
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
