#include "analyzer/support/Process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace lp {

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits,
                          const std::vector<std::string>& env) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argument vector");
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("pipe failed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  posix_spawn_file_actions_addclose(&actions, fds[0]);
  posix_spawn_file_actions_addclose(&actions, fds[1]);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
  posix_spawnattr_setpgroup(&attr, 0);  // a group of its own: the program's children die with it
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  ProcessResult r;
  if (rc != 0) {
    close(fds[0]);
    r.exit_code = 127;
    r.output = argv[0] + ": cannot be started\n";
    return r;
  }
  using Clock = std::chrono::steady_clock;
  std::optional<Clock::time_point> deadline;
  if (limits.timeout_s)
    deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*limits.timeout_s));
  const size_t max_output = limits.max_output.value_or(std::string().max_size());
  char buf[65536];
  for (;;) {
    int wait_ms = 1000;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - Clock::now());
      if (left.count() <= 0) {
        r.timed_out = true;
        break;
      }
      wait_ms = static_cast<int>(std::min<long long>(left.count(), wait_ms));
    }
    pollfd p{fds[0], POLLIN, 0};
    const int n = poll(&p, 1, wait_ms);
    if (n < 0 && errno != EINTR) break;
    if (n <= 0) continue;
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) break;  // every writer closed the pipe
    const size_t room = max_output - std::min(max_output, r.output.size());
    r.output.append(buf, std::min(room, static_cast<size_t>(got)));
    if (static_cast<size_t>(got) > room) {
      r.truncated = true;
      break;
    }
  }
  close(fds[0]);
  int status = 0;
  // A program that closed its output may still run: it gets the time that is left.
  while (!r.timed_out && !r.truncated) {
    const pid_t w = waitpid(pid, &status, deadline ? WNOHANG : 0);
    if (w == pid || (w < 0 && errno != EINTR)) break;
    if (deadline && Clock::now() >= *deadline) r.timed_out = true;
    else if (deadline) usleep(10000);
  }
  if (r.timed_out || r.truncated) {
    kill(-pid, SIGKILL);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    kill(-pid, SIGKILL);  // whatever the group left behind (a daemonized grandchild) goes too
  }
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

std::string find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  for (std::string dir; std::getline(dirs, dir, ':');) {
    std::string full = (dir.empty() ? "." : dir) + "/" + program;
    if (access(full.c_str(), X_OK) == 0) return full;
  }
  return {};
}

}  // namespace lp
