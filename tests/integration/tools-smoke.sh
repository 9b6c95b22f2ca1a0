#!/bin/sh
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
# Smoke test of the test tools (tests/tools): ssm-sim pacing and setup delay,
# delayrelay's added round trip, its handshake and half-close, and the fake aws CLI's
# start-session / describe-instances paths, its CPU cost per start and its
# StartSession throttling, and the CPU that ssm-sim -m and delayrelay -b
# spend (a lower bound on CPU time only).  Bounds are generous: this checks
# that the tools work, it is not a benchmark.
# Exit: 0 pass, 1 fail, 99 cannot run (automake's hard error).
if [ -z "${BASH_VERSION:-}" ]; then
	command -v bash >/dev/null 2>&1 || exit 99
	exec bash "$0" "$@"
fi
set -u

top_srcdir=${srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
tools_src=$(cd "$top_srcdir/tests/tools" && pwd) || exit 99
# Programs are in the build tree; make check runs tests from the top builddir.
tools_bin=${FSCP_TOOLS_BUILDDIR:-$PWD/tests/tools}
[ -x "$tools_bin/ssm-sim" ] || tools_bin=$tools_src
for f in "$tools_bin/ssm-sim" "$tools_bin/delayrelay" "$tools_src/aws"; do
	if [ ! -x "$f" ]; then
		echo "tools-smoke: $f not built" >&2
		exit 99
	fi
done
command -v python3 >/dev/null 2>&1 || { echo "tools-smoke: python3 missing" >&2; exit 99; }

. "$top_srcdir/tests/lib/checks.sh" || exit 99
tmp=$(mktemp -d "${TMPDIR:-/tmp}/tools-smoke.XXXXXX") || exit 99
trap 'rm -rf "$tmp"' EXIT

# The checks run in python; each one's result line ("ok   WHAT" or
# "FAIL WHAT") is reported through checks.sh afterwards.
python3 - "$tools_bin" "$tools_src" "$tmp" >"$tmp/results" <<'PYEOF'
import os, resource, socket, subprocess, sys, threading, time

tools_bin, tools_src, tmp = sys.argv[1:4]
SIM = os.path.join(tools_bin, "ssm-sim")
RELAY = os.path.join(tools_bin, "delayrelay")
AWS = os.path.join(tools_src, "aws")
failures = []

def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)

def server(handler):
    """Listen on a free loopback port; run handler(conn, info) per client."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    def loop():
        while True:
            c, _ = s.accept()
            info = {"accepted": time.monotonic()}
            threading.Thread(target=handler, args=(c, info), daemon=True).start()
    threading.Thread(target=loop, daemon=True).start()
    return s.getsockname()[1]

sink_stats = {}
def sink(c, info):
    first = last = None
    n = 0
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        now = time.monotonic()
        first = first or now
        last = now
        n += len(b)
    sink_stats.update(n=n, first=first, last=last)
    c.close()

SIZE = 2 << 20
def source(c, info):
    buf = b"s" * SIZE
    c.sendall(buf)
    c.close()

def echo(c, info):
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        c.sendall(b)
    c.close()

sink_port, source_port, echo_port = server(sink), server(source), server(echo)
EXPECT = 1024 / 0.0012 / 1024   # KiB/s for the default 1024 B / 1.2 ms
log = os.path.join(tmp, "sessions.log")
env = dict(os.environ, FSCP_SSM_SIM_SETUP_MS="0", FSCP_SSM_SIM_LOG=log)
for k in ("FSCP_SSM_SIM_CYCLE_US", "FSCP_SSM_SIM_DELAY_MS", "FSCP_SSM_SIM_PAYLOAD",
          "FSCP_SSM_SIM_MSG_CPU_US",
          "FSCP_FAKE_AWS_START_CPU_MS", "FSCP_FAKE_AWS_CPU_MS", "FSCP_FAKE_AWS_THROTTLE_AFTER",
          "FSCP_FAKE_AWS_THROTTLE_WINDOW_MS", "FSCP_FAKE_AWS_THROTTLE_STATE"):
    env.pop(k, None)

# 1. Throughput, both directions at once (independent sessions).  The pacing
# is checked with the per-message CPU off (-m 0, checked in 2b): on a loaded
# machine a CPU-starved session sends less, as the real plugin would.
env_pace = dict(env, FSCP_SSM_SIM_MSG_CPU_US="0")
up = subprocess.Popen([SIM, "127.0.0.1:%d" % sink_port], stdin=subprocess.PIPE,
                      stdout=subprocess.DEVNULL, env=env_pace)
down = subprocess.Popen([SIM, "127.0.0.1:%d" % source_port], stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE, env=env_pace)
down.stdin.close()
got = {}
def reader():
    first = last = None
    n = 0
    while True:
        b = down.stdout.read1(1 << 16)
        if not b:
            break
        now = time.monotonic()
        first = first or now
        last = now
        n += len(b)
    got.update(n=n, first=first, last=last)
t = threading.Thread(target=reader)
t.start()
up.stdin.write(b"u" * SIZE)
up.stdin.close()
rc_up, rc_down = up.wait(60), down.wait(60)
t.join(60)
check(rc_up == 0 and rc_down == 0, "ssm-sim exits 0 (up %s, down %s)" % (rc_up, rc_down))
for name, st in (("upload", sink_stats), ("download", got)):
    if st.get("n") != SIZE or st["last"] <= st["first"]:
        check(False, "ssm-sim %s moved %s of %d bytes" % (name, st.get("n"), SIZE))
        continue
    # first-to-last byte spans all but the first message
    rate = (SIZE - 1024) / (st["last"] - st["first"]) / 1024
    check(abs(rate / EXPECT - 1) <= 0.15,
          "ssm-sim %s %.0f KiB/s (expect %.0f +-15%%)" % (name, rate, EXPECT))

# 2. Setup delay and one-way delay: nothing reaches the target before the
# session opens, and an echo takes setup + 2 * delay at least.
env2 = dict(env, FSCP_SSM_SIM_SETUP_MS="700", FSCP_SSM_SIM_DELAY_MS="50")
t0 = time.monotonic()
p = subprocess.Popen([SIM, "127.0.0.1:%d" % echo_port], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, env=env2)
p.stdin.write(b"ping\n")
p.stdin.flush()
line = p.stdout.readline()
t_echo = time.monotonic() - t0
p.stdin.close()
rest = p.stdout.read()
rc = p.wait(30)
check(line == b"ping\n" and rest == b"" and rc == 0,
      "ssm-sim echo through session, half-close, exit 0 (rc %s)" % rc)
check(0.7 + 0.1 <= t_echo < 0.8 + 5,
      "ssm-sim setup 700 ms + 2x50 ms delay: first echo after %.3f s" % t_echo)
# Many concurrent sessions log one line each.
with open(log) as f:
    n_lines = len(f.readlines())
check(n_lines == 3, "ssm-sim session log has %d lines (expect 3)" % n_lines)

# 2b. CPU spent per message (ssm-sim -m) and per KiB (delayrelay -b): CPU
# time of the reaped children, which the machine's load does not shrink;
# only a lower bound (half of what was asked) is checked.
def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
env_nolog = {k: v for k, v in env.items() if k != "FSCP_SSM_SIM_LOG"}
NMSG, MSG_US = 200, 2000
c0 = child_cpu()
r = subprocess.run([SIM, "-s", "0", "-d", "0", "-c", "0", "-m", str(MSG_US),
                    "127.0.0.1:%d" % sink_port], input=b"m" * (NMSG * 1024),
                   stdout=subprocess.DEVNULL, env=env_nolog, timeout=120)
spent = child_cpu() - c0
check(r.returncode == 0 and spent >= 0.5 * NMSG * MSG_US / 1e6,
      "ssm-sim -m %d: %d messages cost %.3f s of CPU (at least %.3f; rc %s)"
      % (MSG_US, NMSG, spent, 0.5 * NMSG * MSG_US / 1e6, r.returncode))
KIB, NS_KIB = 8192, 50000
bpf = os.path.join(tmp, "burn-relay.port")
brelay = subprocess.Popen([RELAY, "-l", "127.0.0.1:0", "-t", "127.0.0.1:%d" % sink_port,
                           "-d", "0", "-b", str(NS_KIB), "-p", bpf], stdout=subprocess.PIPE)
try:
    bport = int(brelay.stdout.readline())
    c0 = child_cpu()
    bs = socket.create_connection(("127.0.0.1", bport))
    bs.sendall(b"b" * (KIB * 1024))
    bs.shutdown(socket.SHUT_WR)
    bs.settimeout(120)
    bs.recv(1)      # the sink closes once it has everything
    bs.close()
finally:
    brelay.terminate()
    brelay.wait(30)
spent = child_cpu() - c0
check(spent >= 0.5 * KIB * NS_KIB / 1e9,
      "delayrelay -b %d: %d KiB cost %.3f s of CPU (at least %.3f)"
      % (NS_KIB, KIB, spent, 0.5 * KIB * NS_KIB / 1e9))

# 3. delayrelay: about 2d added to a ping-pong round trip, 4d before the
# first answer (the path's handshake), half-close.
D = 100
portfile = os.path.join(tmp, "relay.port")
relay = subprocess.Popen([RELAY, "-l", "127.0.0.1:0", "-t", "127.0.0.1:%d" % echo_port,
                          "-d", str(D), "-p", portfile], stdout=subprocess.PIPE)
try:
    rport = int(relay.stdout.readline())
    with open(portfile) as f:
        check(int(f.read()) == rport, "delayrelay port on stdout and in portfile (%d)" % rport)
    t0 = time.monotonic()
    c = socket.create_connection(("127.0.0.1", rport))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    rtts = []
    for i in range(5):
        if i > 0:
            t0 = time.monotonic()
        c.sendall(b"x")
        ok = c.recv(1) == b"x"
        rtts.append(time.monotonic() - t0)
    # The first answer waits for the path's handshake as well (the target
    # is connected 3d after the accept): two round trips, as over TCP.
    check(4 * D / 1000 * 0.98 <= rtts[0] < 4 * D / 1000 + 1.0,
          "delayrelay d=%d ms: first answer after the connect %.1f ms (expect ~%d)"
          % (D, rtts[0] * 1000, 4 * D))
    rtt = min(rtts[1:])
    check(ok and 2 * D / 1000 * 0.98 <= rtt < 2 * D / 1000 + 1.0,
          "delayrelay d=%d ms: ping-pong rtt %.1f ms (expect ~%d)" % (D, rtt * 1000, 2 * D))
    payload = os.urandom(300000)
    c.sendall(payload)
    c.shutdown(socket.SHUT_WR)
    back = b""
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        back += b
    c.close()
    check(back == payload, "delayrelay relays 300 kB both ways and propagates EOF")
finally:
    relay.terminate()
    relay.wait(10)

# 4. The fake aws, wired as users wire SSM.
reg = os.path.join(tmp, "instances")
with open(reg, "w") as f:
    f.write("# fake registry\ni-0123456789abcdef0 127.0.0.1 %d 10.1.2.3 -\n" % echo_port)
awslog = os.path.join(tmp, "aws.log")
env3 = dict(env, PATH=tools_src + os.pathsep + os.environ.get("PATH", ""),
            FSCP_FAKE_AWS_INSTANCES=reg, FSCP_FAKE_AWS_LOG=awslog, FSCP_SSM_SIM=SIM,
            FSCP_SSM_SIM_SETUP_MS="100")
proxy = ("aws ssm start-session --target %h --document-name AWS-StartSSHSession "
         "--parameters 'portNumber=%p'").replace("%h", "i-0123456789abcdef0").replace("%p", "22")
r = subprocess.run(["sh", "-c", proxy], input=b"hello sshd\n", capture_output=True,
                   env=env3, timeout=30)
check(r.returncode == 0 and r.stdout == b"hello sshd\n",
      "fake aws start-session reaches the registry's sshd (rc %d, %r)" % (r.returncode, r.stdout))
r = subprocess.run(["sh", "-c", proxy.replace("i-0123456789abcdef0", "i-0000000000000dead")],
                   input=b"", capture_output=True, env=env3, timeout=30)
check(r.returncode == 254 and b"(TargetNotConnected)" in r.stderr,
      "fake aws: unknown instance gives TargetNotConnected, exit 254 (rc %d)" % r.returncode)
r = subprocess.run(["aws", "ec2", "describe-instances", "--instance-ids", "i-0123456789abcdef0",
                    "--query", "Reservations[0].Instances[0].[PrivateIpAddress,PublicIpAddress]",
                    "--output", "text"], capture_output=True, env=env3, timeout=30)
check(r.returncode == 0 and r.stdout == b"10.1.2.3\tNone\n",
      "fake aws describe-instances text query (%r)" % r.stdout)
with open(awslog) as f:
    n_calls = len(f.readlines())
check(n_calls == 3, "fake aws logged %d invocations (expect 3)" % n_calls)
with open(log) as f:
    n_lines = len(f.readlines())
check(n_lines == 4, "ssm-sim session log has %d lines after the aws run (expect 4)" % n_lines)

# 5. The CLI's start cost is CPU time (user+sys of the children), not sleep.
import resource
def child_cpu():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime
env4 = dict(env3, FSCP_FAKE_AWS_START_CPU_MS="300", FSCP_FAKE_AWS_LOG="")
c0 = child_cpu()
r = subprocess.run(["sh", "-c", proxy], input=b"cpu\n", capture_output=True, env=env4, timeout=60)
cpu = child_cpu() - c0
check(r.returncode == 0 and r.stdout == b"cpu\n" and cpu >= 0.25,
      "fake aws start-session with 300 ms CPU: %.3f s user+sys (expect >= 0.25), rc %d"
      % (cpu, r.returncode))
env4["FSCP_FAKE_AWS_START_CPU_MS"] = "0"
env4["FSCP_FAKE_AWS_CPU_MS"] = "200"
c0 = child_cpu()
r = subprocess.run(["aws", "ec2", "describe-instances", "--instance-ids", "i-0123456789abcdef0",
                    "--query", "Reservations[0].Instances[0].PrivateIpAddress", "--output", "text"],
                   capture_output=True, env=env4, timeout=60)
cpu = child_cpu() - c0
check(r.returncode == 0 and r.stdout == b"10.1.2.3\n" and cpu >= 0.15,
      "fake aws describe-instances with 200 ms CPU: %.3f s user+sys (expect >= 0.15)" % cpu)
c0 = child_cpu()
r = subprocess.run(["sh", "-c", proxy], input=b"", capture_output=True,
                   env=dict(env3, FSCP_FAKE_AWS_LOG=""), timeout=60)
cpu = child_cpu() - c0
check(r.returncode == 0 and cpu < 0.2,
      "fake aws start-session burns no CPU by default (%.3f s)" % cpu)

# 6. Throttling: the N+1-th start within the window fails as the real CLI does.
state = os.path.join(tmp, "starts")
env5 = dict(env3, FSCP_FAKE_AWS_LOG="", FSCP_FAKE_AWS_THROTTLE_AFTER="2",
            FSCP_FAKE_AWS_THROTTLE_WINDOW_MS="60000", FSCP_FAKE_AWS_THROTTLE_STATE=state)
rcs, errs = [], []
for i in range(3):
    r = subprocess.run(["sh", "-c", proxy], input=b"", capture_output=True, env=env5, timeout=60)
    rcs.append(r.returncode)
    errs.append(r.stderr)
want = (b"An error occurred (ThrottlingException) when calling the StartSession "
        b"operation: Rate exceeded\n")
check(rcs == [0, 0, 254] and errs[2].endswith(want),
      "fake aws THROTTLE_AFTER=2: starts exit %s (expect 0 0 254), third says %r"
      % (rcs, errs[2][-90:]))
r = subprocess.run(["sh", "-c", proxy], input=b"again\n", capture_output=True,
                   env=dict(env5, FSCP_FAKE_AWS_THROTTLE_WINDOW_MS="1"), timeout=60)
check(r.returncode == 0 and r.stdout == b"again\n",
      "fake aws: a start after the window has passed gets through (rc %d)" % r.returncode)

sys.exit(1 if failures else 0)
PYEOF
rc=$?
while IFS= read -r line; do
	case $line in
	"ok   "*) ok "${line#ok   }" ;;
	"FAIL "*) bad "${line#FAIL }" ;;
	*) printf '%s\n' "$line" ;;
	esac
done <"$tmp/results"
# A python error that stopped the checks is a failure of its own.
[ "$rc" = 0 ] || [ "$CHECKS_FAILED" -gt 0 ] || bad "the checks stopped: python exited $rc"
checks_done
