# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# shellcheck shell=bash
# Run the same command with scp and with fscp on identical input and compare
# everything they leave behind.  Source this file from a test script:
#
#   . "$srcdir/tests/lib/compare.sh"
#   fscp_test_init                      # work dir, private sshd, EXIT trap
#   setup() { fscp_put_tree src; }      # builds the input, run once per side
#   fscp_compare --name "upload" --setup setup -- src/small.txt fscp-test:dst/
#   checks_done                         # exit 0, or 1 after any mismatch
#
# How one comparison runs.  For each side (scp first, then fscp):
#   - the local work dir L ($FSCP_WORK/L) and the remote home ($SSHD_HOME) are
#     emptied, and the setup function runs with L as its cwd;
#   - the program runs in L as `scp -F $SSH_CONFIG ARGS...` with argv[0] "scp"
#     (so messages carry the same program name), stdin /dev/null, a time limit;
#   - L and the home's contents are moved to $FSCP_WORK/run/<side>/{L,R}.
# Both sides therefore see the same paths, byte for byte.  Then compared:
# exit status, stdout, stderr (unless --no-stderr) and both trees: file set,
# types, content checksums, permission bits, symlink targets, and with --times
# the mtimes (all but symlinks) and atimes (files outside the top-level src/).
#
# ARGS may contain {HOME} (the remote home, absolute), {PORT} (sshd's port)
# and {WORK} (the local work dir L, absolute).
#
# Environment: FSCP (required: the program under test), SCP (default
# /usr/bin/scp), FSCP_KEEP=1 keeps the work dir, FSCP_TIMEOUT (s, default 120).
# Exit codes of a test: 0 all equal, 1 a mismatch, 99 cannot run (no sshd...).
# Each comparison counts as one check of checks.sh (sourced here), so a test
# adds its own checks with ok/bad/check and ends with checks_done.

# Where this file lives, to find sshd.sh next to it.
FSCP_LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=tests/lib/sshd.sh
. "$FSCP_LIB_DIR/sshd.sh"
# shellcheck source=tests/lib/checks.sh
. "$FSCP_LIB_DIR/checks.sh"
# shellcheck source=tests/lib/wait.sh
. "$FSCP_LIB_DIR/wait.sh"

SCP=${SCP:-/usr/bin/scp}
# The system python: a version-manager shim on PATH can cost a second a call.
if [ -x /usr/bin/python3 ]; then FSCP_PY=/usr/bin/python3; else FSCP_PY=python3; fi
FSCP_TIMEOUT=${FSCP_TIMEOUT:-120}

fscp_hard_error() {
	echo "HARD ERROR: $*" >&2
	exit 99
}

fscp__cleanup() {
	fscp_sshd_stop
	if [ -n "${FSCP_WORK:-}" ] && [ -d "$FSCP_WORK" ]; then
		if [ "${FSCP_KEEP:-0}" = 1 ]; then
			echo "work dir kept: $FSCP_WORK" >&2
		else
			rm -rf "$FSCP_WORK"
		fi
	fi
}

# Set up a test: check the programs, make the work dir, start sshd, build the
# content pool that fixtures copy from.
fscp_test_init() {
	[ -n "${FSCP:-}" ] || fscp_hard_error "FSCP is not set (path of the fscp binary to test)"
	[ -x "$FSCP" ] || fscp_hard_error "FSCP=$FSCP is not executable"
	[ -x "$SCP" ] || fscp_hard_error "SCP=$SCP is not executable"
	command -v "$FSCP_PY" >/dev/null || fscp_hard_error "python3 is needed to compare trees"
	FSCP=$(cd "$(dirname "$FSCP")" && pwd)/$(basename "$FSCP")
	FSCP_WORK=$(mktemp -d "${TMPDIR:-/tmp}/fscp-it.XXXXXX") || fscp_hard_error "mktemp failed"
	export FSCP_WORK
	trap fscp__cleanup EXIT
	trap 'exit 130' INT TERM
	fscp_sshd_start "$FSCP_WORK/sshd" || fscp_hard_error "cannot start the test sshd"
	mkdir -p "$FSCP_WORK/L" "$FSCP_WORK/pool" "$FSCP_WORK/run"
	fscp__make_pool "$FSCP_WORK/pool" || fscp_hard_error "cannot build the content pool"
	fscp__make_trees "$FSCP_WORK/pool" || fscp_hard_error "cannot build the fixture trees"
	# A fixed umask, so the "new file" modes do not depend on the caller's.
	umask 022
	# Times from now on are "new" in -p comparisons (see FSCP__TREES_PY).
	FSCP_T0=$(($(date +%s) - 120))
	export FSCP_T0
}

# Random contents, made once per test; fixtures copy them so both sides get the
# same bytes.
fscp__make_pool() {
	local pool=$1 size
	for size in 0 1 77 123 1000 4096 70000 300000 1048577; do
		head -c "$size" /dev/urandom >"$pool/r$size" || return 1
	done
}

# fscp_put_file PATH SIZE [MODE]: a file with SIZE random bytes from the pool
# (a size not in the pool yet is added to it, so both sides get the same bytes).
fscp_put_file() {
	local path=$1 size=$2 mode=${3:-}
	mkdir -p "$(dirname "$path")"
	if [ ! -f "$FSCP_WORK/pool/r$size" ]; then
		head -c "$size" /dev/urandom >"$FSCP_WORK/pool/r$size"
	fi
	cp "$FSCP_WORK/pool/r$size" "$path"
	if [ -n "$mode" ]; then chmod "$mode" "$path"; fi
}

# fscp_put_tree DIR: the standard tree with regular files only (no symlinks):
# sizes 0 .. 1 MiB, odd modes, names with a space and a leading dash, nested
# and empty directories.  Copied from a template made once per test.
fscp_put_tree() {
	cp -a "$FSCP_WORK/pool/tree" "$1"
}

# fscp_put_linktree DIR: the standard tree plus symlinks to a file, to a
# directory, and a dangling one.
fscp_put_linktree() {
	cp -a "$FSCP_WORK/pool/linktree" "$1"
}

fscp__make_trees() {
	local d=$1/tree
	mkdir -p "$d"
	fscp_put_file "$d/small.txt" 1000
	fscp_put_file "$d/empty" 0
	fscp_put_file "$d/with space.txt" 123
	fscp_put_file "$d/-dash" 77
	fscp_put_file "$d/exec.sh" 4096 0755
	fscp_put_file "$d/readonly" 1 0444
	fscp_put_file "$d/odd mode" 70000 0640
	fscp_put_file "$d/sub/a.bin" 70000
	fscp_put_file "$d/sub/deeper/b.bin" 1048577 0600
	mkdir -p "$d/sub/emptydir" "$d/dir with space"
	fscp_put_file "$d/dir with space/c" 300000
	chmod 0750 "$d/sub/deeper"
	chmod 0700 "$d/sub/emptydir"
	cp -a "$d" "$1/linktree"
	d=$1/linktree
	ln -s small.txt "$d/link-file"
	ln -s sub "$d/link-dir"
	ln -s does-not-exist "$d/dangling"
}

# fscp_set_times DIR...: give every entry below (and including) DIR a fixed,
# distinct mtime and atime derived from its path, older than now, with atime
# != mtime, so -p results can be compared exactly.
# The input most comparisons share: the fixture tree as src/ on both ends
# (same times) and an empty dst/ on both ends.
fscp_setup_trees() {
	fscp_put_tree src
	fscp_put_tree "$SSHD_HOME/src"
	mkdir -p dst "$SSHD_HOME/dst"
	fscp_set_times src "$SSHD_HOME/src"
}

# The same, with trees of symlinks (to a file, to a directory, dangling).
fscp_setup_linktrees() {
	fscp_put_linktree src
	fscp_put_linktree "$SSHD_HOME/src"
	mkdir -p dst "$SSHD_HOME/dst"
	fscp_set_times src "$SSHD_HOME/src"
}

fscp_set_times() {
	"$FSCP_PY" - "$@" <<'EOF'
import os, sys, zlib
for top in sys.argv[1:]:
    entries = []
    for root, dirs, files in os.walk(top):
        for n in files + dirs:
            entries.append(os.path.join(root, n))
    entries.append(top)
    # Deepest first, so setting a directory's times comes after its contents.
    entries.sort(key=lambda p: -p.count("/"))
    for p in entries:
        if os.path.islink(p):
            continue
        h = zlib.crc32(os.path.relpath(p, top).encode()) % 1000000
        mtime = 1500000000 + h
        atime = mtime + 86400 + h % 977
        os.utime(p, (atime, mtime))
EOF
}

# fscp_manifest DIR [times]: one line per entry, sorted by path.
# fscp__cmp_trees TIMES LABEL DIR_SCP DIR_FSCP [LABEL DIR_SCP DIR_FSCP...]:
# compare pairs of trees, print a diff of their manifests, exit 1 on any.
fscp_manifest() {
	"$FSCP_PY" - manifest "${2:-}" "$1" <<<"$FSCP__TREES_PY"
}
fscp__cmp_trees() {
	"$FSCP_PY" - compare "$@" <<<"$FSCP__TREES_PY"
}
FSCP__TREES_PY='
import difflib, hashlib, os, stat, sys
def digest(p):
    h = hashlib.sha1()
    with open(p, "rb") as f:
        while True:
            b = f.read(1 << 20)
            if not b:
                return h.hexdigest()
            h.update(b)
# Times set while the test runs ("now") differ between the two runs by nature:
# show them as "new".  Fixture times are years old, so a time not preserved
# shows up as "new" against the fixture value.
cutoff = int(os.environ.get("FSCP_T0", "0")) * 10**9
def stamp(ns):
    if cutoff and ns >= cutoff:
        return "new"
    return "%d.%09d" % divmod(ns, 10**9)
def line(rel, p, times):
    st = os.lstat(p)
    m = st.st_mode
    mode = "%04o" % stat.S_IMODE(m)
    if stat.S_ISLNK(m):
        return "%s  link -> %s" % (rel, os.readlink(p))
    if stat.S_ISREG(m):
        s = "%s  file %s size=%d sha1=%s" % (rel, mode, st.st_size, digest(p))
    elif stat.S_ISDIR(m):
        s = "%s  dir  %s" % (rel, mode)
    else:
        s = "%s  other %s type=%o" % (rel, mode, stat.S_IFMT(m))
    if times and rel != ".":
        s += " mtime=" + stamp(st.st_mtime_ns)
        if stat.S_ISREG(m) and rel.split("/")[0] != "src":
            s += " atime=" + stamp(st.st_atime_ns)
    return s
def manifest(top, times):
    out = [line(".", top, times)]
    for root, dirs, files in os.walk(top):
        for n in dirs + files:
            p = os.path.join(root, n)
            out.append(line(os.path.relpath(p, top), p, times))
    return sorted(out)
times = sys.argv[2] == "times"
if sys.argv[1] == "manifest":
    sys.stdout.write("".join(x + "\n" for x in manifest(sys.argv[3], times)))
    sys.exit(0)
rest, bad = sys.argv[3:], 0
while rest:
    label, a, b = rest[:3]
    rest = rest[3:]
    ma, mb = manifest(a, times), manifest(b, times)
    if ma != mb:
        bad = 1
        print("  %s tree differs (- scp, + fscp):" % label)
        d = [x for x in difflib.unified_diff(ma, mb, lineterm="", n=0) if x[:1] in "+-" and x[:3] not in ("+++", "---")]
        for x in d[:40]:
            print("    " + x)
        if len(d) > 40:
            print("    ... %d more lines" % (len(d) - 40))
sys.exit(bad)
'

# Remove everything inside a directory, keep the directory.
fscp__empty_dir() {
	find "$1" -mindepth 1 -maxdepth 1 -exec rm -rf {} + 2>/dev/null
	if [ -n "$(ls -A "$1")" ]; then
		# Something made read-only by a test: make it writable and retry.
		chmod -R u+rwx "$1"
		find "$1" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	fi
}

# Make progress output comparable: keep, per redraw, the file name, the percent
# and the line width; only the final (100%) redraws, since intermediate ones
# depend on timing.
fscp__norm_tty() {
	"$FSCP_PY" -c '
import re, sys
data = sys.stdin.buffer.read().decode("latin-1")
for chunk in re.split(r"[\r\n]+", data):
    if not chunk.strip():
        continue
    m = re.match(r"(.*?)\s+(\d+)%", chunk)
    if m is None:
        print("text: " + chunk)
    elif m.group(2) == "100":
        print("meter: name=%r pct=100 width=%d" % (m.group(1), len(chunk) + 1))
' | uniq
}

# Run one side.  $1 side name, $2 program, rest: argv after the program.
fscp__run_side() {
	local side=$1 prog=$2
	shift 2
	local out="$FSCP_WORK/run/$side"
	rm -rf "$out"
	mkdir -p "$out"
	fscp__empty_dir "$FSCP_WORK/L"
	fscp__empty_dir "$SSHD_HOME"
	chmod 0755 "$SSHD_HOME"
	if [ -n "$FSCP_CMP_SETUP" ]; then
		(cd "$FSCP_WORK/L" && "$FSCP_CMP_SETUP") || fscp_hard_error "setup $FSCP_CMP_SETUP failed"
	fi
	local rc
	if [ "$FSCP_CMP_TTY" = 1 ]; then
		# A pseudo-terminal on stdout makes scp draw its progress meter.
		# script(1) runs the command with $SHELL (or /bin/sh when unset):
		# name bash, since `exec -a` is not in dash.
		local cmd
		cmd=$(printf '%q ' exec -a scp "$prog" "$@")
		(cd "$FSCP_WORK/L" && umask "$FSCP_CMP_UMASK" && SHELL=$BASH timeout "$FSCP_TIMEOUT" script -qefc "$cmd" /dev/null \
			</dev/null >"$out/stdout.raw" 2>"$out/stderr")
		rc=$?
		fscp__norm_tty <"$out/stdout.raw" >"$out/stdout"
	else
		(cd "$FSCP_WORK/L" && umask "$FSCP_CMP_UMASK" && timeout "$FSCP_TIMEOUT" bash -c 'exec -a scp "$@"' scp "$prog" "$@" \
			</dev/null >"$out/stdout" 2>"$out/stderr")
		rc=$?
	fi
	echo "$rc" >"$out/rc"
	# The program name as it may appear in messages: make it "scp" on both sides.
	sed -e "s|$prog|scp|g" -e "s|^$(basename "$prog"):|scp:|" "$out/stderr" >"$out/stderr.norm"
	if [ -n "$FSCP_CMP_POST" ]; then
		(cd "$FSCP_WORK/L" && "$FSCP_CMP_POST") || fscp_hard_error "post $FSCP_CMP_POST failed"
	fi
	mv "$FSCP_WORK/L" "$out/L"
	mkdir "$FSCP_WORK/L"
	mkdir "$out/R"
	find "$SSHD_HOME" -mindepth 1 -maxdepth 1 -exec mv -t "$out/R" {} +
	chmod --reference="$SSHD_HOME" "$out/R"
}

# fscp__rc_in RC LIST: RC is one of the |-separated LIST.
fscp__rc_in() {
	case "|$2|" in *"|$1|"*) return 0 ;; esac
	return 1
}

# fscp_compare [--name N] [--setup FN] [--post FN] [--times] [--no-stderr]
#              [--no-config] [--tty] [--umask U] [--expect-rc N|N|M] -- ARGS...
# --post FN runs in L after the program, before the trees are taken (e.g. to
# remove a huge source).  --umask sets the program's umask (default 022).
# --expect-rc also checks that scp exited with N, to
# catch a test that does not test what it means to.
fscp_compare() {
	local name="" times="" stderr=1 config=1 expect_rc=""
	FSCP_CMP_SETUP="" FSCP_CMP_POST="" FSCP_CMP_TTY=0 FSCP_CMP_UMASK=022
	while [ $# -gt 0 ]; do
		case $1 in
		--name) name=$2; shift 2 ;;
		--setup) FSCP_CMP_SETUP=$2; shift 2 ;;
		--post) FSCP_CMP_POST=$2; shift 2 ;;
		--times) times=times; shift ;;
		--no-stderr) stderr=0; shift ;;
		--no-config) config=0; shift ;;
		--tty) FSCP_CMP_TTY=1; shift ;;
		--umask) FSCP_CMP_UMASK=$2; shift 2 ;;
		--expect-rc) expect_rc=$2; shift 2 ;;
		--) shift; break ;;
		*) fscp_hard_error "fscp_compare: unknown option $1" ;;
		esac
	done
	local args=() a
	if [ "$config" = 1 ]; then args=(-F "$SSH_CONFIG"); fi
	for a in "$@"; do
		a=${a//\{HOME\}/$SSHD_HOME}
		a=${a//\{PORT\}/$SSHD_PORT}
		a=${a//\{WORK\}/$FSCP_WORK/L}
		args+=("$a")
	done
	[ -n "$name" ] || name="${args[*]}"

	fscp__run_side scp "$SCP" "${args[@]}"
	fscp__run_side fscp "$FSCP" "${args[@]}"

	local s="$FSCP_WORK/run/scp" f="$FSCP_WORK/run/fscp" bad="" report=""
	local rs rf
	rs=$(cat "$s/rc") rf=$(cat "$f/rc")
	# N|M: scp's own outcome races (a write to its dead ssh is SIGPIPE,
	# "lost connection", 1; a read is EOF, 255): either will do, for both.
	if [ -n "$expect_rc" ] && ! fscp__rc_in "$rs" "$expect_rc"; then
		fscp_hard_error "[$name] scp itself exited $rs, the test expects $expect_rc; its stderr: $(cat "$s/stderr")${FSCP_CMP_TTY:+; its terminal: $(cat "$s/stdout.raw")}"
	fi
	if [ "${expect_rc#*|}" != "$expect_rc" ]; then
		if ! fscp__rc_in "$rf" "$expect_rc"; then
			bad=1
			report+="  exit status: fscp $rf, not one of $expect_rc (scp $rs)"$'\n'
		fi
	elif [ "$rs" != "$rf" ]; then
		bad=1
		report+="  exit status: scp $rs, fscp $rf"$'\n'
	fi
	if ! cmp -s "$s/stdout" "$f/stdout"; then
		bad=1
		report+="  stdout differs (--- scp, +++ fscp):"$'\n'
		report+=$(diff -u <(cat -A "$s/stdout") <(cat -A "$f/stdout") | tail -n +3 | head -40)$'\n'
	fi
	if [ "$stderr" = 1 ] && ! cmp -s "$s/stderr.norm" "$f/stderr.norm"; then
		bad=1
		report+="  stderr differs (--- scp, +++ fscp; program name normalised, \$ = end of line, ^M = CR):"$'\n'
		report+=$(diff -u <(cat -A "$s/stderr.norm") <(cat -A "$f/stderr.norm") | tail -n +3 | head -40)$'\n'
	fi
	local trees
	if ! trees=$(fscp__cmp_trees "${times:-none}" local "$s/L" "$f/L" "remote home" "$s/R" "$f/R"); then
		bad=1
		report+=$trees$'\n'
	fi

	if [ -n "$bad" ]; then
		bad "$name"
		echo "  command: scp ${args[*]}"
		printf '%s' "$report"
		if [ "$stderr" = 0 ]; then
			echo "  (stderr not compared) scp: $(tr '\r\n' '  ' <"$s/stderr" | head -c 300)"
			echo "                       fscp: $(tr '\r\n' '  ' <"$f/stderr" | head -c 300)"
		fi
		# Keep this comparison's evidence for a look after the test.
		if [ "${FSCP_KEEP:-0}" = 1 ]; then
			local keep="$FSCP_WORK/failed/$CHECKS_FAILED"
			mkdir -p "$keep" && mv "$s" "$f" "$keep/" && echo "  kept in $keep"
		fi
	else
		ok "$name (exit $rs)"
		if [ "$stderr" = 0 ] && ! cmp -s "$s/stderr.norm" "$f/stderr.norm"; then
			echo "  note, not counted: stderr differs"
			echo "    scp:  $(tr '\r\n' '  ' <"$s/stderr.norm" | head -c 300)"
			echo "    fscp: $(tr '\r\n' '  ' <"$f/stderr.norm" | head -c 300)"
		fi
	fi
	rm -rf "$s" "$f"
}
