// count_allocations: the counting build run as a child process (see counting_pass.hpp).
#include "counting_pass.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <sstream>
#include <vector>

#include <nlohmann/json.hpp>

extern char** environ;

namespace cpp_engine {

namespace {

std::string number_text(double value) {
    std::ostringstream text;
    text.precision(17);
    text << value;
    return text.str();
}

std::vector<std::string> pass_arguments(const Options& options) {
    std::vector<std::string> args{"--design",   options.design,   "--case",      options.case_name,
                                  "--strategy", options.strategy, "--source",    options.source,
                                  "--allocator", options.allocator, "--scale",   number_text(options.scale),
                                  "--seed",     std::to_string(options.seed),  "--mode", "batch",
                                  "--duration-s", number_text(counting_pass_seconds(options)), "--warmup-s", "0",
                                  "--out",      "-"};
    if (options.threads != 0) {  // the counting build counts every thread's allocations in a threaded run
        args.insert(args.end(), {"--threads", std::to_string(options.threads)});
    }
    for (const auto& [name, value] : {std::pair{"--internal-queue-size", options.sizes.internal_queue_size},
                                      std::pair{"--stored-count", options.sizes.stored_count},
                                      std::pair{"--pool-size", options.sizes.pool_size}}) {
        if (value) {
            args.insert(args.end(), {name, std::to_string(*value)});
        }
    }
    return args;
}

// Reads `fd` to its end.
std::string read_all(int fd) {
    std::string text;
    std::array<char, 65536> chunk;
    for (;;) {
        const ssize_t got = ::read(fd, chunk.data(), chunk.size());
        if (got > 0) {
            text.append(chunk.data(), static_cast<std::size_t>(got));
        } else if (got == 0 || errno != EINTR) {
            return text;
        }
    }
}

}  // namespace

AllocationCount count_allocations(const Options& options) {
    const std::filesystem::path program =
            std::filesystem::read_symlink("/proc/self/exe").parent_path() / counting_build_name;
    if (!std::filesystem::is_regular_file(program)) {
        throw CountingPassError("the allocation counting pass needs " + program.string() +
                                " (the counting build, built beside this engine)");
    }
    std::vector<std::string> strings = pass_arguments(options);
    strings.insert(strings.begin(), program.string());
    std::vector<char*> argv;
    for (std::string& arg : strings) {
        argv.push_back(arg.data());
    }
    argv.push_back(nullptr);

    int out[2];
    if (::pipe2(out, O_CLOEXEC) != 0) {
        throw CountingPassError(std::string("the allocation counting pass: cannot make a pipe: ") +
                                std::strerror(errno));
    }
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, out[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    // The environment as it is: the allocator's LD_PRELOAD and its marker, so the child
    // verifies the same allocator without re-executing.
    const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(out[1]);
    if (spawned != 0) {
        ::close(out[0]);
        throw CountingPassError("the allocation counting pass: cannot start " + program.string() + ": " +
                                std::strerror(spawned));
    }
    const std::string records = read_all(out[0]);
    ::close(out[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }

    std::string last_line;
    std::istringstream lines(records);
    for (std::string line; std::getline(lines, line);) {
        if (!line.empty()) {
            last_line = line;
        }
    }
    const nlohmann::json summary = nlohmann::json::parse(last_line, nullptr, false);
    const bool exited_ok = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (!exited_ok || summary.is_discarded() || summary.value("type", "") != "summary" ||
        summary.value("status", "") != "ok" || !summary["allocs_per_packet"].is_number()) {
        const std::string why = !summary.is_discarded() && summary.contains("error") && summary["error"].is_string()
                                        ? summary["error"].get<std::string>()
                                        : (WIFEXITED(status) ? "exit status " + std::to_string(WEXITSTATUS(status))
                                                             : "killed by signal " + std::to_string(WTERMSIG(status)));
        throw CountingPassError("the allocation counting pass (" + program.string() + ") failed: " + why);
    }
    return {summary["allocs_per_packet"].get<double>(), summary["allocs_counted_packets"].get<std::uint64_t>()};
}

}  // namespace cpp_engine
