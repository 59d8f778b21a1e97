#ifndef C_LINKED_BACKENDS_H
#define C_LINKED_BACKENDS_H

/// Registers every backend product linked into this program (the SQLite store, PostgreSQL)
/// with the pipeline core, by calling each product's registration function. A product that
/// is not linked is skipped: linking it is what makes its backends available.
void screens_pipe_register_linked_backends(void);

#endif
