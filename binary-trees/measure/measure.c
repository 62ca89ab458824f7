/* measure: runs a program and writes its wall, user and sys time and peak RSS to a file.
 *
 * Lesson: a process's ru_maxrss includes the memory of the process it was forked from, because
 * Linux carries the peak across exec. Forked straight from the Python driver (hundreds of MB of
 * pandas), every program would show the driver's size; forked from this small launcher, it shows
 * its own. The driver starts `measure OUT PROGRAM ARGS...`, reads OUT, and stops the pair by their
 * process group on a timeout.
 *
 * OUT gets one line: wall_s=... user_s=... sys_s=... maxrss_kb=... exit=... signal=...
 * The exit status is the program's (128 + the signal number if a signal ended it).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s OUT_FILE PROGRAM [ARGUMENT...]\n", argv[0]);
        return 2;
    }
    struct timespec started, ended;
    clock_gettime(CLOCK_MONOTONIC, &started);
    pid_t pid = fork();
    if (pid < 0) {
        perror("measure: fork");
        return 125;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "measure: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status;
    struct rusage usage;
    while (wait4(pid, &status, 0, &usage) < 0) {
        if (errno != EINTR) {
            perror("measure: wait4");
            return 125;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &ended);
    double wall = (ended.tv_sec - started.tv_sec) + (ended.tv_nsec - started.tv_nsec) / 1e9;
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    FILE *out = fopen(argv[1], "w");
    if (out == NULL) {
        perror("measure: cannot write the result");
        return 125;
    }
    fprintf(out, "wall_s=%.6f user_s=%.6f sys_s=%.6f maxrss_kb=%ld exit=%d signal=%d\n", wall,
            seconds(usage.ru_utime), seconds(usage.ru_stime), usage.ru_maxrss, code,
            WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    fclose(out);
    return code;
}
