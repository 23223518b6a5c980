// The system calls of the one way of opening a path a user named
// (handsh(1), FILES): a path is walked a component at a time from a
// folder's descriptor, never given to the kernel whole, so that no link
// swapped in after a check is ever followed. The flags these calls need
// (O_PATH, O_TMPFILE, AT_EMPTY_PATH) are GNU extensions that Swift does not
// see; they live here.
#ifndef HANDSH_PATHS_H
#define HANDSH_PATHS_H

#include <sys/stat.h>

/// A descriptor for `name` in the folder `folder` (a descriptor, or
/// AT_FDCWD) that only locates it (O_PATH): the link itself when `follow`
/// is 0 and `name` is a symbolic link; only a folder when `folder_only`.
/// -1 with errno set.
int handsh_locate(int folder, const char *_Nonnull name, int follow, int folder_only);

/// The root folder or the current one, located (O_PATH): the start of a walk.
int handsh_locate_start(int absolute);

/// `name` in `folder` opened with `flags` (O_NOFOLLOW and O_CLOEXEC added,
/// O_CREAT with `mode` when `flags` has it): a link there is never followed.
int handsh_open_in(int folder, const char *_Nonnull name, int flags, unsigned mode);

/// The file a located descriptor (O_PATH) stands for, opened with `flags`
/// (through /proc/self/fd, which reopens that very file): for what the
/// kernel itself resolves, /proc's descriptor links. -1 with errno set.
int handsh_reopen(int located, int flags);

/// Whether the folder `folder` lies on /proc, whose links (a process's
/// descriptors) only the kernel can follow.
int handsh_on_proc(int folder);

/// An unnamed file in the folder `folder` (O_TMPFILE, write only, `mode`
/// less the umask), to be named once whole; -1 with errno set where the
/// file system cannot make one.
int handsh_open_unnamed(int folder, unsigned mode);

/// Gives the unnamed file open on `fd` the name `name` in `folder`
/// (linkat through /proc/self/fd, or the descriptor itself where /proc is
/// missing); 0, or -1 with errno set (EEXIST: the name is taken).
int handsh_name_unnamed(int fd, int folder, const char *_Nonnull name);

/// Notes `fd` as a file handsh holds open for itself (the journal), which
/// no `save` may replace or write into; -1 forgets it.
void handsh_hold_own_file(int fd);

/// The file handsh holds open for itself, or -1.
int handsh_own_file(void);

#endif
