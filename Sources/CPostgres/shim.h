#ifndef CPOSTGRES_SHIM_H
#define CPOSTGRES_SHIM_H

// libpq, the PostgreSQL client library. pkg-config (`libpq`) supplies the include path:
// /usr/include/postgresql on Debian and Ubuntu, the Homebrew prefix on macOS.
#include <libpq-fe.h>

#endif
