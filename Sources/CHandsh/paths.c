// The one way of opening a path a user named; see handsh_paths.h.
#define _GNU_SOURCE
#include "handsh_paths.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/statfs.h>
#include <unistd.h>

#ifndef PROC_SUPER_MAGIC
#define PROC_SUPER_MAGIC 0x9fa0
#endif

int handsh_locate(int folder, const char *name, int follow, int folder_only) {
  int flags = O_PATH | O_CLOEXEC | (follow ? 0 : O_NOFOLLOW) | (folder_only ? O_DIRECTORY : 0);
  int fd;
  do fd = openat(folder, name, flags);
  while (fd < 0 && errno == EINTR);
  return fd;
}

int handsh_locate_start(int absolute) {
  return open(absolute ? "/" : ".", O_PATH | O_CLOEXEC | O_DIRECTORY);
}

int handsh_open_in(int folder, const char *name, int flags, unsigned mode) {
  return openat(folder, name, flags | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
}

int handsh_reopen(int located, int flags) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", located);
  return open(proc, flags | O_CLOEXEC);
}

int handsh_on_proc(int folder) {
  struct statfs system;
  return fstatfs(folder, &system) == 0 && system.f_type == PROC_SUPER_MAGIC;
}

static int own_file = -1;

void handsh_hold_own_file(int fd) { own_file = fd; }

int handsh_own_file(void) { return own_file; }

int handsh_open_unnamed(int folder, unsigned mode) {
  return openat(folder, ".", O_TMPFILE | O_WRONLY | O_CLOEXEC, (mode_t)mode);
}

int handsh_name_unnamed(int fd, int folder, const char *name) {
  char proc[64];
  snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (linkat(AT_FDCWD, proc, folder, name, AT_SYMLINK_FOLLOW) == 0) return 0;
  if (errno != ENOENT) return -1;
  return linkat(fd, "", folder, name, AT_EMPTY_PATH);
}
