import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A long-running process's heap: what `hotels` and a worker program set first.
public enum MallocArenas {
    /// glibc gives every thread that allocates an arena of its own, up to
    /// eight per core, and each keeps the memory freed in it. Dispatch's
    /// threads come and go, so a long `simulate` or `serve` spread its heap
    /// over 14 arenas, and its RSS kept rising while the heap in use did not
    /// (BENCHMARKS.md, "Chaos runs"). One arena per core (two at least)
    /// keeps it flat, at no cost a fetch could measure. `MALLOC_ARENA_MAX`
    /// in the environment still decides when it is set.
    public static func bound() {
        #if canImport(Glibc)
            guard ProcessInfo.processInfo.environment["MALLOC_ARENA_MAX"] == nil,
                // Swift's Glibc module leaves out <malloc.h>: mallopt is looked up.
                let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "mallopt")
            else { return }
            let mallopt = unsafeBitCast(symbol, to: (@convention(c) (Int32, Int32) -> Int32).self)
            let arenaMax: Int32 = -8  // M_ARENA_MAX in <malloc.h>
            _ = mallopt(arenaMax, Int32(max(2, ProcessInfo.processInfo.activeProcessorCount)))
        #endif
    }
}
