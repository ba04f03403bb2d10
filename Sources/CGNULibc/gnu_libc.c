#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include "gnu_libc.h"

int reach_spawn_add_closefrom(void *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int reach_spawn_add_chdir(void *actions, const char *path) {
    return posix_spawn_file_actions_addchdir_np(actions, path);
}

int reach_spawn_add_tcsetpgrp(void *actions, int terminal) {
    return posix_spawn_file_actions_addtcsetpgrp_np(actions, terminal);
}

int reach_sync_file_range_write(int descriptor, long long offset, long long length) {
    return sync_file_range(descriptor, offset, length, SYNC_FILE_RANGE_WRITE);
}

int reach_pipe_cloexec(int ends[2]) {
    return pipe2(ends, O_CLOEXEC);
}
