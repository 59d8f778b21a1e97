#!/usr/bin/env bash
# `make fuzz`: libFuzzer (swiftc -sanitize=fuzzer) on every parser of untrusted input: the
# JSON parser, the filter expression parser, the YAML pipeline loader, the HTTP response
# interpreter (status, headers, body of every wire format), the localized XML reader, the
# `${...}` interpolator, the regex engine, config numbers with `--set` overrides, the real-API
# answers (OAuth2 tokens, rate-limit headers, `on-response` rules, `paginate: auto`, cursor
# values) and the write path's input lines and batch answers;
# FUZZ_SECONDS (default 60) each, seeded from
# fuzz/corpus/<target>/. New inputs go to .build/fuzz/corpus/<target>/ (the repo corpus is
# not touched); a crash, hang (> 10 s) or allocation over 2 GB stops that target and leaves
# the input in .build/fuzz/artifacts/, to be kept as a regression test.
#
#     bash scripts/fuzz.sh [json|filter|yaml|response|xml|interpolate|regex|config|realapis|write]...
#     FUZZ_SECONDS=300 bash scripts/fuzz.sh json
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${FUZZ_SECONDS:-60}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(json filter yaml response xml interpolate regex config realapis write)
build=.build/fuzz
export SWIFT_BACKTRACE=enable=no # libFuzzer reports the crash itself

# The libraries with coverage instrumentation, in their own build folder.
echo "fuzz: building the instrumented libraries (log: $build/build.log)" >&2
mkdir -p "$build"
# -enable-testing: targets reach internal parsers (XMLReader, Interpolator...) with @testable.
swift build -c release --build-path "$build" --target ScreensPipe -Xswiftc -sanitize=fuzzer -Xswiftc -enable-testing \
  >"$build/build.log" 2>&1 ||
  { tail -20 "$build/build.log" >&2; exit 1; }
release="$build/release"
# Every module the library depends on (GRDB, swift-log, postgres-nio with swift-nio and its
# TLS stack...): the build above made only those, so every object under release/ is one.
objects=()
while IFS= read -r object; do objects+=("$object"); done < <(find "$release" -path '*.build/*' -name '*.o' | sort)
grdb_map=$(find .build/fuzz/checkouts/GRDB.swift -name module.modulemap -path '*GRDBSQLite*' | head -1)

status=0
mkdir -p "$build/artifacts"
for target in "${targets[@]}"; do
  echo "fuzz: building $target" >&2
  swiftc -O -parse-as-library -sanitize=fuzzer -module-name "Fuzz_$target" \
    -I "$release/Modules" \
    -Xcc -fmodule-map-file=Sources/CCurl/module.modulemap \
    -Xcc -fmodule-map-file=Sources/CLibYAML/module.modulemap \
    ${grdb_map:+-Xcc -fmodule-map-file="$grdb_map"} \
    "fuzz/targets/$target.swift" "${objects[@]}" -lcurl -lyaml -lsqlite3 -lstdc++ -lz -o "$build/fuzz-$target"
  mkdir -p "$build/corpus/$target"
  echo "fuzz: $target for ${seconds}s" >&2
  if ! "$build/fuzz-$target" "$build/corpus/$target" "fuzz/corpus/$target" \
      -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=2048 -max_len=65536 \
      -artifact_prefix="$build/artifacts/$target-" -print_final_stats=1 2>"$build/$target.log"; then
    echo "fuzz: $target FAILED; see $build/$target.log and $build/artifacts/" >&2
    grep -E "ERROR|SUMMARY|Fatal error|Test unit written" "$build/$target.log" >&2 || true
    status=1
  else
    grep -E "stat::number_of_executed_units|stat::new_units_added|cov:" "$build/$target.log" | tail -3 >&2
  fi
done
exit $status
