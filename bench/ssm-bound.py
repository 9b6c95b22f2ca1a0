#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
"""bench/ssm-bound.py: the most a copy through parallel SSM sessions can
gain over scp's one session in the benchmark's SSM model (bench/README):
a speedup that no session count and no wave timing beats there.

usage: ssm-bound.py [--env normal|halfcpu|costly-ssm] [--mib N ...]
                    [--cli-cpu S] [--cores N] [--msg-cpu-us US]
                    [--setup S] [--rate B/S] [--max N]

The model, optimistic for the parallel copy:
- every session starts with its own aws CLI, which spends --cli-cpu seconds
  of CPU before the session exists; a CLI uses at most one core;
- a session carries data --setup seconds after its CLI's work is done and
  then moves --rate bytes a second in 1 KiB messages, each costing
  --msg-cpu-us of CPU (the simulator's relays: 78 us with ssm-sim -m 0,
  162 us with its default -m 60, as measured in tests/tools/README); a
  session short of CPU moves less;
- the machine has --cores cores' worth of CPU (half CPU on 2 cores: 1);
- nothing else costs anything: no listing before a download, no sshd, no
  work of fscp's own, no direct-address lookup.
It is played in steps of 5 ms for every session count up to --max, with
the CPU going first to the sessions up and then to the CLIs in order, or
first to the CLIs; the fastest play is the bound.  scp's time is the same
play with one session.
"""
import argparse

ENVS = {  # cores' worth of CPU, CLI start CPU (s), CPU per message (us)
    "normal": (2, 0.6, 78),
    "halfcpu": (1, 0.6, 78),
    "costly-ssm": (2, 1.5, 162),
}
STEP = 0.005


def play(size, n, a, sessions_first):
    """Seconds until size bytes have moved through n sessions."""
    cli_left = [a.cli_cpu] * n
    up = [None] * n
    need = a.rate / 1024 * a.msg_cpu_us * 1e-6  # cores a busy session takes
    left, t = float(size), 0.0

    def sessions(cpu):
        nonlocal left
        busy = sum(1 for u in up if u is not None and u <= t)
        want = busy * need * STEP
        share = 1.0 if want <= cpu else cpu / want
        left -= busy * a.rate * STEP * share
        return cpu - min(want, cpu)

    def clis(cpu):
        for i in range(n):
            if cli_left[i] <= 0 or cpu <= 0:
                continue
            got = min(STEP, cli_left[i], cpu)
            cli_left[i] -= got
            cpu -= got
            if cli_left[i] <= 1e-12:
                up[i] = t + STEP + a.setup
        return cpu

    while left > 0:
        cpu = a.cores * STEP
        if sessions_first:
            clis(sessions(cpu))
        else:
            sessions(clis(cpu))
        t += STEP
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--env", choices=sorted(ENVS), default="normal")
    ap.add_argument("--mib", type=float, nargs="+", default=[20, 100])
    ap.add_argument("--cli-cpu", type=float, help="CPU seconds per aws CLI start")
    ap.add_argument("--cores", type=float, help="cores' worth of CPU")
    ap.add_argument("--msg-cpu-us", type=float, help="CPU per 1 KiB message of a session")
    ap.add_argument("--setup", type=float, default=1.0, help="seconds from the CLI's work to data")
    ap.add_argument("--rate", type=float, default=853333, help="bytes/s one session moves")
    ap.add_argument("--max", type=int, default=32, help="most sessions (fscp's own limit)")
    a = ap.parse_args()
    cores, cli, msg = ENVS[a.env]
    a.cores = cores if a.cores is None else a.cores
    a.cli_cpu = cli if a.cli_cpu is None else a.cli_cpu
    a.msg_cpu_us = msg if a.msg_cpu_us is None else a.msg_cpu_us
    print("%s: %g cores, %g s CPU per CLI, %g us CPU per message, %g s setup"
          % (a.env, a.cores, a.cli_cpu, a.msg_cpu_us, a.setup))
    print(" MiB  scp (s)  best (s)  sessions  bound")
    for mib in a.mib:
        size = mib * 1048576
        scp = play(size, 1, a, True)
        t, n = min((play(size, k, a, f), k) for k in range(1, a.max + 1) for f in (True, False))
        print("%4g %8.2f %9.2f %9d  %.2fx" % (mib, scp, t, n, scp / t))


if __name__ == "__main__":
    main()
