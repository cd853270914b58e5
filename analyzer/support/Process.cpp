#include "analyzer/support/Process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "analyzer/support/Governor.h"

extern char** environ;

namespace lp {

namespace {

// The programs run_process has started and not yet reaped, across threads: any other child of
// this process is an orphan one of them left behind (adopted here as their subreaper).
std::mutex g_children_mutex;
std::set<pid_t> g_children;

bool g_subreaper = false;

struct ProcInfo {
  pid_t pid = 0, ppid = 0;
  uint64_t resident = 0;
};

// Every process of the system with its parent and resident memory (from /proc; a raw read, no
// allocation beyond the vector, so it works under memory pressure).
std::vector<ProcInfo> processes() {
  std::vector<ProcInfo> out;
  DIR* d = opendir("/proc");
  if (!d) return out;
  const uint64_t page = static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  while (dirent* e = readdir(d)) {
    char* end = nullptr;
    const long pid = std::strtol(e->d_name, &end, 10);
    if (pid <= 0 || *end) continue;
    char path[64], buf[512];
    std::snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue;
    const ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) continue;
    buf[n] = '\0';
    // pid (comm) state ppid ...: comm may hold spaces and parentheses; the last ')' ends it.
    const char* close_paren = std::strrchr(buf, ')');
    if (!close_paren) continue;
    char state = 0;
    long ppid = 0;
    if (std::sscanf(close_paren + 1, " %c %ld", &state, &ppid) != 2) continue;
    ProcInfo p;
    p.pid = static_cast<pid_t>(pid);
    p.ppid = static_cast<pid_t>(ppid);
    std::snprintf(path, sizeof path, "/proc/%ld/statm", pid);
    const int fm = open(path, O_RDONLY | O_CLOEXEC);
    if (fm >= 0) {
      const ssize_t m = read(fm, buf, sizeof buf - 1);
      close(fm);
      unsigned long long size = 0, resident = 0;
      if (m > 0 && (buf[m] = '\0', std::sscanf(buf, "%llu %llu", &size, &resident) == 2)) p.resident = resident * page;
    }
    out.push_back(p);
  }
  closedir(d);
  return out;
}

// Adds to `tree` every process whose parent is in it (and, as orphans adopted by this process,
// every child of ours no run owns); returns the tree's resident memory.
uint64_t follow(std::set<pid_t>& tree) {
  const std::vector<ProcInfo> all = processes();
  const pid_t self = getpid();
  std::set<pid_t> owned;
  {
    std::lock_guard<std::mutex> lock(g_children_mutex);
    owned = g_children;
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const ProcInfo& p : all)
      if (!tree.count(p.pid) && (tree.count(p.ppid) || (g_subreaper && p.ppid == self && !owned.count(p.pid)))) {
        tree.insert(p.pid);
        grew = true;
      }
  }
  uint64_t resident = 0;
  for (const ProcInfo& p : all)
    if (tree.count(p.pid)) resident += p.resident;
  return resident;
}

// Kills every process of the tree (and its process group) and reaps the ones adopted here.
void kill_tree(const std::set<pid_t>& tree) {
  for (pid_t p : tree) {
    kill(-p, SIGKILL);
    kill(p, SIGKILL);
  }
}

void reap_orphans() {
  if (!g_subreaper) return;
  std::set<pid_t> owned;
  {
    std::lock_guard<std::mutex> lock(g_children_mutex);
    owned = g_children;
  }
  const pid_t self = getpid();
  for (const ProcInfo& p : processes())
    if (p.ppid == self && !owned.count(p.pid)) {
      kill(p.pid, SIGKILL);
      int status = 0;
      waitpid(p.pid, &status, 0);
    }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessLimits& limits,
                          const std::vector<std::string>& env, const std::string& working_dir) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argument vector");
  ProcessResult r;
  const std::string program = argv[0].find('/') == std::string::npos ? find_on_path(argv[0]) : argv[0];
  if (program.empty() || access(program.c_str(), X_OK) != 0) {
    r.exit_code = 127;
    r.output = argv[0] + ": cannot be started\n";
    return r;
  }
  // Everything the child needs is built before fork: between fork and exec it only calls
  // async-signal-safe functions.
  std::vector<char*> args, envp;
  for (const std::string& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  for (char** e = environ; *e; ++e) envp.push_back(*e);
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  rlimit fsize{}, data{};
  if (limits.file_bytes) fsize.rlim_cur = fsize.rlim_max = static_cast<rlim_t>(*limits.file_bytes);
  // Each process's data (heap and private writable mappings) stops at the memory cap as it grows,
  // between two looks at the tree's total.
  if (limits.memory_bytes) data.rlim_cur = data.rlim_max = static_cast<rlim_t>(*limits.memory_bytes);
  pid_t pid = 0;
  {
    std::lock_guard<std::mutex> lock(g_children_mutex);
    pid = fork();
    if (pid == 0) {
      setsid();  // a session of its own: its terminal signals and process group are its own
      if (!working_dir.empty() && chdir(working_dir.c_str()) != 0) _exit(127);
      if (limits.file_bytes) setrlimit(RLIMIT_FSIZE, &fsize);
      if (limits.memory_bytes) setrlimit(RLIMIT_DATA, &data);
      const int in = open("/dev/null", O_RDONLY);
      if (in >= 0) dup2(in, 0);
      dup2(fds[1], 1);
      dup2(fds[1], 2);
      execve(program.c_str(), args.data(), envp.data());
      _exit(127);
    }
    if (pid > 0) g_children.insert(pid);
  }
  close(fds[1]);
  if (pid < 0) {
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
  std::set<pid_t> tree{pid};
  auto watch = [&]() -> bool {  // false once a limit is reached
    if (deadline && Clock::now() >= *deadline) {
      r.timed_out = true;
      return false;
    }
    const uint64_t resident = follow(tree);
    r.peak_memory_bytes = std::max(r.peak_memory_bytes, resident);
    if (limits.memory_bytes && resident > *limits.memory_bytes) {
      r.out_of_memory = true;
      return false;
    }
    return true;
  };
  char buf[65536];
  bool stopped = false, exited = false;
  int status = 0;
  auto drain = [&](int wait_ms) {  // false once the pipe is closed or the output cap reached
    pollfd p{fds[0], POLLIN, 0};
    const int n = poll(&p, 1, wait_ms);
    if (n <= 0) return n == 0 || errno == EINTR;
    const ssize_t got = read(fds[0], buf, sizeof buf);
    if (got <= 0) return false;  // every writer closed the pipe
    const size_t room = max_output - std::min(max_output, r.output.size());
    r.output.append(buf, std::min(room, static_cast<size_t>(got)));
    if (static_cast<size_t>(got) > room) {
      r.truncated = stopped = true;
      return false;
    }
    return true;
  };
  // Until the program exits (what it started may keep the pipe open: the run ends with the program).
  for (bool open_pipe = true; !stopped && !exited;) {
    if (open_pipe) open_pipe = drain(20);
    else usleep(20000);
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) exited = true;
    else if (!stopped && !watch()) stopped = true;
  }
  // Whatever it started and left behind (a daemon, a process that left its session) goes with it.
  follow(tree);
  if (exited) tree.erase(pid);
  kill_tree(tree);
  if (!exited)
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  // Then what was printed before: every writer is gone, so the pipe ends.
  while (exited && !stopped && drain(0)) {
  }
  close(fds[0]);
  {
    std::lock_guard<std::mutex> lock(g_children_mutex);
    g_children.erase(pid);
  }
  reap_orphans();
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

ProcessLimits budget_limits(std::optional<uint64_t> file_bytes) {
  ProcessLimits l;
  if (const auto left = time_left_ms()) l.timeout_s = static_cast<double>(*left) / 1000.0;
  l.memory_bytes = current_budget().memory_bytes;
  l.file_bytes = file_bytes;
  return l;
}

void adopt_orphans() {
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0) g_subreaper = true;
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
