#ifndef REACH_CSQLITE_SHIM_H
#define REACH_CSQLITE_SHIM_H

#include <sqlite3.h>

/// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import:
/// text and blobs bound with it are copied by SQLite before the call returns.
static inline sqlite3_destructor_type reach_sqlite_transient(void) { return SQLITE_TRANSIENT; }

#endif
