#!/bin/bash
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
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
#                     [--only REGEX] [--keep] [--matrix-rtts "MS ..."]
#                     [--matrix-mb N] [--matrix-ssm-mb N] [--aws-cpu-ms MS]
#                     [--env normal|halfcpu|costly-ssm] [--cpu-quota PCT]
#                     [--quota-scope all|client] [--ssm-msg-cpu-us US]
#                     [--sweep "N ..."] [--relay-cpu NS] [--publish DIR]
#
#   --quick      reduced sizes, one run pair per scenario (under 3 minutes)
#   --fscp PATH  the fscp binary (default: src/fscp next to this script's tree)
#   --scp PATH   the scp to compare against (default /usr/bin/scp)
#   --tools DIR  where ssm-sim and delayrelay are built (default tests/tools)
#   --aws PATH   the fake aws CLI (default SRCDIR/tests/tools/aws)
#   --out DIR    where the Markdown/CSV/SVG results go (default bench/results)
#   --runs N     runs per tool and scenario (default 3, quick 1); a scenario
#                whose first scp run takes under FSCP_BENCH_SHORT_S seconds
#                (2) runs FSCP_BENCH_SHORT_RUNS times (3N; quick: N)
#   --only RE    run only the scenario groups whose id matches RE (bash
#                regex): direct cm ssm1 ssm3 ssm-tree rtt50 small small50, the goal
#                groups goal-near goal-nearcm goal-plain50 goal-cm50
#                goal-proxy50 goal-ssm20 goal-ssm100, and the matrix cells
#                matrix-ROUTE-RTT (ROUTE: standard fresh controlmaster proxied
#                proxyjump ssm-parallel ssm-direct), e.g. --only matrix,
#                --only matrix-proxied, --only 'matrix-fresh-(0|50)$'
#   --keep       keep the work directory (data, logs, raw measurements)
#   --matrix-rtts "MS ..."  round trips of the matrix (default "0 10 50 150",
#                quick "0 50"); one delayrelay (-d MS/2) per non-zero RTT
#   --matrix-mb N      file size of the non-SSM matrix cells (default 64,
#                quick 16; the fresh row uses at least 64, fscp's threshold)
#   --matrix-ssm-mb N  file size of the SSM matrix cells (default 8, quick 2)
#   --aws-cpu-ms MS    CPU time each fake `aws` start burns (default: the
#                environment's, 600 or 1500; CLI v1 spends ~0.58 s user + 0.10 s
#                sys before reaching AWS, v2 ~0.3 s, a slow machine 1.5 s)
#   --env NAME   the machine the copies run on (default normal):
#                  normal      as before: no quota, 600 ms per CLI start,
#                              SSM sessions free of CPU per message
#                  halfcpu     the same under a CPU quota of half the machine
#                  costly-ssm  no quota, 1500 ms per CLI start, and every SSM
#                              message costs ssm-sim's default CPU (-m)
#                --aws-cpu-ms, --cpu-quota, --ssm-msg-cpu-us override its parts
#   --cpu-quota PCT    run under a cgroup v1 CPU quota of PCT % of all CPUs
#                (0: none); period 10 ms, so that a throttled process waits
#                milliseconds, not a 100 ms default period's tens of them
#   --quota-scope all|client   what runs inside the quota: all (default: the
#                script and so sshd, relays, masters, ssm-sim and both
#                clients: the whole machine is slower) or client (each timed
#                copy and its children only: scp, ssh, fscp, ProxyCommands)
#   --ssm-msg-cpu-us US  CPU each SSM message costs in ssm-sim (-m)
#   --sweep "N ..."    FSCP_CONNECTIONS values run beside fscp's own choice in
#                goal-plain50, goal-ssm20 and goal-ssm100 (there only N >= 4:
#                fewer sessions take minutes per run); default "1 2 4 8 16",
#                "" for none
#   --relay-cpu NS     CPU time (ns) every delay relay spends per KiB it
#                relays (delayrelay -b; default 0), as a tunnel on the path
#   --publish DIR      also write the report to DIR/DATE-MODE.{md,csv,svg}
#                (DATE-env-NAME.* with --env; make bench-publish:
#                bench/published in the source tree)
#
# The goal groups are the issue's targets at the issue's sizes; quick mode
# leaves them out unless --only names them.
#
# Environment:
#   FSCP_BENCH_TMP   parent of the work directory (default /var/tmp; needs
#                    about 2.5 GiB free for the full run)
#   FSCP_BENCH_LONG  seconds: a tool whose first run of a scenario took longer
#                    than this is not run again there (default 120); the
#                    table marks such rows and says how many runs they have
#   FSCP_BENCH_SHORT_S, FSCP_BENCH_SHORT_RUNS  a scenario whose first scp
#                    run took under SHORT_S seconds (2) runs SHORT_RUNS
#                    rounds (three times --runs; quick: --runs)
#   PYTHON           python3 used for statistics and the plot
#
# How fscp is steered per scenario (see ENVIRONMENT in man/fscp.1):
#   SSM "direct route" rows run fscp with FSCP_SSM_DIRECT=auto, where the fake
#   `aws ec2 describe-instances` reports 127.0.0.1 as the instance's private
#   address and known_hosts holds the sshd's key under the instance name;
#   "no direct route" rows run it with FSCP_SSM_DIRECT=off.  Nothing else is
#   set: FSCP_ROUTE and FSCP_CONNECTIONS are left to fscp's defaults.
#
# The matrix: every route x every RTT x upload/download, each cell its own
# group (scp and fscp alternating; the two SSM rows of one RTT share scp's
# runs).  Each route is its own Host in the generated ssh_config:
#   standard       plain host, fscp with FSCP_ROUTE=standard
#   fresh          plain host, fscp's auto route (fresh connections)
#   controlmaster  a live `ssh -M` master per RTT (ControlMaster auto)
#   proxied        ProxyCommand nc (OpenBSD netcat) or, without it, ssm-sim
#                  with every SSM effect off as a plain stdio relay
#   proxyjump      ProxyJump through a bastion Host (the same sshd; the RTT
#                  is on the client-bastion leg)
#   ssm-parallel   the SSM ProxyCommand, FSCP_SSM_DIRECT=off
#   ssm-direct     the same, FSCP_SSM_DIRECT=auto; the instance's private
#                  address (127.0.0.1, the same relay port) has the known key
# For SSM the RTT is on the path ssm-sim (and the direct address) uses to reach
# sshd: one instance id per RTT, its registry port the relay's.  fscp runs
# with -v everywhere, and the route it took is recorded (raw column 11).
#
# Peak RSS is GNU time's %M: the largest resident set among the tool and the
# processes it waited for (for the standard route that includes ssh).
# CPU per copy is user + system time of every process the copy started (a
# per-run cgroup v1 cpuacct group: reaped or not, ProxyCommands and the CLIs
# included), plus the ControlMaster's own CPU during the copy where the host
# has one (scp's ssh and fscp may both hand work to it); without cpuacct,
# GNU time's %U + %S (the tool and the children it waited for).

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
m_rtts=''
m_mb=''
m_ssm_mb=''
aws_cpu=''
publish=''
envname=''
quota=''
qscope=all
msg_cpu=''
sweep='1 2 4 8 16'
relay_cpu=0
cg_quota='' cg_acct='' cg_desc=''

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
	--matrix-rtts) m_rtts=$2; shift ;;
	--matrix-mb) m_mb=$2; shift ;;
	--matrix-ssm-mb) m_ssm_mb=$2; shift ;;
	--aws-cpu-ms) aws_cpu=$2; shift ;;
	--env) envname=$2; shift ;;
	--cpu-quota) quota=$2; shift ;;
	--quota-scope) qscope=$2; shift ;;
	--ssm-msg-cpu-us) msg_cpu=$2; shift ;;
	--sweep) sweep=$2; shift ;;
	--relay-cpu) relay_cpu=$2; shift ;;
	--publish) publish=$2; shift ;;
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
if [ $quick = 1 ]; then
	m_rtts=${m_rtts:-0 50} m_mb=${m_mb:-16} m_ssm_mb=${m_ssm_mb:-2}
else
	m_rtts=${m_rtts:-0 10 50 150} m_mb=${m_mb:-64} m_ssm_mb=${m_ssm_mb:-8}
fi
long=${FSCP_BENCH_LONG:-120}
# A cell whose first scp run is under short_s seconds runs short_runs
# rounds, not runs: copies that short are ties on ssh's route and move by
# a fifth between runs, so three pairs do not say which side of 1.0x they
# fall on.  Long cells keep runs; they cost minutes each.
short_s=${FSCP_BENCH_SHORT_S:-2}
short_runs=${FSCP_BENCH_SHORT_RUNS:-$((quick == 1 ? runs : 3 * runs))}
# The environment's parts; flags given win.
case ${envname:-normal} in
normal) : "${aws_cpu:=600}" "${quota:=0}" "${msg_cpu:=0}" ;;
halfcpu) : "${aws_cpu:=600}" "${quota:=50}" "${msg_cpu:=0}" ;;
costly-ssm) : "${aws_cpu:=1500}" "${quota:=0}" "${msg_cpu:=default}" ;;
*) die "--env wants normal, halfcpu or costly-ssm (got $envname)" ;;
esac
py=${PYTHON:-python3}

for f in "$fscp" "$scp" "$tools/ssm-sim" "$tools/delayrelay" "$aws"; do
	[ -x "$f" ] || die "$f not found or not executable (build first: make)"
done
fscp=$(cd "$(dirname "$fscp")" && pwd)/$(basename "$fscp")
# Absolute: the fake aws is linked into the work directory's bin/.
aws=$(cd "$(dirname "$aws")" && pwd)/$(basename "$aws")
tools=$(cd "$tools" && pwd)
[ -x /usr/bin/time ] || die "/usr/bin/time missing: apt-get install time"
# The interpreter itself, not a version manager's shim in front of it.
py=$("$py" -c 'import sys; print(sys.executable)' 2>/dev/null) ||
	die "python3 missing (statistics and plot)"
command -v sha256sum >/dev/null || die "sha256sum missing (coreutils)"
command -v timeout >/dev/null || die "timeout missing (coreutils)"
case $runs in ''|*[!0-9]*|0) die "--runs wants a positive integer" ;; esac
case $long in ""|*[!0-9]*) die "FSCP_BENCH_LONG wants whole seconds" ;; esac
case $short_s in ""|*[!0-9]*) die "FSCP_BENCH_SHORT_S wants whole seconds" ;; esac
case $short_runs in ""|*[!0-9]*) die "FSCP_BENCH_SHORT_RUNS wants a whole number" ;; esac
for v in $m_rtts; do
	case $v in *[!0-9]*) die "--matrix-rtts wants whole milliseconds (got $v)" ;; esac
done
[ -n "${m_rtts// /}" ] || die "--matrix-rtts is empty"
case $m_mb in ''|*[!0-9]*|0) die "--matrix-mb wants a positive integer" ;; esac
case $m_ssm_mb in ''|*[!0-9]*|0) die "--matrix-ssm-mb wants a positive integer" ;; esac
case $aws_cpu in ''|*[!0-9]*) die "--aws-cpu-ms wants whole milliseconds" ;; esac
case $quota in ''|*[!0-9]*) die "--cpu-quota wants a whole percentage" ;; esac
[ "$quota" -le 100 ] || die "--cpu-quota is a percentage of all CPUs (at most 100)"
case $qscope in all|client) ;; *) die "--quota-scope wants all or client" ;; esac
case $relay_cpu in ''|*[!0-9]*) die "--relay-cpu wants whole nanoseconds per KiB" ;; esac
case $msg_cpu in default) ;; ''|*[!0-9]*) die "--ssm-msg-cpu-us wants whole microseconds" ;; esac
for v in $sweep; do
	case $v in *[!0-9]*|0) die "--sweep wants connection counts (got $v)" ;; esac
done
if [ -n "$publish" ]; then
	mkdir -p "$publish" || die "cannot create $publish"
	publish=$(cd "$publish" && pwd)
fi
# shellcheck source=../tests/lib/sshd.sh
. "$srcdir/tests/lib/sshd.sh" || die "cannot source tests/lib/sshd.sh"

mkdir -p "${FSCP_BENCH_TMP:-/var/tmp}" || die "cannot create ${FSCP_BENCH_TMP:-/var/tmp}"
W=$(mktemp -d "${FSCP_BENCH_TMP:-/var/tmp}/fscp-bench.XXXXXX") || die "mktemp failed"
RAW=$W/raw.tsv
NOTES=$W/notes.txt
: >"$RAW"
: >"$NOTES"

# ---- cleanup: every process this script starts ------------------------------
# Masters (`ssh -M -f` detaches, so it is no descendant of ours): host, socket
# and pid, index by index.  Relays: pids.
cm_hosts=()
cm_socks=()
cm_pids=()
relay_pids=()
cleanup() {
	trap - EXIT INT TERM HUP
	local i p
	for ((i = 0; i < ${#cm_hosts[@]}; i++)); do
		ssh -F "$W/ssh_config" -S "${cm_socks[i]}" -O exit "${cm_hosts[i]}" >/dev/null 2>&1
		[ -n "${cm_pids[i]}" ] && kill "${cm_pids[i]}" 2>/dev/null
	done
	for p in "${relay_pids[@]}"; do
		kill "$p" 2>/dev/null
	done
	fscp_sshd_stop
	# Anything else still attached to us (a run cut short by a signal).
	for p in $(fscp__descendants $$); do
		kill "$p" 2>/dev/null
	done
	wait 2>/dev/null
	cg_remove "$cg_acct"
	cg_remove "$cg_quota"
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

# ---- cgroups (v1): the CPU quota, and the CPU each copy costs -------------------
# A controller's mount and this process's group in it: "cpu" -> the directory.
cg_here() {
	local mnt rel
	for mnt in /sys/fs/cgroup/"$1" /sys/fs/cgroup/cpu,cpuacct /sys/fs/cgroup/cpuacct,cpu; do
		[ -f "$mnt/$2" ] || continue
		rel=$(awk -F: -v c="$1" '{ n = split($2, a, ","); for (i = 1; i <= n; i++) if (a[i] == c) print $3 }' \
			/proc/self/cgroup)
		printf '%s%s\n' "$mnt" "${rel%/}"
		return 0
	done
	return 1
}
# Everything still in the group goes back to its parent; then it goes.
cg_remove() {	# dir
	local d=$1 p n=0
	[ -n "$d" ] && [ -d "$d" ] || return 0
	while [ $n -lt 30 ]; do
		while read -r p; do
			echo "$p" >"${d%/*}/cgroup.procs" 2>/dev/null
		done <"$d/cgroup.procs"
		rmdir "$d" 2>/dev/null && return 0
		sleep 0.1
		n=$((n + 1))
	done
	say "could not remove cgroup $d"
}
# Per-run CPU: every process of a copy joins one cpuacct group, reset per run.
if parent=$(cg_here cpuacct cpuacct.usage) && mkdir "$parent/fscp-bench-$$" 2>/dev/null; then
	cg_acct=$parent/fscp-bench-$$
else
	note "no cgroup v1 cpuacct controller: CPU per copy is GNU time's user + sys (reaped children only)"
fi
if [ "$quota" -gt 0 ]; then
	parent=$(cg_here cpu cpu.cfs_quota_us) ||
		die "--cpu-quota needs the cgroup v1 cpu controller (cpu.cfs_quota_us under /sys/fs/cgroup/cpu)"
	cg_quota=$parent/fscp-bench-$$
	mkdir "$cg_quota" || die "cannot create $cg_quota (root needed)"
	# A 10 ms period: throttled processes wait milliseconds, as on a slow
	# CPU, not the tens of milliseconds of the 100 ms default.
	q=$(($(nproc) * 10000 * quota / 100))
	echo 10000 >"$cg_quota/cpu.cfs_period_us" && echo "$q" >"$cg_quota/cpu.cfs_quota_us" ||
		die "cannot set the CPU quota in $cg_quota"
	cg_desc="CPU quota $quota% of $(nproc) CPUs ($q us per 10000 us), scope $qscope"
	# Scope all: this script joins, so sshd, relays, masters and every copy
	# started from here on inherit the quota.
	if [ "$qscope" = all ]; then
		echo $$ >"$cg_quota/cgroup.procs" || die "cannot join $cg_quota"
	fi
	say "$cg_desc"
fi

# ---- setup: sshd, relays, ssh config, masters, data -------------------------
say "work directory $W"
fscp_sshd_start "$W/sshd" || die "could not start sshd"
say "sshd on 127.0.0.1:$SSHD_PORT"
H=$SSHD_HOME
mkdir -p "$W/data" "$W/down" "$H/data" "$H/up" "$W/bin"

hostkey=$(cut -d' ' -f1,2 "$SSHD_DIR/ssh_host_ed25519_key.pub")
ssm_id=i-0fb5c0be0c4d1a2b3
# The same instance as describe-instances shows one without an address:
# the lookup runs and finds nothing (the tiny copy's costliest case).
ssm_nd_id=i-0fb5c0be0c4d1a2b4
ln -s "$aws" "$W/bin/aws"

want() { [ -z "$only" ] || [[ $1 =~ $only ]]; }
# The goal groups run at the issue's sizes: quick mode only when asked for.
want_goal() { if [ $quick = 1 ]; then [ -n "$only" ] && want "$1"; else want "$1"; fi; }
M_ROUTES="standard fresh controlmaster proxied proxyjump ssm-parallel ssm-direct"
want_matrix() {	# [route] [rtt]: is any matching matrix cell wanted?
	local r t
	for r in $M_ROUTES; do
		[ -n "${1:-}" ] && [ "$r" != "$1" ] && continue
		for t in $m_rtts; do
			[ -n "${2:-}" ] && [ "$t" != "$2" ] && continue
			want "matrix-$r-$t" && return 0
		done
	done
	return 1
}
m_ssm_id() { printf 'i-0bec%013d' "$1"; }	# one instance per RTT

# One delay relay per round trip: -d is one way, RTT/2 (fractional is fine).
declare -A rport=([0]=$SSHD_PORT)
start_relay() {	# rtt_ms
	local rtt=$1 oneway pf=$W/relay-$1.port n=0 pid
	[ -n "${rport[$rtt]:-}" ] && return 0
	if [ $((rtt % 2)) = 0 ]; then oneway=$((rtt / 2)); else oneway=$((rtt / 2)).5; fi
	"$tools/delayrelay" -l 127.0.0.1:0 -t "127.0.0.1:$SSHD_PORT" -d "$oneway" \
		-b "$relay_cpu" -p "$pf" >"$W/relay-$rtt.log" 2>&1 </dev/null &
	pid=$!
	relay_pids+=("$pid")
	while [ ! -s "$pf" ] && [ $n -lt 100 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	rport[$rtt]=$(cat "$pf" 2>/dev/null)
	[ -n "${rport[$rtt]}" ] || die "delayrelay did not start: $(cat "$W/relay-$rtt.log")"
	say "delay relay ($oneway ms each way, $rtt ms RTT) on 127.0.0.1:${rport[$rtt]}"
}
start_relay 50
for t in $m_rtts; do
	want_matrix '' "$t" && [ "$t" != 0 ] && start_relay "$t"
done
relay_port=${rport[50]}

# The generic ProxyCommand: OpenBSD netcat if installed, else ssm-sim with
# every SSM effect off (no setup, no pacing, no delay): a plain stdio relay.
if command -v nc >/dev/null && nc -h 2>&1 | grep -q OpenBSD; then
	proxy_cmd='nc 127.0.0.1 %p'
	proxy_what='nc (OpenBSD netcat)'
else
	proxy_cmd="$tools/ssm-sim -s 0 -c 0 -d 0 -m 0 -p 262144 127.0.0.1:%p"
	proxy_what='ssm-sim -s 0 -c 0 -d 0 -m 0 as a plain relay (no OpenBSD nc installed)'
fi

{
	for t in "${!rport[@]}"; do
		echo "[127.0.0.1]:${rport[$t]} $hostkey"
	done
	echo "$ssm_id $hostkey"
	echo "[$ssm_id]:$SSHD_PORT $hostkey"
	echo "$ssm_nd_id $hostkey"
	echo "[$ssm_nd_id]:$SSHD_PORT $hostkey"
	for t in "${!rport[@]}"; do
		echo "$(m_ssm_id "$t") $hostkey"
		echo "[$(m_ssm_id "$t")]:${rport[$t]} $hostkey"
	done
} >"$W/known_hosts"
{
	echo "$ssm_id 127.0.0.1 $SSHD_PORT 127.0.0.1 -"
	echo "$ssm_nd_id 127.0.0.1 $SSHD_PORT - -"
	# The SSM path and the direct address both go through the RTT's relay.
	for t in "${!rport[@]}"; do
		echo "$(m_ssm_id "$t") 127.0.0.1 ${rport[$t]} 127.0.0.1 -"
	done
} >"$W/instances"

{
	echo "# Written by bench/run.sh; every host is the private sshd on loopback."
	cat <<EOF
Host bench-direct
	HostName 127.0.0.1
	Port $SSHD_PORT
Host bench-rtt50
	HostName 127.0.0.1
	Port $relay_port
Host bench-bastion
	HostName 127.0.0.1
	Port $SSHD_PORT
EOF
	for t in "${!rport[@]}"; do
		p=${rport[$t]}
		cat <<EOF
Host bench-plain-r$t
	HostName 127.0.0.1
	Port $p
Host bench-cm-r$t
	HostName 127.0.0.1
	Port $p
	ControlMaster auto
	ControlPath $W/cm-r$t.sock
Host bench-proxied-r$t
	HostName 127.0.0.1
	Port $p
	ProxyCommand $proxy_cmd
Host bench-bastion-r$t
	HostName 127.0.0.1
	Port $p
Host bench-jump-r$t
	HostName 127.0.0.1
	Port $SSHD_PORT
	ProxyJump bench-bastion-r$t
Host $(m_ssm_id "$t")
	Port $p
EOF
	done
	cat <<EOF
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
} >"$W/ssh_config"

export PATH="$W/bin:$PATH"
export FSCP_FAKE_AWS_INSTANCES="$W/instances"
export FSCP_SSM_SIM="$tools/ssm-sim"
# Every start of the CLI costs CPU time (start-session and describe-instances).
export FSCP_FAKE_AWS_START_CPU_MS=$aws_cpu FSCP_FAKE_AWS_CPU_MS=$aws_cpu
# Nothing from the caller's environment may steer fscp or the fakes.
unset FSCP_ROUTE FSCP_CONNECTIONS FSCP_SSM_DIRECT FSCP_SSM_SIM_SETUP_MS \
	FSCP_SSM_SIM_CYCLE_US FSCP_SSM_SIM_DELAY_MS FSCP_SSM_SIM_PAYLOAD \
	FSCP_SSM_SIM_MSG_CPU_US FSCP_FAKE_AWS_THROTTLE_AFTER FSCP_FAKE_AWS_LOG
# CPU per SSM message (ssm-sim -m); "default" leaves ssm-sim's own.
[ "$msg_cpu" = default ] || export FSCP_SSM_SIM_MSG_CPU_US=$msg_cpu
# Join the groups named (their cgroup.procs files), then run the command.
cat >"$W/cg-exec" <<'EOF'
#!/bin/sh
while [ "$1" != -- ]; do
	echo $$ >"$1" || exit 126
	shift
done
shift
exec "$@"
EOF
chmod +x "$W/cg-exec"
cg_pre=()
[ -n "$cg_acct" ] && cg_pre+=("$cg_acct/cgroup.procs")
[ "$qscope" = client ] && [ -n "$cg_quota" ] && cg_pre+=("$cg_quota/cgroup.procs")
[ ${#cg_pre[@]} -gt 0 ] && cg_pre=("$W/cg-exec" "${cg_pre[@]}" --)
clk_tck=$(getconf CLK_TCK)

# A ControlMaster: a real `ssh -M`, found again through the config.
start_master() {	# rtt
	local host=bench-cm-r$1 sock=$W/cm-r$1.sock pid
	# A master is the client's: with --quota-scope client it joins the quota.
	local -a pre=()
	[ "$qscope" = client ] && [ -n "$cg_quota" ] && pre=("$W/cg-exec" "$cg_quota/cgroup.procs" --)
	"${pre[@]}" ssh -F "$W/ssh_config" -M -S "$sock" -fN "$host" </dev/null ||
		die "could not start the ControlMaster for $host"
	pid=$(ssh -F "$W/ssh_config" -S "$sock" -O check "$host" 2>&1 |
		sed -n 's/.*pid=\([0-9]*\).*/\1/p')
	cm_hosts+=("$host") cm_socks+=("$sock") cm_pids+=("$pid")
	[ -n "$pid" ] || die "ControlMaster for $host is not live"
	cm_pid_of[$host]=$pid
	say "ControlMaster ($1 ms RTT) pid $pid on $sock"
}
declare -A cm_rtts=() cm_pid_of=()
# A process's user + system time in ms (0 when it is gone).
proc_cpu_ms() {
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
	s=${s##*) }
	# shellcheck disable=SC2086
	set -- $s
	echo $(((${12} + ${13}) * 1000 / clk_tck))
}
{ want cm || want_goal goal-nearcm; } && cm_rtts[0]=1
want_goal goal-cm50 && cm_rtts[50]=1
for t in $m_rtts; do
	want_matrix controlmaster "$t" && cm_rtts[$t]=1
done
for t in "${!cm_rtts[@]}"; do
	start_master "$t"
done
want_matrix proxied && note "matrix proxied: ProxyCommand is $proxy_what"

have_rsync=0
have_sftp=0
command -v rsync >/dev/null && have_rsync=1
command -v sftp >/dev/null && have_sftp=1
[ $have_rsync = 1 ] || note "rsync not installed: no rsync rows"
[ $have_sftp = 1 ] || note "sftp not installed: no sftp rows"

# Incompressible data, made once; the remote copy is a hard link (same disk).
mkfile() {	# name MiB
	[ -e "$W/data/$1" ] && return 0
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
# The issue's goal scenarios, at the issue's sizes.
MB_GOAL_BIG=256 MB_GOAL_PROXY=64
# fscp's auto route goes fresh from 64 MiB to a plain host.
m_fresh_mb=$((m_mb > 64 ? m_mb : 64))

say "making test data"
want direct && mkfile direct.bin "$MB_DIRECT"
want cm && mkfile cm.bin "$MB_CM"
{ want ssm1 || want ssm3; } && mkfile ssm.bin "$MB_SSM"
want ssm-tree && mktree ssmtree 10
want rtt50 && mkfile rtt.bin "$MB_RTT"
want small && mktree small "$N_SMALL"
want small50 && mktree small50 "$N_SMALL50"
{ want_goal goal-near || want_goal goal-nearcm || want_goal goal-plain50 || want_goal goal-cm50; } &&
	mkfile goal$MB_GOAL_BIG.bin $MB_GOAL_BIG
want_goal goal-proxy50 && mkfile goal$MB_GOAL_PROXY.bin $MB_GOAL_PROXY
want_goal goal-ssm20 && mkfile ssm20.bin 20
want_goal goal-ssm100 && mkfile ssm100.bin 100
{ want_matrix standard || want_matrix controlmaster || want_matrix proxied ||
	want_matrix proxyjump; } && mkfile "matrix$m_mb.bin" "$m_mb"
want_matrix fresh && mkfile "matrix$m_fresh_mb.bin" "$m_fresh_mb"
{ want_matrix ssm-parallel || want_matrix ssm-direct; } && mkfile "matrix-ssm$m_ssm_mb.bin" "$m_ssm_mb"
[ $quick = 1 ] && [ -z "$only" ] &&
	note "goal groups (the issue's sizes) not run in quick mode: --only goal runs them"

# ---- one run -----------------------------------------------------------------
# Globals of the current group (set by bench_group's caller):
#   G_ID G_HOST G_NAME (file or tree under data/) G_KIND (file|tree) G_DIR
#   (upload|download) G_BYTES G_LIMIT (timeout, s)
# run_one TOOL ENV... -> sets R_STATUS R_SECS R_KIB R_ROUTE (fscp: the route
# its -v said last, e.g. "fresh"; "fresh+2" with connection failures), R_CPU
# (s: the copy's processes, plus the master's share), R_TCPU (s: GNU time
# %U + %S) and R_CONNS (fscp: the count of connections or SSM sessions its
# last route line planned, e.g. "4 fresh connections"; empty if none)
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
	fscp) cmd=("$fscp" -v -F "$W/ssh_config" $rflag "$src" "$dst") ;;
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
	local m_pid=${cm_pid_of[$G_HOST]:-} m0=0 m1=0 acct=''
	[ -n "$m_pid" ] && m0=$(proc_cpu_ms "$m_pid")
	[ -n "$cg_acct" ] && echo 0 >"$cg_acct/cpuacct.usage"
	t0=$EPOCHREALTIME
	"${cg_pre[@]}" env "$@" timeout -k 5 "$G_LIMIT" /usr/bin/time -f '%M %U %S' -o "$rss" \
		"${cmd[@]}" </dev/null >"$log" 2>&1 &
	wait $!
	rc=$?
	t1=$EPOCHREALTIME
	[ -n "$cg_acct" ] && acct=$(cat "$cg_acct/cpuacct.usage")
	[ -n "$m_pid" ] && m1=$(proc_cpu_ms "$m_pid")
	local secs kib status=ok got want us route='' tcpu ms
	# Microseconds from $EPOCHREALTIME in shell arithmetic: no process per run.
	us=$((10#${t1/./} - 10#${t0/./}))
	printf -v secs '%d.%03d' $((us / 1000000)) $((us % 1000000 / 1000))
	# GNU time's last line: "KiB user sys" (a failed command's status line
	# comes before it).
	read -r kib tcpu < <(tail -n 1 "$rss" 2>/dev/null |
		awk 'NF == 3 { printf "%d %.3f\n", $1, $2 + $3 }')
	tcpu=${tcpu:-0.000}
	if [ -n "$acct" ]; then
		ms=$((acct / 1000000 + m1 - m0))
	else
		ms=$((10#${tcpu/./} + m1 - m0))
	fi
	printf -v R_CPU '%d.%03d' $((ms / 1000)) $((ms % 1000))
	R_TCPU=$tcpu
	if [ "$tool" = fscp ]; then
		# "fscp: route fresh: ...", "fscp: route stays standard: ...": the last wins.
		route=$(sed -n 's/^fscp: route \(stays \)\{0,1\}\([a-z-]*\): .*/\2/p' "$log" | tail -n 1)
		got=$(grep -c '^fscp: connection [0-9]* \(of [0-9]* \)\{0,1\}failed' "$log")
		[ "$got" -gt 0 ] && route+="+$got"
		grep -q '^fscp: bypass failed' "$log" && route+="+fallback"
		# The route's count, or where the climb stopped ("fscp: climb: ... with N connections").
		R_CONNS=$(sed -n -e 's/^fscp: route .* \([0-9][0-9]*\) \(SSM sessions\|fresh connections\|connections\).*/\1/p' \
			-e 's/^fscp: climb: .* with \([0-9][0-9]*\) connections.*/\1/p' "$log" | tail -n 1)
	else
		R_CONNS=''
	fi
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
	R_STATUS=$status R_SECS=$secs R_KIB=${kib:-0} R_ROUTE=${route:-}
}

# bench_group SCP_RUNS CONTENDER...
# A contender is "tool|row label|goal speedup|ENV=V ENV=V|group id" (goal may
# be empty; the group id, default G_ID, lets several matrix cells share one
# group's scp runs: scp's rows are written under each of them).
# Each round runs scp (while it has runs left) and then every contender once.
bench_group() {
	local scp_runs=$1 r tool label goal envs gid st secs kib i g
	shift
	local -a cs=("$@") done_runs skip gids=("$G_ID")
	local scp_done=0 scp_skip=0 rounds=$runs
	for ((i = 0; i < ${#cs[@]}; i++)); do
		done_runs[i]=0 skip[i]=0
		IFS='|' read -r tool label goal envs gid <<<"${cs[i]}"
		if [ -n "$gid" ] && [ "$gid" != "${gids[0]}" ]; then
			[ "${gids[0]}" = "$G_ID" ] && gids=()
			[[ " ${gids[*]} " = *" $gid "* ]] || gids+=("$gid")
		fi
	done
	for ((r = 1; r <= rounds; r++)); do
		if [ $r -le "$scp_runs" ] && [ $scp_skip = 0 ]; then
			run_one scp $G_ENV
			st=$R_STATUS secs=$R_SECS kib=$R_KIB
			# A short cell: more rounds, scp's included (see short_s).
			if [ $r = 1 ] && [ "$st" = ok ] && [ "$scp_runs" -ge "$runs" ] &&
				[ "${secs%.*}" -lt "$short_s" ] && [ "$short_runs" -gt "$runs" ]; then
				rounds=$short_runs scp_runs=$short_runs
			fi
			say "$(printf '%-8s %-9s round %d  scp   %8ss  %s  cpu %ss' "$G_ID" "$G_DIR" "$r" "$secs" "$st" "$R_CPU")"
			for g in "${gids[@]}"; do
				printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$g" "$G_LABEL" "$G_DIR" scp \
					"$r" "$st" "$secs" "$kib" "$G_BYTES" "" "" "$R_CPU" "$R_TCPU" "" >>"$RAW"
			done
			scp_done=$((scp_done + 1))
			if [ "${secs%.*}" -ge "$long" ]; then
				scp_skip=1
			fi
		fi
		for ((i = 0; i < ${#cs[@]}; i++)); do
			[ "${skip[i]}" = 0 ] || continue
			IFS='|' read -r tool label goal envs gid <<<"${cs[i]}"
			# shellcheck disable=SC2086
			run_one "$tool" $G_ENV $envs
			st=$R_STATUS secs=$R_SECS kib=$R_KIB
			say "$(printf '%-8s %-9s round %d  %-5s %8ss  %s  cpu %ss  (%s)%s' "${gid:-$G_ID}" "$G_DIR" "$r" \
				"$tool" "$secs" "$st" "$R_CPU" "$label" "${R_ROUTE:+ route $R_ROUTE}")"
			printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "${gid:-$G_ID}" "$label" "$G_DIR" "$tool" \
				"$r" "$st" "$secs" "$kib" "$G_BYTES" "$goal" "$R_ROUTE" "$R_CPU" "$R_TCPU" "$R_CONNS" >>"$RAW"
			done_runs[i]=$((done_runs[i] + 1))
			if [ "${secs%.*}" -ge "$long" ]; then
				skip[i]=1
			fi
		done
	done
	if [ $scp_done -lt "$rounds" ]; then
		note "$G_LABEL, $G_DIR: scp ran $scp_done of $rounds times" \
			"(a run takes minutes; speedups there use scp's median)"
	fi
	for ((i = 0; i < ${#cs[@]}; i++)); do
		if [ "${done_runs[i]}" -lt "$rounds" ]; then
			IFS='|' read -r tool label goal envs gid <<<"${cs[i]}"
			note "$label, $G_DIR: $tool ran ${done_runs[i]} of $rounds times (first run > ${long} s)"
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
		G_ID=cm G_LABEL=$label G_HOST=bench-cm-r0 G_NAME=cm.bin G_KIND=file
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
	# A small copy through SSM: scp's one session is all it needs, so fscp
	# is held to scp's time (a download starts before its size is known).
	if want ssm-tree; then
		label="SSM -r tree of 10 tiny files, 1 s setup"
		G_ID=ssm-tree G_LABEL=$label G_HOST=$ssm_id G_NAME=ssmtree G_KIND=tree
		G_BYTES=$((10 * 4096)) G_LIMIT=$lim_small G_ENV="FSCP_SSM_SIM_SETUP_MS=1000"
		bench_group "$runs" "fscp|$label, no direct route|1|FSCP_SSM_DIRECT=off" \
			"fscp|$label, direct route looked for|1|FSCP_SSM_DIRECT=auto"
		G_HOST=$ssm_nd_id
		bench_group "$runs" "fscp|$label, none found|1|FSCP_SSM_DIRECT=auto"
		G_ENV=''
	fi
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
	goal_groups
	matrix_groups
}

# The sweep's contenders: "fscp|LABEL, FSCP_CONNECTIONS=N||ENV FSCP_CONNECTIONS=N",
# one per value of --sweep from MIN on.  report.py pairs them with the row
# LABEL (fscp's own choice) of the same group.
sweep_rows() {	# label min [env]
	local n
	for n in $sweep; do
		[ "$n" -ge "$2" ] || continue
		printf '%s\n' "fscp|$1, FSCP_CONNECTIONS=$n||${3:+$3 }FSCP_CONNECTIONS=$n"
	done
}

# The issue's goals ("never slower than scp"), at the issue's sizes.
goal_groups() {
	local label lim=900 mb goal min
	local -a ps
	if want_goal goal-near; then
		label="goal: near plain host $MB_GOAL_BIG MiB"
		G_ID=goal-near G_LABEL=$label G_HOST=bench-plain-r0 G_NAME=goal$MB_GOAL_BIG.bin
		G_KIND=file G_BYTES=$((MB_GOAL_BIG * 1048576)) G_LIMIT=$lim
		bench_group "$runs" "fscp|$label|1.5|"
	fi
	if want_goal goal-nearcm; then
		label="goal: near master $MB_GOAL_BIG MiB"
		G_ID=goal-nearcm G_LABEL=$label G_HOST=bench-cm-r0 G_NAME=goal$MB_GOAL_BIG.bin
		G_KIND=file G_BYTES=$((MB_GOAL_BIG * 1048576)) G_LIMIT=$lim
		bench_group "$runs" "fscp|$label|1.5|"
	fi
	if want_goal goal-plain50; then
		label="goal: plain host $MB_GOAL_BIG MiB, 50 ms RTT"
		G_ID=goal-plain50 G_LABEL=$label G_HOST=bench-plain-r50 G_NAME=goal$MB_GOAL_BIG.bin
		G_KIND=file G_BYTES=$((MB_GOAL_BIG * 1048576)) G_LIMIT=$lim
		mapfile -t ps < <(sweep_rows "$label" 1)
		bench_group "$runs" "fscp|$label|4|" "${ps[@]}"
	fi
	if want_goal goal-cm50; then
		label="goal: master $MB_GOAL_BIG MiB, 50 ms RTT"
		G_ID=goal-cm50 G_LABEL=$label G_HOST=bench-cm-r50 G_NAME=goal$MB_GOAL_BIG.bin
		G_KIND=file G_BYTES=$((MB_GOAL_BIG * 1048576)) G_LIMIT=$lim
		bench_group "$runs" "fscp|$label|4|"
	fi
	if want_goal goal-proxy50; then
		label="goal: ProxyCommand $MB_GOAL_PROXY MiB, 50 ms RTT"
		G_ID=goal-proxy50 G_LABEL=$label G_HOST=bench-proxied-r50 G_NAME=goal$MB_GOAL_PROXY.bin
		G_KIND=file G_BYTES=$((MB_GOAL_PROXY * 1048576)) G_LIMIT=$lim
		bench_group "$runs" "fscp|$label|2|"
	fi
	for mb in 20 100; do
		want_goal "goal-ssm$mb" || continue
		label="goal: SSM $mb MiB, 1 s setup, ${aws_cpu} ms CPU/start"
		G_ID=goal-ssm$mb G_LABEL=$label G_HOST=$ssm_id G_NAME=ssm$mb.bin G_KIND=file
		G_BYTES=$((mb * 1048576)) G_LIMIT=$lim G_ENV="FSCP_SSM_SIM_SETUP_MS=1000"
		# 100 MiB through 1 or 2 sessions takes minutes: swept from 4 on.
		if [ $mb = 20 ]; then goal=4.5 min=1; else goal=10 min=4; fi
		mapfile -t ps < <(sweep_rows "$label, no direct route" $min FSCP_SSM_DIRECT=off)
		bench_group "$runs" \
			"fscp|$label, no direct route|$goal|FSCP_SSM_DIRECT=off" \
			"fscp|$label, direct route||FSCP_SSM_DIRECT=auto" "${ps[@]}"
		G_ENV=''
	done
}

# The matrix: one group per route and RTT (ids matrix-ROUTE-RTT), goal 1x.
matrix_groups() {
	local t lim label mb host sz route
	local -a cs
	if [ $quick = 1 ]; then lim=120; else lim=900; fi
	for t in $m_rtts; do
		for route in standard fresh controlmaster proxied proxyjump; do
			want "matrix-$route-$t" || continue
			mb=$m_mb
			case $route in
			standard|fresh) host=bench-plain-r$t ;;
			controlmaster) host=bench-cm-r$t ;;
			proxied) host=bench-proxied-r$t ;;
			proxyjump) host=bench-jump-r$t ;;
			esac
			[ $route = fresh ] && mb=$m_fresh_mb
			label="matrix: $route, $t ms RTT, $mb MiB"
			G_ID=matrix-$route-$t G_LABEL=$label G_HOST=$host G_NAME=matrix$mb.bin
			G_KIND=file G_BYTES=$((mb * 1048576)) G_LIMIT=$lim G_ENV=''
			if [ $route = standard ]; then
				bench_group "$runs" "fscp|$label|1|FSCP_ROUTE=standard"
			else
				bench_group "$runs" "fscp|$label|1|"
			fi
		done
		# Both SSM rows share scp's runs (scp has no direct route).
		cs=()
		sz=$m_ssm_mb
		want "matrix-ssm-parallel-$t" &&
			cs+=("fscp|matrix: ssm-parallel, $t ms RTT, $sz MiB|1|FSCP_SSM_DIRECT=off|matrix-ssm-parallel-$t")
		want "matrix-ssm-direct-$t" &&
			cs+=("fscp|matrix: ssm-direct, $t ms RTT, $sz MiB|1|FSCP_SSM_DIRECT=auto|matrix-ssm-direct-$t")
		[ ${#cs[@]} -gt 0 ] || continue
		G_ID=matrix-ssm-$t G_LABEL="matrix: SSM, $t ms RTT, $sz MiB" G_HOST=$(m_ssm_id "$t")
		G_NAME=matrix-ssm$sz.bin G_KIND=file G_BYTES=$((sz * 1048576)) G_LIMIT=$lim
		G_ENV="FSCP_SSM_SIM_SETUP_MS=1000"
		bench_group "$runs" "${cs[@]}"
		G_ENV=''
	done
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
	echo "environment=${envname:-normal}: ${cg_desc:-no CPU quota}; ${aws_cpu} ms CPU per aws CLI start; SSM message CPU $([ "$msg_cpu" = default ] && echo "ssm-sim's default" || echo "$msg_cpu us") (ssm-sim -m)$([ "$relay_cpu" != 0 ] && echo "; delay relays $relay_cpu ns CPU per KiB")"
} >"$W/machine"

mkdir -p "$out" || die "cannot create $out"
stamp=$(date -u +%Y%m%d-%H%M%S)-$([ $quick = 1 ] && echo quick || echo full)${envname:+-$envname}
"$py" "$here/report.py" "$RAW" "$W/machine" "$NOTES" "$out/$stamp" || die "report failed"
cp "$RAW" "$out/$stamp.raw.tsv"
say "results: $out/$stamp.{md,csv,raw.tsv}, SVG: $(cd "$out" && ls "$stamp".svg "$stamp"-matrix.svg 2>/dev/null | tr '\n' ' ')"
if [ -n "$publish" ]; then
	# DATE-MODE, then DATE-MODE-2, ...: one name per run, never overwritten.
	# With --env: DATE-env-NAME (quick: DATE-quick-env-NAME).
	if [ -n "$envname" ]; then
		pname=$(date -u +%Y-%m-%d)$([ $quick = 1 ] && echo -quick)-env-$envname
	else
		pname=$(date -u +%Y-%m-%d)-$([ $quick = 1 ] && echo quick || echo full)
	fi
	n=1
	pbase=$pname
	while [ -e "$publish/$pbase.md" ]; do
		n=$((n + 1))
		pbase=$pname-$n
	done
	# Written again, not copied: the Markdown names its SVGs by its own name.
	"$py" "$here/report.py" "$RAW" "$W/machine" "$NOTES" "$publish/$pbase" >/dev/null ||
		die "report for $publish failed"
	say "published: $(ls "$publish/$pbase".* "$publish/$pbase"-matrix.svg 2>/dev/null | tr '\n' ' ')"
fi
if [ -s "$W/failures" ]; then
	say "$(wc -l <"$W/failures") run(s) failed or copied wrong data:"
	sed 's/^/    /' "$W/failures" >&2
	exit 1
fi
exit 0
