#!/usr/bin/env python3
# SPDX-License-Identifier: ISC
# Copyright (c) 2026 The fscp authors.  See LICENSE.
"""bench/report.py: turn bench/run.sh's raw measurements into the table.

usage: report.py RAW.tsv MACHINE NOTES OUTPREFIX

RAW.tsv columns: group, row label, direction, tool, round, status (ok, FAIL,
ERR, TIMEOUT), seconds, peak RSS (KiB), bytes, goal speedup (contenders only),
and (optional) the route fscp took ("fresh", "standard", ...; "+N" when N of
its connections failed), the CPU seconds the copy cost (all its processes,
plus a ControlMaster's share), GNU time's user + sys seconds, and the count
of connections or SSM sessions fscp's last route line planned.
A row whose label ends in ", FSCP_CONNECTIONS=N" is one point of a sweep: it
is shown in the sweep table beside the row without that suffix (fscp's own
choice) of the same group and direction, not in the main table.
Groups named matrix-ROUTE-RTT form the matrix: rows route, columns RTT, each
upload and download, each cell the fscp/scp speedup (goal 1x).  They are left
out of the main table and bar chart and shown as a grid (text, Markdown and
OUTPREFIX-matrix.svg, a heat map), with a detail table in the Markdown.
Writes OUTPREFIX.md, OUTPREFIX.csv, OUTPREFIX.svg (and OUTPREFIX-matrix.svg
when there is a matrix) and prints the tables.
Standard library only, so no plotting package is needed.
"""

import csv
import math
import re
import statistics
import sys

RSS_GOAL_MIB = 64
SWEEP_RE = re.compile(r"^(.*), FSCP_CONNECTIONS=(\d+)$")
WITHIN = 1.10   # fscp's own choice: within 10% of the best fixed count
WHY = {"FAIL": "checksum mismatch", "ERR": "exit status", "TIMEOUT": "timeout"}
# Matrix rows in this order, and the route fscp is expected to take on each.
MATRIX_ROUTES = ["standard", "fresh", "controlmaster", "proxied", "proxyjump",
                 "ssm-parallel", "ssm-direct"]
EXPECT_ROUTE = {"standard": "standard", "fresh": "fresh", "controlmaster": "fresh",
                "proxied": "proxied", "proxyjump": "proxied",
                "ssm-parallel": "ssm-parallel", "ssm-direct": "ssm-direct"}


def load(path):
    rows = []
    with open(path, newline="") as f:
        for r in csv.reader(f, delimiter="\t"):
            if len(r) < 10:
                continue
            rows.append({
                "gid": r[0], "label": r[1], "dir": r[2], "tool": r[3],
                "round": int(r[4]), "status": r[5], "secs": float(r[6]),
                "kib": int(r[7] or 0), "bytes": int(r[8]), "goal": r[9],
                "route": r[10] if len(r) > 10 else "",
                "cpu": float(r[11]) if len(r) > 11 and r[11] else None,
                "tcpu": float(r[12]) if len(r) > 12 and r[12] else None,
                "conns": int(r[13]) if len(r) > 13 and r[13].isdigit() else None,
            })
    return rows


def kv(path):
    d = {}
    with open(path) as f:
        for line in f:
            k, _, v = line.rstrip("\n").partition("=")
            d[k] = v
    return d


def fmt_s(x):
    return "-" if x is None else ("%.2f" % x if x < 100 else "%.0f" % x)


def med_or_none(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def summarize(rows):
    scp = {}    # (gid, dir) -> {round: secs}, ok runs only
    scp_cpu = {}    # (gid, dir) -> [CPU s], ok runs only
    scp_bad = {}
    order = []
    by_row = {}
    for r in rows:
        key = (r["gid"], r["dir"])
        if r["tool"] == "scp":
            scp.setdefault(key, {})
            scp_bad.setdefault(key, [])
            if r["status"] == "ok":
                scp[key][r["round"]] = r["secs"]
                scp_cpu.setdefault(key, []).append(r["cpu"])
            else:
                scp_bad[key].append(r["status"])
            continue
        rk = (r["gid"], r["label"], r["dir"], r["tool"])
        if rk not in by_row:
            by_row[rk] = []
            order.append(rk)
        by_row[rk].append(r)

    out = []
    for rk in order:
        gid, label, d, tool = rk
        runs = by_row[rk]
        ok = {r["round"]: r["secs"] for r in runs if r["status"] == "ok"}
        bad = [r["status"] for r in runs if r["status"] != "ok"]
        s = scp.get((gid, d), {})
        sbad = scp_bad.get((gid, d), [])
        scp_med = statistics.median(s.values()) if s else None
        med = statistics.median(ok.values()) if ok else None
        ratios, approx = [], False
        for rnd, t in ok.items():
            if rnd in s:
                ratios.append(s[rnd] / t)
            elif scp_med is not None:
                ratios.append(scp_med / t)
                approx = True
        speed = statistics.median(ratios) if ratios else None
        nbytes = runs[0]["bytes"]
        mbs = nbytes / med / 1e6 if med else None
        rss = max(r["kib"] for r in runs) / 1024.0
        cpu = med_or_none(r["cpu"] for r in runs if r["status"] == "ok")
        s_cpu = med_or_none(scp_cpu.get((gid, d), []))
        goal = float(runs[0]["goal"]) if runs[0]["goal"] else None
        if bad:
            met = "FAIL (%s)" % ", ".join(sorted(set(WHY[b] for b in bad)))
        elif goal is None:
            met = "-"
        elif speed is None:
            met = "-"
        else:
            why = []
            if speed < goal:
                why.append("speed")
            if tool == "fscp" and rss > RSS_GOAL_MIB:
                why.append("RSS")
            if tool == "fscp" and cpu is not None and s_cpu is not None and cpu > s_cpu:
                why.append("CPU")
            met = "yes" if not why else "no (%s)" % ", ".join(why)
        if sbad:
            met += "; scp FAIL (%s)" % ", ".join(sorted(set(WHY[b] for b in sbad)))
        goal_txt = "-"
        if goal is not None:
            goal_txt = ">= %gx" % goal
            if tool == "fscp":
                goal_txt += ", <= %d MiB, CPU <= scp" % RSS_GOAL_MIB
        routes = []
        for r in runs:
            if r["route"] and r["route"] not in routes:
                routes.append(r["route"])
        out.append({
            "gid": gid, "route": "/".join(routes),
            "scenario": label, "direction": d, "tool": tool,
            "scp": scp_med, "scp_n": len(s), "med": med, "n": len(ok), "n_all": len(runs),
            "speed": speed, "approx": approx, "mbs": mbs, "rss": rss,
            "cpu": cpu, "scp_cpu": s_cpu,
            "conns": sorted({r["conns"] for r in runs if r.get("conns") is not None}),
            "goal": goal, "goal_txt": goal_txt, "met": met,
        })
    return out


HEAD = ["scenario", "direction", "tool", "scp median (s)", "tool median (s)",
        "speedup", "MB/s (tool)", "peak RSS (MiB)", "scp CPU (s)", "tool CPU (s)",
        "goal", "met"]
RIGHT = {3, 4, 5, 6, 7, 8, 9}   # numeric columns, right-aligned in Markdown


def fmt_cpu(x):
    return "-" if x is None else "%.2f" % x


def cells(o):
    tmed = fmt_s(o["med"])
    if o["n"] < o["n_all"]:
        tmed += " (%d/%d ok)" % (o["n"], o["n_all"])
    scp = fmt_s(o["scp"])
    if o["scp_n"] and o["scp_n"] < o["n_all"]:
        scp += " (n=%d)" % o["scp_n"]
    sp = "-" if o["speed"] is None else "%.2fx" % o["speed"]
    if o["approx"]:
        sp += "*"
    return [o["scenario"], o["direction"], o["tool"], scp, tmed, sp,
            "-" if o["mbs"] is None else "%.1f" % o["mbs"],
            "%.1f" % o["rss"], fmt_cpu(o["scp_cpu"]), fmt_cpu(o["cpu"]),
            o["goal_txt"], o["met"]]


def text_table(rows):
    body = [HEAD] + [cells(o) for o in rows]
    w = [max(len(r[i]) for r in body) for i in range(len(HEAD))]
    lines = []
    for n, r in enumerate(body):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


def md_table(rows, with_route=False):
    head = HEAD + (["fscp route"] if with_route else [])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---:" if i in RIGHT else "---" for i in range(len(head))) + "|"]
    for o in rows:
        c = cells(o)
        if o["met"].startswith("FAIL"):
            c[-1] = "**" + c[-1] + "**"
        if with_route:
            c.append(o["route"] or "-")
        lines.append("| " + " | ".join(c) + " |")
    return "\n".join(lines)


# ---- the FSCP_CONNECTIONS sweep ----------------------------------------------

def sweeps(allrows):
    """-> [(base row, {N: row})]: each swept group and direction, fscp's own
    choice first (None when it did not run)."""
    pts, order = {}, []
    for o in allrows:
        m = SWEEP_RE.match(o["scenario"])
        if m and o["tool"] == "fscp":
            k = (o["gid"], m.group(1), o["direction"])
            if k not in pts:
                pts[k] = {}
                order.append(k)
            pts[k][int(m.group(2))] = o
    out = []
    for k in order:
        gid, base, d = k
        auto = next((o for o in allrows if o["gid"] == gid and o["scenario"] == base
                     and o["direction"] == d and o["tool"] == "fscp"), None)
        out.append((k, auto, pts[k]))
    return out


def sweep_rows(sw):
    """-> header, rows of text cells, and the verdicts (for the notes)."""
    ns = sorted({n for _, _, byn in sw for n in byn})
    head = (["scenario", "direction", "fscp's choice (s)"] +
            ["N=%d (s)" % n for n in ns] +
            ["best fixed", "choice / best", "within 10% of best fixed",
             "CPU choice (s)", "CPU best (s)"])
    rows, verdicts = [], []
    for (gid, base, d), auto, byn in sw:
        ok = {n: o for n, o in byn.items() if o["med"] is not None}
        best = min(ok, key=lambda n: ok[n]["med"]) if ok else None
        amed = auto["med"] if auto else None
        planned = ""
        if auto and auto["conns"]:
            planned = " (N=%s)" % "/".join(str(n) for n in auto["conns"])
        c = [base, d, fmt_s(amed) + planned] + [fmt_s(byn[n]["med"]) if n in byn else "-"
                                                for n in ns]
        if best is None or amed is None:
            c += ["-", "-", "-", fmt_cpu(auto["cpu"] if auto else None), "-"]
        else:
            ratio = amed / ok[best]["med"]
            within = ratio <= WITHIN
            c += ["N=%d, %s s" % (best, fmt_s(ok[best]["med"])), "%.2f" % ratio,
                  "yes" if within else "no", fmt_cpu(auto["cpu"]), fmt_cpu(ok[best]["cpu"])]
            verdicts.append("%s, %s: fscp's choice %.2fx the best fixed (N=%d)%s"
                            % (base, d, ratio, best, "" if within else " - NOT within 10%"))
        rows.append(c)
    return head, rows, verdicts


def plain_table(head, body):
    body = [head] + body
    w = [max(len(r[i]) for r in body) for i in range(len(head))]
    lines = []
    for n, r in enumerate(body):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(r)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * x for x in w))
    return "\n".join(lines)


def plain_md(head, body, left=2):
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join("---" if i < left else "---:" for i in range(len(head))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in body]
    return "\n".join(lines)


# ---- the matrix ---------------------------------------------------------------

def matrix_key(gid):
    """matrix-ROUTE-RTT -> (route, rtt) or None."""
    if not gid.startswith("matrix-"):
        return None
    route, _, rtt = gid[len("matrix-"):].rpartition("-")
    if not route or not rtt.isdigit():
        return None
    return route, int(rtt)


def matrix_grid(rows):
    """-> (routes, rtts, {(route, rtt, dir): row})"""
    grid = {}
    for o in rows:
        k = matrix_key(o["gid"])
        if k:
            grid[(k[0], k[1], o["direction"])] = o
    rtts = sorted({k[1] for k in grid})
    seen = {k[0] for k in grid}
    routes = [r for r in MATRIX_ROUTES if r in seen] + sorted(seen - set(MATRIX_ROUTES))
    return routes, rtts, grid


def matrix_cell(o, route):
    """-> (text, below 1.0?, failed?, other route taken?)"""
    if o is None:
        return "-", False, False, False
    if o["met"].startswith("FAIL") or o["speed"] is None:
        return "FAIL", False, True, False
    t = "%.2fx" % o["speed"]
    want = EXPECT_ROUTE.get(route)
    odd = bool(o["route"]) and want is not None and o["route"] != want
    if odd:
        t += " [%s]" % o["route"]
    return t, o["speed"] < 1.0, False, odd


DIRS = [("upload", "up"), ("download", "down")]


def matrix_text(routes, rtts, grid):
    head1 = ["route"] + ["%d ms %s" % (t, d[1]) for t in rtts for d in DIRS]
    body = [head1]
    for r in routes:
        row = [r]
        for t in rtts:
            for d, _ in DIRS:
                txt, low, bad, _odd = matrix_cell(grid.get((r, t, d)), r)
                row.append(txt + ("  <1" if low else ""))
        body.append(row)
    w = [max(len(x[i]) for x in body) for i in range(len(head1))]
    lines = []
    for n, x in enumerate(body):
        lines.append("  ".join(c.ljust(w[i]) for i, c in enumerate(x)).rstrip())
        if n == 0:
            lines.append("  ".join("-" * v for v in w))
    return "\n".join(lines)


def matrix_md(routes, rtts, grid):
    head = ["route"] + ["%d ms %s" % (t, d[1]) for t in rtts for d in DIRS]
    lines = ["| " + " | ".join(head) + " |",
             "|---|" + "|".join(["---:"] * (len(head) - 1)) + "|"]
    for r in routes:
        c = [r]
        for t in rtts:
            for d, _ in DIRS:
                txt, low, bad, _odd = matrix_cell(grid.get((r, t, d)), r)
                if low:
                    txt = "**%s** &#9660;" % txt
                elif bad:
                    txt = "**FAIL**"
                c.append(txt)
        lines.append("| " + " | ".join(c) + " |")
    return "\n".join(lines)


def matrix_cpu_md(routes, rtts, grid):
    """fscp CPU / scp CPU per cell; above 1.0 in bold (goal: at most 1.0)."""
    head = ["route"] + ["%d ms %s" % (t, d[1]) for t in rtts for d in DIRS]
    lines = ["| " + " | ".join(head) + " |",
             "|---|" + "|".join(["---:"] * (len(head) - 1)) + "|"]
    over = []
    for r in routes:
        c = [r]
        for t in rtts:
            for d, _ in DIRS:
                o = grid.get((r, t, d))
                if o is None or o["cpu"] is None or not o["scp_cpu"]:
                    c.append("-")
                    continue
                v = o["cpu"] / o["scp_cpu"]
                txt = "%.2f (%s/%s s)" % (v, fmt_cpu(o["cpu"]), fmt_cpu(o["scp_cpu"]))
                if v > 1.0:
                    txt = "**%s**" % txt
                    over.append("%s %d ms %s %.2f" % (r, t, d, v))
                c.append(txt)
        lines.append("| " + " | ".join(c) + " |")
    return "\n".join(lines), over


def matrix_below(routes, rtts, grid):
    out = []
    for r in routes:
        for t in rtts:
            for d, _ in DIRS:
                o = grid.get((r, t, d))
                if o is not None and o["speed"] is not None and o["speed"] < 1.0:
                    out.append("%s %d ms %s %.2fx" % (r, t, d, o["speed"]))
    return out


def heat_colour(v):
    """Speedup -> fill: reds below 1x, white at 1x, greens up to 10x (log)."""
    def mix(a, b, f):
        return "#%02x%02x%02x" % tuple(int(a[i] + (b[i] - a[i]) * f) for i in range(3))
    white, red, green = (255, 255, 255), (214, 39, 40), (44, 160, 44)
    if v < 1:
        return mix(white, red, min(1.0, math.log10(1 / v) / math.log10(2)) * 0.85 + 0.15)
    return mix(white, green, min(1.0, math.log10(v) / 1.0) * 0.85 + 0.15)


def matrix_svg(routes, rtts, grid, title, path):
    cw, ch, left, top = 78, 28, 120, 78
    ncol = len(rtts) * 2
    width = left + ncol * cw + 20
    height = top + len(routes) * ch + 40

    def esc(s):
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    e = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="11">' % (width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="10" y="20" font-size="14" font-weight="bold">%s</text>' % esc(title),
         '<text x="10" y="36" fill="#555">fscp/scp speedup per route, round trip and '
         'direction; red, outlined and &#9660;: below 1.0x; [route]: fscp took another '
         'route</text>']
    for i, t in enumerate(rtts):
        x0 = left + i * 2 * cw
        e.append('<text x="%d" y="%d" text-anchor="middle" font-weight="bold">%d ms RTT</text>'
                 % (x0 + cw, top - 22, t))
        for j, (_, short) in enumerate(DIRS):
            e.append('<text x="%d" y="%d" text-anchor="middle" fill="#555">%s</text>'
                     % (x0 + j * cw + cw // 2, top - 8, short))
    for n, r in enumerate(routes):
        y = top + n * ch
        e.append('<text x="%d" y="%d" text-anchor="end">%s</text>' % (left - 8, y + ch // 2 + 4, esc(r)))
        for i, t in enumerate(rtts):
            for j, (d, _) in enumerate(DIRS):
                x = left + (i * 2 + j) * cw
                o = grid.get((r, t, d))
                txt, low, bad, odd = matrix_cell(o, r)
                if o is None:
                    fill = "#f4f4f4"
                elif bad:
                    fill = "#7f7f7f"
                else:
                    fill = heat_colour(o["speed"])
                stroke = ' stroke="#d62728" stroke-width="3"' if (low or bad) else ' stroke="#ffffff"'
                e.append('<rect x="%d" y="%d" width="%d" height="%d" fill="%s"%s/>'
                         % (x + 1, y + 1, cw - 2, ch - 2, fill, stroke))
                label = txt.split(" [")[0] + (" &#9660;" if low else "") + (" *" if odd else "")
                e.append('<text x="%d" y="%d" text-anchor="middle"%s>%s</text>'
                         % (x + cw // 2, y + ch // 2 + 4,
                            ' font-weight="bold" fill="white"' if bad else
                            (' font-weight="bold"' if low else ""), label))
    e.append('<text x="10" y="%d" fill="#555">*: fscp took another route than the row '
             'expects (see the detail table)</text>' % (height - 12))
    e.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(e) + "\n")


def footnotes(rows, notes):
    f = ["Speedup: median over run pairs of scp time / tool time (scp and the tools "
         "ran alternately). MB/s = 10^6 bytes per second of the tool's median. Peak "
         "RSS: GNU time %M (largest of the tool and the processes it waited for)."]
    if any(o["approx"] for o in rows):
        f.append("*: scp ran fewer times than the tool there; those pairs use scp's median.")
    return f + notes


def svg_plot(rows, title, path):
    data = rows
    bar_h, gap, left, right, top = 18, 6, 330, 40, 50
    width = left + 480 + right
    height = top + len(data) * (bar_h + gap) + 50
    lo, hi = 0.25, 2.0
    for o in (o for o in data if o["speed"] is not None):
        hi = max(hi, o["speed"] * 1.3, (o["goal"] or 0) * 1.3)
        lo = min(lo, o["speed"] / 1.3)
    l_lo, l_hi = math.log10(lo), math.log10(hi)

    def x(v):
        return left + (math.log10(v) - l_lo) / (l_hi - l_lo) * 480

    def esc(s):
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")

    e = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
         'font-family="sans-serif" font-size="11">' % (width, height),
         '<rect width="100%" height="100%" fill="white"/>',
         '<text x="%d" y="20" font-size="14" font-weight="bold">%s</text>'
         % (10, esc(title)),
         '<text x="%d" y="36" fill="#555">speedup over scp (log scale); red tick: goal; '
         'green: goal met, orange: missed, red: FAIL, grey: peers</text>' % 10]
    ticks = [t for t in (0.25, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000) if lo <= t <= hi]
    y_end = top + len(data) * (bar_h + gap)
    for t in ticks:
        e.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>'
                 % (x(t), top - 4, x(t), y_end, "#888" if t == 1 else "#ddd"))
        e.append('<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%gx</text>'
                 % (x(t), y_end + 14, t))
    for i, o in enumerate(data):
        y = top + i * (bar_h + gap)
        label = "%s, %s%s" % (o["scenario"], o["direction"],
                              "" if o["tool"] == "fscp" else " [%s]" % o["tool"])
        e.append('<text x="%d" y="%d" text-anchor="end">%s</text>'
                 % (left - 6, y + bar_h - 5, esc(label)))
        if o["speed"] is None:  # every run failed: no bar, say so
            e.append('<text x="%.1f" y="%d" fill="#d62728" font-weight="bold">%s</text>'
                     % (x(1) + 4, y + bar_h - 5, esc(o["met"])))
            continue
        if o["met"].startswith("FAIL"):
            col = "#d62728"
        elif o["tool"] != "fscp":
            col = "#999999"
        elif o["met"].startswith("yes"):
            col = "#2ca02c"
        else:
            col = "#ff7f0e"
        x0 = x(max(lo, min(1.0, o["speed"])))
        x1 = x(max(lo, o["speed"]))
        if x1 < x0:
            x0, x1 = x1, x0
        e.append('<rect x="%.1f" y="%d" width="%.1f" height="%d" fill="%s"/>'
                 % (x0, y, max(1.0, x1 - x0), bar_h, col))
        e.append('<text x="%.1f" y="%d">%.2fx</text>'
                 % (x(max(lo, o["speed"])) + 4, y + bar_h - 5, o["speed"]))
        if o["goal"]:
            gx = x(o["goal"])
            e.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#d62728" '
                     'stroke-width="2"/>' % (gx, y - 2, gx, y + bar_h + 2))
    e.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(e) + "\n")


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    raw, machine, notes_path, prefix = sys.argv[1:]
    allrows = summarize(load(raw))
    sw = sweeps(allrows)
    rows = [o for o in allrows if not matrix_key(o["gid"]) and not SWEEP_RE.match(o["scenario"])]
    mrows = [o for o in allrows if matrix_key(o["gid"])]
    routes, rtts, grid = matrix_grid(mrows)
    m = kv(machine)
    with open(notes_path) as f:
        notes = [n.strip() for n in f if n.strip()]
    hdr = ["fscp benchmark, %s, %s" % (m.get("date", "?"), m.get("mode", "?")),
           "machine: %s" % m.get("machine", "?"),
           "versions: %s" % m.get("versions", "?"),
           "environment: %s" % m.get("environment", "normal (not recorded)")]
    foot = footnotes(allrows, notes)
    below = matrix_below(routes, rtts, grid)
    mfoot = ["Matrix: fscp/scp speedup (median of run pairs) per route (ssh_config "
             "Host kind), round trip and direction; every cell's goal is >= 1.0x. "
             "A route in [brackets] is the one fscp took when it is not the row's "
             "expected one (controlmaster: fresh from 8 MiB; proxied, proxyjump: "
             "proxied, connections through the proxy, from 8 MiB)."]
    if below:
        mfoot.append("Below 1.0x: " + "; ".join(below) + ".")
    elif mrows:
        mfoot.append("No cell below 1.0x.")

    print("\n".join(hdr) + "\n")
    if rows:
        print(text_table(rows))
        print()
    if sw:
        s_head, s_rows, s_verdicts = sweep_rows(sw)
        print("FSCP_CONNECTIONS sweep (medians; fscp's choice is the unset row)")
        print(plain_table(s_head, s_rows))
        print()
    if mrows:
        print("matrix (fscp/scp speedup; <1: below 1.0x)")
        print(matrix_text(routes, rtts, grid))
        print()
        for n in mfoot:
            print("- " + n)
        _, cpu_over = matrix_cpu_md(routes, rtts, grid)
        print("- Client CPU fscp/scp above 1.0: " + ("; ".join(cpu_over) if cpu_over else "none"))
    if sw:
        for v in s_verdicts:
            print("- " + v)
    for n in foot:
        print("- " + n)

    with open(prefix + ".md", "w") as f:
        f.write("# %s\n\n" % hdr[0])
        f.write("- %s\n- %s\n- %s\n\n" % (hdr[1], hdr[2], hdr[3]))
        base = prefix.rsplit("/", 1)[-1]
        if rows:
            f.write(md_table(rows) + "\n\n")
        if sw:
            f.write("## FSCP_CONNECTIONS sweep\n\n")
            f.write("Medians of the same runs as above; fscp's choice is the row without "
                    "FSCP_CONNECTIONS ((N=...): the count its route line planned). "
                    "Goal: within 10%% of the best fixed count "
                    "(choice / best <= %.2f).\n\n" % WITHIN)
            f.write(plain_md(s_head, s_rows) + "\n\n")
            for v in s_verdicts:
                f.write("- %s\n" % v)
            f.write("\n")
        if mrows:
            f.write("## Matrix: every route x round trip x direction\n\n")
            f.write(matrix_md(routes, rtts, grid) + "\n\n")
            for n in mfoot:
                f.write("- %s\n" % n)
            f.write("\n![matrix](%s-matrix.svg)\n\n" % base)
            cpu_md, cpu_over = matrix_cpu_md(routes, rtts, grid)
            f.write("### Client CPU: fscp / scp per cell (goal <= 1.0)\n\n")
            f.write("CPU seconds per copy (medians): every process the copy started, "
                    "plus a ControlMaster's share; scp's include its ssh.\n\n")
            f.write(cpu_md + "\n\n")
            f.write("- %s\n\n" % ("Above 1.0: " + "; ".join(cpu_over) + "." if cpu_over
                                    else "No cell above 1.0."))
            f.write("### Matrix cells\n\n")
            f.write(md_table(mrows, with_route=True) + "\n\n")
        for n in foot:
            f.write("- %s\n" % n)
        if rows:
            f.write("\n![speedups](%s.svg)\n" % base)

    with open(prefix + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["scenario", "direction", "tool", "scp_median_s", "tool_median_s",
                    "speedup", "mb_per_s", "peak_rss_mib", "goal_speedup", "met",
                    "tool_runs_ok", "tool_runs", "scp_runs_ok", "date", "machine", "versions",
                    "group", "fscp_route", "scp_cpu_s", "tool_cpu_s", "environment"])
        for o in allrows:
            w.writerow([o["scenario"], o["direction"], o["tool"],
                        "" if o["scp"] is None else "%.3f" % o["scp"],
                        "" if o["med"] is None else "%.3f" % o["med"],
                        "" if o["speed"] is None else "%.3f" % o["speed"],
                        "" if o["mbs"] is None else "%.1f" % o["mbs"],
                        "%.1f" % o["rss"], "" if o["goal"] is None else o["goal"],
                        o["met"], o["n"], o["n_all"], o["scp_n"],
                        m.get("date", ""), m.get("machine", ""), m.get("versions", ""),
                        o["gid"], o["route"],
                        "" if o["scp_cpu"] is None else "%.3f" % o["scp_cpu"],
                        "" if o["cpu"] is None else "%.3f" % o["cpu"],
                        m.get("environment", "")])

    title = "fscp vs scp, %s (%s)" % (m.get("date", "?"), m.get("mode", "?"))
    if rows:
        svg_plot(rows, title, prefix + ".svg")
    if mrows:
        matrix_svg(routes, rtts, grid, "matrix: " + title, prefix + "-matrix.svg")


if __name__ == "__main__":
    main()
