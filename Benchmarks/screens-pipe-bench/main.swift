// screens-pipe-bench: release-mode throughput measurements, one subcommand per component.
//
//     swift build -c release --product screens-pipe-bench
//     .build/release/screens-pipe-bench json [--rows N] [--iterations K] [--no-baseline] [--parse-only] [--check-only]
//     .build/release/screens-pipe-bench filter
//     .build/release/screens-pipe-bench memory [--megabytes N]

import Foundation

let benchmarks: [String: (_ arguments: [String]) throws -> Void] = [
    "json": JSONBenchmark.run,
    "memory": MemoryBenchmark.run,
    "filter": { arguments in
        guard arguments.isEmpty else { throw BenchmarkOptions.UnknownOption(option: arguments[0]) }
        runFilterBenchmark()
    },
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let name = arguments.first, let benchmark = benchmarks[name] else {
    print("usage: screens-pipe-bench <benchmark> [options]")
    print("benchmarks: \(benchmarks.keys.sorted().joined(separator: ", "))")
    exit(arguments.isEmpty ? 0 : 2)
}
do {
    try benchmark(Array(arguments.dropFirst()))
} catch {
    print("screens-pipe-bench \(name): \(error)")
    exit(1)
}
