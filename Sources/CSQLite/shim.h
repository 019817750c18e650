#ifndef PIPE_CSQLITE_SHIM_H
#define PIPE_CSQLITE_SHIM_H
#include <sqlite3.h>
/// SQLITE_TRANSIENT is a cast macro Swift cannot import: it tells SQLite to copy a bound value at once.
static inline void (*pipe_sqlite_transient(void))(void *) { return SQLITE_TRANSIENT; }
#endif
