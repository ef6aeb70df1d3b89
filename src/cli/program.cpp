// Starting a program as a shell would, and capturing a helper's output (program.hpp).
#include "cli/program.hpp"

#include <fcntl.h>
#include <spawn.h>
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

#include <fmt/format.h>

#include "framework/errors.hpp"

extern char** environ;

namespace pinbench::cli {
namespace {

// The child of a terminal gets the terminal's SIGINT itself; a signal sent to pinbench alone (by
// kill, a job runner's SIGTERM) is passed on, so the program ends the way it would without us.
volatile sig_atomic_t g_child = 0;
extern "C" void forward_signal(int sig, siginfo_t* info, void*) {
  if (g_child > 0 && info != nullptr && (info->si_code == SI_USER || info->si_code == SI_QUEUE) &&
      info->si_pid != g_child) {
    kill(g_child, sig);
  }
}

}  // namespace

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
                        const std::vector<std::string>& extra_env) {
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

  struct sigaction fwd {
  }, old[4];
  fwd.sa_sigaction = forward_signal;
  fwd.sa_flags = SA_SIGINFO | SA_RESTART;
  sigemptyset(&fwd.sa_mask);
  const int forwarded[4] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};
  for (int i = 0; i < 4; ++i) sigaction(forwarded[i], &fwd, &old[i]);

  const auto t0 = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, path.c_str(), nullptr, &attr, cargv.data(), cenv.data());
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    for (int i = 0; i < 4; ++i) sigaction(forwarded[i], &old[i], nullptr);
    throw InputError(fmt::format("cannot start '{}': {}", path, std::strerror(rc)));
  }
  g_child = pid;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  ProgramExit f;
  f.wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  g_child = 0;
  for (int i = 0; i < 4; ++i) sigaction(forwarded[i], &old[i], nullptr);
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
  std::fprintf(stderr, "pinbench: note: LD_PRELOAD already names %s; %s\n", other, who);
  return library + ":" + other;
}

}  // namespace pinbench::cli
