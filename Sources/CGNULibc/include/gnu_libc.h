// glibc's GNU extensions that Swift's Glibc module hides (it is built without _GNU_SOURCE):
// declared here with plain types, defined in gnu_libc.c, which is compiled with _GNU_SOURCE.
// Debian 12's glibc (2.36) has them all; a C library without them fails at link time, not later.
#ifndef REACH_GNU_LIBC_H
#define REACH_GNU_LIBC_H

// No system header is included here: the types are those of <spawn.h> passed as void *, so
// this module re-declares nothing that Swift's Glibc module owns.

/// posix_spawn_file_actions_addclosefrom_np (2.34): the child closes every descriptor >= `from`.
int reach_spawn_add_closefrom(void *actions, int from);
/// posix_spawn_file_actions_addchdir_np (2.29): the child changes to `path` before exec.
int reach_spawn_add_chdir(void *actions, const char *path);
/// posix_spawn_file_actions_addtcsetpgrp_np (2.35): the child's group becomes the terminal's
/// foreground group before exec.
int reach_spawn_add_tcsetpgrp(void *actions, int terminal);
/// sync_file_range(2) with SYNC_FILE_RANGE_WRITE: start writing a range back without waiting.
int reach_sync_file_range_write(int descriptor, long long offset, long long length);

/// pipe2(2) with O_CLOEXEC: a pipe no other thread's child can inherit by accident.
int reach_pipe_cloexec(int ends[2]);

#endif
