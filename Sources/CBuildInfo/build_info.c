#include "pipe_build_info.h"

#include <archive.h>
#include <curl/curl.h>
#include <git2.h>
#include <libssh2.h>
#include <microhttpd.h>
#include <openssl/crypto.h>
#include <sqlite3.h>
#include <stdio.h>
#include <yaml.h>
#include <zlib.h>
#include <zstd.h>

// The one place the version is written is the repository's VERSION file: embedded here at compile time, and the
// compiler's dependency list names it, so editing it rebuilds this file.
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc23-extensions"
static const char version_text[] = {
#embed "../../VERSION"
    , 0};
#pragma clang diagnostic pop

#ifndef PIPE_BUILD_COMMIT
#define PIPE_BUILD_COMMIT ""
#endif
#ifndef PIPE_BUILD_DIRTY
#define PIPE_BUILD_DIRTY ""
#endif
#ifndef PIPE_BUILD_DATE
#define PIPE_BUILD_DATE ""
#endif

const char *pipe_build_version(void) { return version_text; }
const char *pipe_build_commit(void) { return PIPE_BUILD_COMMIT; }
const char *pipe_build_dirty(void) { return PIPE_BUILD_DIRTY; }
const char *pipe_build_date(void) { return PIPE_BUILD_DATE; }

int pipe_library_versions(pipe_library_version *out, int capacity) {
    static char libgit2[32], libarchive[32];
    int major = 0, minor = 0, revision = 0;
    git_libgit2_version(&major, &minor, &revision);
    snprintf(libgit2, sizeof libgit2, "%d.%d.%d", major, minor, revision);
    int archive = archive_version_number();
    snprintf(libarchive, sizeof libarchive, "%d.%d.%d", archive / 1000000, archive / 1000 % 1000, archive % 1000);
    const pipe_library_version all[] = {
        {"libssh2", libssh2_version(0)},
        {"libgit2", libgit2},
        {"sqlite", sqlite3_libversion()},
        {"libcurl", curl_version_info(CURLVERSION_NOW)->version},
        {"openssl", OpenSSL_version(OPENSSL_VERSION_STRING)},
        {"libarchive", libarchive},
        {"libyaml", yaml_get_version_string()},
        {"libmicrohttpd", MHD_get_version()},
        {"zlib", zlibVersion()},
        {"zstd", ZSTD_versionString()},
    };
    int count = (int)(sizeof all / sizeof all[0]);
    if (count > capacity) count = capacity;
    for (int index = 0; index < count; index++) out[index] = all[index];
    return count;
}
