#!/bin/bash
# bench/run.sh: fscp against /usr/bin/scp (and rsync, sftp where installed),
# side by side, on loopback only.  Starts its own sshd on 127.0.0.1, its own
# ControlMaster, delay relay and fake AWS SSM, runs every scenario with scp and
# the contenders ALTERNATELY (scp, fscp, [rsync, sftp,] scp, fscp, ...), checks
# every copy's SHA-256 and prints one table of medians and speedups.
# It measures; it never fails because something is slow.  A wrong copy is
# reported as FAIL in the table (and the exit status is 1).
#
# usage: bench/run.sh [--quick] [--fscp PATH] [--scp PATH] [--tools DIR]
#                     [--aws PATH] [--srcdir DIR] [--out DIR] [--runs N]
#                     [--only REGEX] [--keep]
#
#   --quick      reduced sizes, one run pair per scenario (under 3 minutes)
#   --fscp PATH  the fscp binary (default: src/fscp next to this script's tree)
#   --scp PATH   the scp to compare against (default /usr/bin/scp)
#   --tools DIR  where ssm-sim and delayrelay are built (default tests/tools)
#   --aws PATH   the fake aws CLI (default SRCDIR/tests/tools/aws)
#   --out DIR    where the Markdown/CSV/SVG results go (default bench/results)
#   --runs N     runs per tool and scenario (default 3, quick 1)
#   --only RE    run only the scenario groups whose id matches RE
#                (ids: direct cm ssm1 ssm3 rtt50 small small50)
#   --keep       keep the work directory (data, logs, raw measurements)
#
# Environment:
#   FSCP_BENCH_TMP   parent of the work directory (default /var/tmp; needs
#                    about 2.5 GiB free for the full run)
#   FSCP_BENCH_LONG  seconds: a tool whose first run of a scenario took longer
#                    than this is not run again there (default 120); the
#                    table marks such rows and says how many runs they have
#   PYTHON           python3 used for statistics and the plot
#
# How fscp is steered per scenario (see ENVIRONMENT in man/fscp.1):
#   SSM "direct route" rows run fscp with FSCP_SSM_DIRECT=auto, where the fake
#   `aws ec2 describe-instances` reports 127.0.0.1 as the instance's private
#   address and known_hosts holds the sshd's key under the instance name;
#   "no direct route" rows run it with FSCP_SSM_DIRECT=off.  Nothing else is
#   set: FSCP_ROUTE and FSCP_CONNECTIONS are left to fscp's defaults.
#
# Peak RSS is GNU time's %M: the largest resident set among the tool and the
# processes it waited for (for the standard route that includes ssh).

set -u

here=$(cd "$(dirname "$0")" && pwd)
srcdir=$(cd "$here/.." && pwd)
quick=0
fscp=''
scp=/usr/bin/scp
tools=''
aws=''
out=''
runs=''
only=''
keep=0

die() {
	printf 'bench: %s\n' "$*" >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--quick) quick=1 ;;
	--fscp) fscp=$2; shift ;;
	--scp) scp=$2; shift ;;
	--tools) tools=$2; shift ;;
	--aws) aws=$2; shift ;;
	--srcdir) srcdir=$2; shift ;;
	--out) out=$2; shift ;;
	--runs) runs=$2; shift ;;
	--only) only=$2; shift ;;
	--keep) keep=1 ;;
	-h|--help) sed -n '2,/^$/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument $1 (try --help)" ;;
	esac
	shift
done

fscp=${fscp:-$srcdir/src/fscp}
tools=${tools:-$srcdir/tests/tools}
aws=${aws:-$srcdir/tests/tools/aws}
out=${out:-$srcdir/bench/results}
if [ -z "$runs" ]; then
	if [ $quick = 1 ]; then runs=1; else runs=3; fi
fi
long=${FSCP_BENCH_LONG:-120}
py=${PYTHON:-python3}

for f in "$fscp" "$scp" "$tools/ssm-sim" "$tools/delayrelay" "$aws"; do
	[ -x "$f" ] || die "$f not found or not executable (build first: make)"
done
fscp=$(cd "$(dirname "$fscp")" && pwd)/$(basename "$fscp")
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install time"
# The interpreter itself, not a version manager's shim in front of it.
py=$("$py" -c 'import sys; print(sys.executable)' 2>/dev/null) ||
	die "python3 missing (statistics and plot)"
command -v sha256sum >/dev/null || die "sha256sum missing (coreutils)"
command -v timeout >/dev/null || die "timeout missing (coreutils)"
case $runs in ''|*[!0-9]*|0) die "--runs wants a positive integer" ;; esac
case $long in ""|*[!0-9]*) die "FSCP_BENCH_LONG wants whole seconds" ;; esac
# shellcheck source=../tests/lib/sshd.sh
. "$srcdir/tests/lib/sshd.sh" || die "cannot source tests/lib/sshd.sh"

mkdir -p "${FSCP_BENCH_TMP:-/var/tmp}" || die "cannot create ${FSCP_BENCH_TMP:-/var/tmp}"
W=$(mktemp -d "${FSCP_BENCH_TMP:-/var/tmp}/fscp-bench.XXXXXX") || die "mktemp failed"
RAW=$W/raw.tsv
NOTES=$W/notes.txt
: >"$RAW"
: >"$NOTES"

# ---- cleanup: every process this script starts ------------------------------
cm_pid=''
relay_pid=''
cleanup() {
	trap - EXIT INT TERM HUP
	if [ -n "$cm_pid" ]; then
		ssh -F "$W/ssh_config" -S "$W/cm.sock" -O exit bench-cm >/dev/null 2>&1
		kill "$cm_pid" 2>/dev/null
	fi
	[ -n "$relay_pid" ] && kill "$relay_pid" 2>/dev/null
	fscp_sshd_stop
	# Anything else still attached to us (a run cut short by a signal).
	local p
	for p in $(fscp__descendants $$); do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	if [ $keep = 1 ]; then
		echo "bench: work directory kept: $W" >&2
	else
		rm -rf "$W"
	fi
}
trap cleanup EXIT
trap 'echo "bench: interrupted" >&2; exit 130' INT TERM HUP

say() { printf 'bench: %s\n' "$*" >&2; }
note() { printf '%s\n' "$*" >>"$NOTES"; say "note: $*"; }

# ---- setup: sshd, ssh config, data ------------------------------------------
say "work directory $W"
fscp_sshd_start "$W/sshd" || die "could not start sshd"
say "sshd on 127.0.0.1:$SSHD_PORT"
H=$SSHD_HOME
mkdir -p "$W/data" "$W/down" "$H/data" "$H/up" "$W/bin"

hostkey=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
ssm_id=i-0fb5c0be0c4d1a2b3
ln -s "$aws" "$W/bin/aws"

# The relay for 50 ms round trip (25 ms each way).
relay_port=''
start_relay() {
	rm -f "$W/relay.port"
	"$tools/delayrelay" -l 127.0.0.1:0 -t "127.0.0.1:$SSHD_PORT" -d 25 \
		-p "$W/relay.port" >"$W/relay.log" 2>&1 </dev/null &
	relay_pid=$!
	local n=0
	while [ ! -s "$W/relay.port" ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	relay_port=$(cat "$W/relay.port" 2>/dev/null)
	[ -n "$relay_port" ] || die "delayrelay did not start: $(cat "$W/relay.log")"
	say "delay relay (25 ms each way) on 127.0.0.1:$relay_port"
}
start_relay

{
	echo "[127.0.0.1]:$SSHD_PORT $hostkey"
	echo "[127.0.0.1]:$relay_port $hostkey"
	echo "$ssm_id $hostkey"
	echo "[$ssm_id]:$SSHD_PORT $hostkey"
} >"$W/known_hosts"
echo "$ssm_id 127.0.0.1 $SSHD_PORT 127.0.0.1 -" >"$W/instances"

cat >"$W/ssh_config" <<EOF
# Written by bench/run.sh; every host is the private sshd on loopback.
Host bench-direct
	HostName 127.0.0.1
	Port $SSHD_PORT
Host bench-cm
	HostName 127.0.0.1
	Port $SSHD_PORT
	ControlMaster auto
	ControlPath $W/cm.sock
Host bench-rtt50
	HostName 127.0.0.1
	Port $relay_port
Host i-*
	Port $SSHD_PORT
	ProxyCommand sh -c "aws ssm start-session --target %h --document-name AWS-StartSSHSession --parameters 'portNumber=%p'"
Host *
	User root
	IdentityFile $SSHD_DIR/id_ed25519
	IdentitiesOnly yes
	UserKnownHostsFile $W/known_hosts
	GlobalKnownHostsFile /dev/null
	StrictHostKeyChecking yes
	BatchMode yes
	LogLevel ERROR
EOF

export PATH="$W/bin:$PATH"
export FSCP_FAKE_AWS_INSTANCES="$W/instances"
export FSCP_SSM_SIM="$tools/ssm-sim"
# Nothing from the caller's environment may steer fscp.
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_SSM_SIM_SETUP_MS

# The ControlMaster: a real `ssh -M`, found again through the config.
ssh -F "$W/ssh_config" -M -S "$W/cm.sock" -fN bench-cm </dev/null ||
	die "could not start the ControlMaster"
cm_pid=$(ssh -F "$W/ssh_config" -S "$W/cm.sock" -O check bench-cm 2>&1 |
	sed -n 's/.*pid=\([0-9]*\).*/\1/p')
[ -n "$cm_pid" ] || die "ControlMaster is not live"
say "ControlMaster pid $cm_pid on $W/cm.sock"

have_rsync=0
have_sftp=0
command -v rsync >/dev/null && have_rsync=1
command -v sftp >/dev/null && have_sftp=1
[ $have_rsync = 1 ] || note "rsync not installed: no rsync rows"
[ $have_sftp = 1 ] || note "sftp not installed: no sftp rows"

# Incompressible data, made once; the remote copy is a hard link (same disk).
mkfile() {	# name MiB
	head -c "$(($2 * 1048576))" /dev/urandom >"$W/data/$1" || die "cannot write $W/data/$1"
	ln "$W/data/$1" "$H/data/$1" || cp "$W/data/$1" "$H/data/$1"
	sha256sum <"$W/data/$1" | cut -d' ' -f1 >"$W/data/$1.sha"
}
mktree() {	# name count
	mkdir -p "$W/data/$1"
	# One stream cut into 4 KiB files f00000, f00001, ...: no process per file.
	head -c "$(($2 * 4096))" /dev/urandom |
		(cd "$W/data/$1" && split -b 4096 -a 5 -d - f) || die "cannot write $W/data/$1"
	cp -a "$W/data/$1" "$H/data/$1"
	tree_digest "$W/data/$1" >"$W/data/$1.sha"
}
# Relative names and contents of every regular file, as one digest.
tree_digest() {
	(cd "$1" 2>/dev/null && find . -type f -print0 | sort -z | xargs -0r sha256sum) |
		sha256sum | cut -d' ' -f1
}

if [ $quick = 1 ]; then
	MB_DIRECT=64 MB_CM=128 MB_SSM=4 MB_RTT=16 N_SMALL=300 N_SMALL50=100
	SSM_SETUPS="1"
else
	MB_DIRECT=512 MB_CM=1024 MB_SSM=20 MB_RTT=64 N_SMALL=2000 N_SMALL50=2000
	SSM_SETUPS="1 3"
fi

want() { [ -z "$only" ] || [[ $1 =~ $only ]]; }

say "making test data"
want direct && mkfile direct.bin "$MB_DIRECT"
want cm && mkfile cm.bin "$MB_CM"
{ want ssm1 || want ssm3; } && mkfile ssm.bin "$MB_SSM"
want rtt50 && mkfile rtt.bin "$MB_RTT"
want small && mktree small "$N_SMALL"
want small50 && mktree small50 "$N_SMALL50"

# ---- one run -----------------------------------------------------------------
# Globals of the current group (set by bench_group's caller):
#   G_ID G_HOST G_NAME (file or tree under data/) G_KIND (file|tree) G_DIR
#   (upload|download) G_BYTES G_LIMIT (timeout, s)
# run_one TOOL ENV... -> sets R_STATUS R_SECS R_KIB
# Runs in this shell, the tool in the background and waited for, so that a
# signal to the script runs the cleanup trap at once.
run_one() {
	local tool=$1 src dst dstpath rflag='' log=$W/run.log rss=$W/rss t0 t1 rc
	shift
	local -a cmd
	if [ "$G_DIR" = upload ]; then
		src=$W/data/$G_NAME
		dstpath=$H/up/$G_NAME
		dst=$G_HOST:$dstpath
	else
		src=$G_HOST:$H/data/$G_NAME
		dstpath=$W/down/$G_NAME
		dst=$dstpath
	fi
	rm -rf "$dstpath"
	[ "$G_KIND" = tree ] && rflag=-r
	case $tool in
	scp) cmd=("$scp" -F "$W/ssh_config" $rflag "$src" "$dst") ;;
	fscp) cmd=("$fscp" -F "$W/ssh_config" $rflag "$src" "$dst") ;;
	rsync)
		if [ "$G_KIND" = tree ]; then
			cmd=(rsync -r -e "ssh -F $W/ssh_config" "$src/" "$dst/")
		else
			cmd=(rsync -e "ssh -F $W/ssh_config" "$src" "$dst")
		fi ;;
	sftp)
		if [ "$G_DIR" = upload ]; then
			printf 'put %s "%s" "%s"\n' "$rflag" "$src" "$dstpath" >"$W/batch"
		else
			printf 'get %s "%s" "%s"\n' "$rflag" "$H/data/$G_NAME" "$dstpath" >"$W/batch"
		fi
		cmd=(sftp -F "$W/ssh_config" -R 256 -B 261120 -b "$W/batch" "$G_HOST") ;;
	esac
	rm -f "$rss"
	t0=$EPOCHREALTIME
	env "$@" timeout -k 5 "$G_LIMIT" /usr/bin/time -f %M -o "$rss" \
		"${cmd[@]}" </dev/null >"$log" 2>&1 &
	wait $!
	rc=$?
	t1=$EPOCHREALTIME
	local secs kib status=ok got want us
	# Microseconds from $EPOCHREALTIME in shell arithmetic: no process per run.
	us=$((10#${t1/./} - 10#${t0/./}))
	printf -v secs '%d.%03d' $((us / 1000000)) $((us % 1000000 / 1000))
	kib=$(tail -n 1 "$rss" 2>/dev/null | tr -cd 0-9)
	if [ $rc = 124 ] || [ $rc = 137 ]; then
		status=TIMEOUT
	elif [ $rc != 0 ]; then
		status=ERR
	else
		if [ "$G_KIND" = tree ]; then
			got=$(tree_digest "$dstpath")
		else
			got=$(sha256sum <"$dstpath" 2>/dev/null | cut -d' ' -f1)
		fi
		want=$(cat "$W/data/$G_NAME.sha")
		[ "$got" = "$want" ] || status=FAIL
	fi
	if [ $status != ok ]; then
		echo "$tool $G_ID $G_DIR $status" >>"$W/failures"
		say "$status: $tool $G_ID $G_DIR (exit $rc); last lines of its output:"
		tail -n 5 "$log" | sed 's/^/    /' >&2
		cp "$log" "$W/fail-$(wc -l <"$W/failures").log"
	fi
	rm -rf "$dstpath"
	R_STATUS=$status R_SECS=$secs R_KIB=${kib:-0}
}

# bench_group SCP_RUNS CONTENDER...
# A contender is "tool|row label|goal speedup|ENV=V ENV=V" (goal may be empty).
# Each round runs scp (while it has runs left) and then every contender once.
bench_group() {
	local scp_runs=$1 r tool label goal envs st secs kib i
	shift
	local -a cs=("$@") done_runs skip
	local scp_done=0 scp_skip=0
	for ((i = 0; i < ${#cs[@]}; i++)); do done_runs[i]=0; skip[i]=0; done
	for ((r = 1; r <= runs; r++)); do
		if [ $r -le "$scp_runs" ] && [ $scp_skip = 0 ]; then
			run_one scp $G_ENV
			st=$R_STATUS secs=$R_SECS kib=$R_KIB
			say "$(printf '%-8s %-9s round %d  scp   %8ss  %s' "$G_ID" "$G_DIR" "$r" "$secs" "$st")"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$G_ID" "$G_LABEL" "$G_DIR" scp \
				"$r" "$st" "$secs" "$kib" "$G_BYTES" "" >>"$RAW"
			scp_done=$((scp_done + 1))
			if [ "${secs%.*}" -ge "$long" ]; then
				scp_skip=1
			fi
		fi
		for ((i = 0; i < ${#cs[@]}; i++)); do
			[ "${skip[i]}" = 0 ] || continue
			IFS='|' read -r tool label goal envs <<<"${cs[i]}"
			# shellcheck disable=SC2086
			run_one "$tool" $G_ENV $envs
			st=$R_STATUS secs=$R_SECS kib=$R_KIB
			say "$(printf '%-8s %-9s round %d  %-5s %8ss  %s  (%s)' "$G_ID" "$G_DIR" "$r" "$tool" "$secs" "$st" "$label")"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$G_ID" "$label" "$G_DIR" "$tool" \
				"$r" "$st" "$secs" "$kib" "$G_BYTES" "$goal" >>"$RAW"
			done_runs[i]=$((done_runs[i] + 1))
			if [ "${secs%.*}" -ge "$long" ]; then
				skip[i]=1
			fi
		done
	done
	if [ $scp_done -lt "$runs" ]; then
		note "$G_LABEL, $G_DIR: scp ran $scp_done of $runs times" \
			"(a run takes minutes; speedups there use scp's median)"
	fi
	for ((i = 0; i < ${#cs[@]}; i++)); do
		if [ "${done_runs[i]}" -lt "$runs" ]; then
			IFS='|' read -r tool label goal envs <<<"${cs[i]}"
			note "$label, $G_DIR: $tool ran ${done_runs[i]} of $runs times (first run > ${long} s)"
		fi
	done
}

peers() {	# the rsync/sftp contenders for the current label (quick: direct only)
	[ $quick = 1 ] && [ "$G_ID" != direct ] && return 0
	[ $have_rsync = 1 ] && printf '%s\n' "rsync|$1||"
	[ $have_sftp = 1 ] && printf '%s\n' "sftp|$1||"
}

run_groups() {	# dir
	local d=$1 s label lim_big lim_small
	local -a ps
	G_DIR=$d
	G_ENV=''
	if [ $quick = 1 ]; then lim_big=120 lim_small=300; else lim_big=900 lim_small=1800; fi
	if want direct; then
		label="direct $MB_DIRECT MiB"
		G_ID=direct G_LABEL=$label G_HOST=bench-direct G_NAME=direct.bin G_KIND=file
		G_BYTES=$((MB_DIRECT * 1048576)) G_LIMIT=$lim_big
		mapfile -t ps < <(peers "$label")
		bench_group "$runs" "fscp|$label|1.25|" "${ps[@]}"
	fi
	if want cm; then
		label="ControlMaster $MB_CM MiB"
		G_ID=cm G_LABEL=$label G_HOST=bench-cm G_NAME=cm.bin G_KIND=file
		G_BYTES=$((MB_CM * 1048576)) G_LIMIT=$lim_big
		bench_group "$runs" "fscp|$label|1.25|"
	fi
	for s in $SSM_SETUPS; do
		want "ssm$s" || continue
		label="SSM $MB_SSM MiB, ${s} s setup"
		G_ID=ssm$s G_LABEL=$label G_HOST=$ssm_id G_NAME=ssm.bin G_KIND=file
		G_BYTES=$((MB_SSM * 1048576)) G_LIMIT=$lim_big
		G_ENV="FSCP_SSM_SIM_SETUP_MS=$((s * 1000))"
		bench_group "$runs" \
			"fscp|$label, no direct route|6|FSCP_SSM_DIRECT=off" \
			"fscp|$label, direct route|20|FSCP_SSM_DIRECT=auto"
		G_ENV=''
	done
	if want rtt50; then
		label="50 ms RTT $MB_RTT MiB"
		G_ID=rtt50 G_LABEL=$label G_HOST=bench-rtt50 G_NAME=rtt.bin G_KIND=file
		G_BYTES=$((MB_RTT * 1048576)) G_LIMIT=$lim_big
		mapfile -t ps < <(peers "$label")
		bench_group "$runs" "fscp|$label|4|" "${ps[@]}"
	fi
	if want small; then
		label="$N_SMALL x 4 KiB -r, direct"
		G_ID=small G_LABEL=$label G_HOST=bench-direct G_NAME=small G_KIND=tree
		G_BYTES=$((N_SMALL * 4096)) G_LIMIT=$lim_small
		mapfile -t ps < <(peers "$label")
		bench_group "$runs" "fscp|$label|2|" "${ps[@]}"
	fi
	if want small50; then
		label="$N_SMALL50 x 4 KiB -r, 50 ms RTT"
		G_ID=small50 G_LABEL=$label G_HOST=bench-rtt50 G_NAME=small50 G_KIND=tree
		G_BYTES=$((N_SMALL50 * 4096)) G_LIMIT=$lim_small
		# scp needs ~4 round trips per file here (minutes per run): once is enough.
		bench_group 1 "fscp|$label|100|"
	fi
}

load0=$(cut -d' ' -f1-3 /proc/loadavg)
# The source's revision now: the tree may move on during a long run.
rev=$(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo unknown)
t_start=$SECONDS
run_groups upload
run_groups download
elapsed=$((SECONDS - t_start))

# ---- the machine, the table ----------------------------------------------------
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
libssh=$(pkg-config --modversion libssh 2>/dev/null ||
	dpkg-query -W -f='${Version}' libssh-4 2>/dev/null || echo unknown)
{
	echo "date=$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "mode=$([ $quick = 1 ] && echo quick || echo full) ($runs run(s) per tool, ${elapsed} s)"
	echo "machine=$(nproc) CPUs, ${cpu:-unknown CPU}, Linux $(uname -r), $(free -g | awk '/^Mem:/{print $2}') GiB RAM, load average at start $load0, at end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "versions=$(ssh -V 2>&1 | cut -d, -f1), libssh $libssh, fscp $rev ($fscp)"
} >"$W/machine"

mkdir -p "$out" || die "cannot create $out"
stamp=$(date -u +%Y%m%d-%H%M%S)-$([ $quick = 1 ] && echo quick || echo full)
"$py" "$here/report.py" "$RAW" "$W/machine" "$NOTES" "$out/$stamp" || die "report failed"
cp "$RAW" "$out/$stamp.raw.tsv"
say "results: $out/$stamp.{md,csv,svg,raw.tsv}"
if [ -s "$W/failures" ]; then
	say "$(wc -l <"$W/failures") run(s) failed or copied wrong data:"
	sed 's/^/    /' "$W/failures" >&2
	exit 1
fi
exit 0
