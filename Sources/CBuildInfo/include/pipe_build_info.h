#ifndef PIPE_BUILD_INFO_H
#define PIPE_BUILD_INFO_H

/// What this binary is: the version from the repository's VERSION file (with its line end), and what `make` told the
/// build through the environment Package.swift reads (empty text when built without it, as by a plain `swift build`).
const char *pipe_build_version(void);
const char *pipe_build_commit(void);
/// "1" when the tree had changes not committed, "0" when clean, "" when unknown.
const char *pipe_build_dirty(void);
/// The build's UTC time, ISO 8601.
const char *pipe_build_date(void);

/// One C library Pipe runs with, as the library itself reports its version at run time.
typedef struct {
    const char *name;
    const char *version;
} pipe_library_version;

/// Fills `out` with up to `capacity` libraries; returns how many.
int pipe_library_versions(pipe_library_version *out, int capacity);

#endif
