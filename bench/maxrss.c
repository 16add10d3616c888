/* maxrss.c — runs a command and reports its peak resident set size, like `time -f %M`.
 *
 * Linux keeps a process's peak RSS across fork and exec, so a child started directly by the
 * benchmark (a Python process holding ONNX Runtime and the models) would report the parent's
 * size. This small program forks the command itself, so the command inherits only this
 * program's few hundred KiB, and reads the command's own peak from wait4().
 *
 * Usage: maxrss OUT_FILE COMMAND [ARG]...  -> runs COMMAND (stdin/stdout/stderr inherited),
 * writes "<peak RSS KiB>\n" to OUT_FILE and exits with COMMAND's status (128+N on signal N).
 */
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "maxrss: error: usage: maxrss OUT_FILE COMMAND [ARG]...\n");
    return 2;
  }
  pid_t pid = fork();
  if (pid < 0) {
    perror("maxrss: error: fork");
    return 2;
  }
  if (pid == 0) {
    execvp(argv[2], argv + 2);
    fprintf(stderr, "maxrss: error: cannot run %s\n", argv[2]);
    _exit(127);
  }
  int status = 0;
  struct rusage usage;
  if (wait4(pid, &status, 0, &usage) < 0) {
    perror("maxrss: error: wait4");
    return 2;
  }
  FILE *out = fopen(argv[1], "w");
  if (!out || fprintf(out, "%ld\n", usage.ru_maxrss) < 0 || fclose(out) != 0) {
    fprintf(stderr, "maxrss: error: cannot write %s\n", argv[1]);
    return 2;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
