#ifndef CSQLITE_SHIM_H
#define CSQLITE_SHIM_H

#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
// These wrappers bind a value that SQLite copies before returning, so the caller's buffer
// may go away at once.
static inline int csqlite_bind_text_transient(sqlite3_stmt *statement, int index, const char *text,
                                              int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

static inline int csqlite_bind_blob_transient(sqlite3_stmt *statement, int index, const void *bytes,
                                              int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

// The files of a connection's main database, reached through the connection's own open
// descriptors (SQLITE_FCNTL_FILE_POINTER, or SQLITE_FCNTL_JOURNAL_POINTER for the rollback
// journal or the write-ahead log), never through a descriptor of our own: under POSIX, closing
// any descriptor of a file drops every lock the process holds on it, SQLite's included.

// The length of the file `op` names, in `*length`; -1 when SQLite does not have it open.
static inline int csqlite_file_length(sqlite3 *db, int op, sqlite3_int64 *length) {
    sqlite3_file *file = 0;
    int result = sqlite3_file_control(db, "main", op, &file);
    if (result != SQLITE_OK) return result;
    if (file == 0 || file->pMethods == 0) {
        *length = -1;
        return SQLITE_OK;
    }
    return file->pMethods->xFileSize(file, length);
}

// Reads `count` bytes at `offset` of the main database file into `buffer`. Past the end of
// the file the buffer is filled with zeros and the result is SQLITE_IOERR_SHORT_READ.
static inline int csqlite_read_database_file(sqlite3 *db, void *buffer, int count, sqlite3_int64 offset) {
    sqlite3_file *file = 0;
    int result = sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file);
    if (result != SQLITE_OK) return result;
    if (file == 0 || file->pMethods == 0) return SQLITE_CANTOPEN;
    return file->pMethods->xRead(file, buffer, count, offset);
}

#endif
