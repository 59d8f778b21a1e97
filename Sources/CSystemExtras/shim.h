// glibc functions that Glibc's Swift module does not carry (they are GNU extensions):
// mallopt, for the command's allocator settings (AllocatorTuning.swift), and
// sync_file_range, to start writing an output file to disk while the run goes on
// (OutputFile.swift). Part of libc: nothing to install.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <fcntl.h>
#include <malloc.h>
