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
    /// Largest allocation served from a heap rather than its own mapping (glibc's own
    /// ceiling for the value it adapts to).
    static let mappingThreshold: Int32 = 32 << 20
    /// Free memory a heap keeps before handing any back.
    static let trimThreshold: Int32 = 64 << 20

    static func apply() {
        let environment = ProcessInfo.processInfo.environment
        if environment["MALLOC_MMAP_THRESHOLD_"] == nil { _ = mallopt(M_MMAP_THRESHOLD, mappingThreshold) }
        if environment["MALLOC_TRIM_THRESHOLD_"] == nil { _ = mallopt(M_TRIM_THRESHOLD, trimThreshold) }
        if environment["MALLOC_ARENA_MAX"] == nil { _ = mallopt(M_ARENA_MAX, 1) }
    }
}
