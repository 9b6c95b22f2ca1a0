#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# make fuzz: build every libFuzzer harness of tests/fuzz with clang
# (-fsanitize=fuzzer,address,undefined) straight from the sources and run
# each for FUZZ_SECONDS (default 60), then print how many inputs each ran.
#
#   run.sh SRCDIR BUILDDIR HARNESS...
#
# Environment: FUZZ_CC (default clang), FUZZ_SECONDS, FUZZ_CPPFLAGS and
# FUZZ_LIBS (libssh, libcrypto, zlib; make passes configure's).  Each
# harness keeps its growing corpus in BUILDDIR/fuzz-run/NAME/corpus and
# starts from the seeds in SRCDIR/tests/fuzz/corpus/NAME plus the saved
# crashes in SRCDIR/tests/fuzz/crashes/NAME.  A crash is kept as
# BUILDDIR/fuzz-run/NAME/crash-<sha1>; once fixed, copy it into
# tests/fuzz/crashes/NAME/ so make check replays it.
# Exit 0 when no harness crashed, 1 otherwise or when clang cannot build.
set -u

srcdir=$1 builddir=$2
shift 2
cc=${FUZZ_CC:-clang}
secs=${FUZZ_SECONDS:-60}
flags="-g -O1 -fno-omit-frame-pointer -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
out=$builddir/fuzz-run
case $secs in
'' | *[!0-9]*) echo "make fuzz: FUZZ_SECONDS must be a number of seconds, not '$secs'" >&2; exit 1 ;;
esac
if ! command -v "$cc" >/dev/null 2>&1; then
	echo "make fuzz: '$cc' not found: the fuzz harnesses need clang with libFuzzer" >&2
	echo "  (Debian 12: apt-get install clang libclang-rt-14-dev; or set FUZZ_CC)" >&2
	exit 1
fi
mkdir -p "$out" || exit 1
printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$out/probe.c"
# shellcheck disable=SC2086
if ! "$cc" $flags -o "$out/probe" "$out/probe.c" >"$out/probe.log" 2>&1; then
	echo "make fuzz: $cc cannot link -fsanitize=fuzzer,address,undefined: the libFuzzer" >&2
	echo "  runtime is missing (Debian 12: apt-get install libclang-rt-14-dev).  $cc said:" >&2
	sed 's/^/    /' "$out/probe.log" >&2
	exit 1
fi

# Every module but main.c, built once into an instrumented archive
# (fuzzer-no-link: coverage without a main): each harness pulls in only what
# it reaches, so new dependencies between modules need nothing here.
lib=$out/libfscp-fuzz.a
rm -rf "$out/obj" "$lib"
mkdir -p "$out/obj"
echo "=== fuzz: building the library"
for c in "$srcdir"/src/*/*.c; do
	[ "$(basename "$c")" = main.c ] && continue
	# shellcheck disable=SC2086
	"$cc" ${flags/fuzzer,/fuzzer-no-link,} -std=c11 -I"$builddir" -I"$srcdir/src" ${FUZZ_CPPFLAGS:-} \
		-c "$c" -o "$out/obj/$(basename "$c" .c).o" || { echo "make fuzz: cannot compile $c" >&2; exit 1; }
done
ar rcs "$lib" "$out"/obj/*.o || exit 1
failed=0
summary=
for h in "$@"; do
	dir=$out/$h
	mkdir -p "$dir/corpus"
	echo "=== fuzz $h: building"
	# shellcheck disable=SC2086
	if ! "$cc" $flags -std=c11 -I"$builddir" -I"$srcdir/src" -I"$srcdir/tests/fuzz" \
		-o "$dir/fuzz_$h" "$srcdir/tests/fuzz/fuzz_$h.c" "$lib" ${FUZZ_LIBS:--lssh -lcrypto -lz} -pthread; then
		summary="$summary$h: BUILD FAILED\n"
		failed=1
		continue
	fi
	seeds=("$srcdir/tests/fuzz/corpus/$h")
	[ -d "$srcdir/tests/fuzz/crashes/$h" ] && seeds+=("$srcdir/tests/fuzz/crashes/$h")
	echo "=== fuzz $h: running for ${secs}s"
	rm -f "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-*
	# -timeout: one input over 10 s counts as a hang; -rss_limit_mb: a
	# harness that balloons is a finding too.
	"$dir/fuzz_$h" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$dir/" \
		"$dir/corpus" "${seeds[@]}" >"$dir/log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -n 1)
	cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -n 1)
	if [ "$rc" -eq 0 ]; then
		summary="$summary$h: ${runs:-?} executions in ${secs}s (${cov:-cov: ?}), no crash\n"
	else
		failed=1
		art=$(ls "$dir"/crash-* "$dir"/leak-* "$dir"/timeout-* "$dir"/oom-* 2>/dev/null | head -n 1)
		summary="$summary$h: FAILED (exit $rc) after ${runs:-?} executions; input: ${art:-none}, log: $dir/log\n"
		grep -A12 -m1 -E '^==[0-9]+==|runtime error' "$dir/log" | sed 's/^/    /'
	fi
done
echo "=== fuzz summary (FUZZ_SECONDS=$secs)"
printf "%b" "$summary"
exit "$failed"
