import Foundation
internal import CSystemExtras

/// The C allocator's settings for this process: a run streams pages of a few hundred
/// kilobytes through buffers of that size, freed and allocated again for every page.
///
/// With glibc's defaults each such buffer is above the size that gets its own `mmap`, and
/// memory freed at the top of a thread's heap is handed back to the kernel at once; so every
/// page's buffers were new pages, zeroed and faulted in by the kernel. A profile of a cache
/// replay of 1M rows counted 80,000 page faults (the whole list, once more) and as much
/// system time as user time. Keeping freed memory for the next page (and one heap for all
/// threads, so it is the same memory) halves the system time and lowers the peak RSS.
///
/// Only the command sets these: they are the process's, and an embedding service chooses
/// its own. `MALLOC_ARENA_MAX` and the other `MALLOC_*` variables still override them.
enum AllocatorTuning {
    /// Each setting: the variable that overrides it, glibc's parameter, and the value.
    /// No allocation below 32 MiB gets a mapping of its own (glibc's own ceiling for the
    /// threshold it adapts), a heap keeps up to 64 MiB free before handing any back, and
    /// all threads share one heap, so a page's buffers are the last page's memory.
    static let settings: [(variable: String, parameter: Int32, value: Int32)] = [
        ("MALLOC_MMAP_THRESHOLD_", M_MMAP_THRESHOLD, 32 << 20),
        ("MALLOC_TRIM_THRESHOLD_", M_TRIM_THRESHOLD, 64 << 20),
        ("MALLOC_ARENA_MAX", M_ARENA_MAX, 1),
    ]

    static func apply() {
        for setting in settings where getenv(setting.variable) == nil {
            _ = mallopt(setting.parameter, setting.value)
        }
    }
}
