#ifndef PIPE_CGIT2_SHIM_H
#define PIPE_CGIT2_SHIM_H
#include <git2.h>

/// `git_libgit2_opts` is variadic and so not callable from Swift: one wrapper per option Pipe sets.
static inline int pipe_git_set_search_path_none(void) {
    return git_libgit2_opts(GIT_OPT_SET_SEARCH_PATH, GIT_CONFIG_LEVEL_SYSTEM, "");
}
static inline int pipe_git_disable_owner_validation(void) {
    return git_libgit2_opts(GIT_OPT_SET_OWNER_VALIDATION, 0);
}
#endif
