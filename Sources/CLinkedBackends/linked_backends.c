#include "CLinkedBackends.h"

// Each backend product defines one of these (a Swift function exported with @_cdecl). The
// references are weak: when a product is not linked, its function's address is null, so
// the core never names a product it does not depend on, and an embedder that links only
// the core gets no SQLite, GRDB, PostgresNIO or SwiftNIO.
extern void screens_pipe_register_sqlite(void) __attribute__((weak));
extern void screens_pipe_register_postgres(void) __attribute__((weak));

void screens_pipe_register_linked_backends(void) {
    if (screens_pipe_register_sqlite) screens_pipe_register_sqlite();
    if (screens_pipe_register_postgres) screens_pipe_register_postgres();
}
