#!/usr/bin/env python3
"""How close "auto" came to the best algorithm, from nhood-bench --json rows.

    nhood_auto_report.py [--limit 1.05] [--markdown] FILE [FILE ...]
    nhood_auto_report.py --acceptance FILE [FILE ...]

For every (topology, collective, mode, ranks, bytes) with an "auto" row, prints auto's median,
the algorithm it ran, the best other algorithm's median (measured in the same run), and the
ratios auto/best and auto/mpi; with "pmpi" rows (MPI's own timed a second time) the same
check on them, as a control of the run's resolution. Exits 1 when one of auto's ratios
exceeds --limit (the acceptance of the cost-model issue: 1.05), 2 on unusable input.

--acceptance applies issue 37's test instead, over all FILEs together (one per run): "auto"
exceeds 1.10x the best no more often than the control exceeds 1.10x "mpi", and "auto" is never
above 1.15x the best; exits 1 where either fails. It also counts, as information, the timings
of other algorithms that ran the best's very schedule (the control too where the best is
"mpi") above 1.10x the best: what a choice that could not be better gets against a best that
is the least of many timings. From them it estimates how many points such a choice lands above
1.10x and above 1.15x (per point, the share of those timings above each), and it counts the
control above 1.15x "mpi": the noise floor both halves of the test face.
Standard library only.
"""
import argparse
import json
import sys

# nhood-bench's "pmpi": MPI's own collective by its profiling names, the same code as "mpi"
# outside an interposition library. Not a candidate for "best"; reported as a control.
CONTROL = "pmpi"


def load(paths):
    rows = []
    for path in paths:
        try:
            with open(path, encoding="utf-8") as f:
                for lineno, line in enumerate(f, 1):
                    if not line.strip():
                        continue
                    try:
                        rows.append(json.loads(line))
                    except json.JSONDecodeError as e:
                        sys.exit(f"nhood_auto_report: {path}:{lineno}: not JSON ({e.msg})")
        except OSError as e:
            print(f"nhood_auto_report: {path}: {e.strerror}", file=sys.stderr)
            sys.exit(2)
    return rows


def cases_of(rows):
    """(topology, collective, mode, ranks, bytes) -> {algorithm: row}, validated timings only."""
    cases = {}
    for r in rows:
        if r.get("coll") in ("create", "sched_build") or r.get("lat_us_median") is None:
            continue
        if not r.get("validated", True):
            continue
        key = (r["topo"], r["coll"], r.get("mode", "-"), r.get("ranks", 0), r["bytes"])
        cases.setdefault(key, {})[r["algo"]] = r
    return cases


def acceptance(paths, near=1.10, never=1.15):
    """Issue 37's test per run (file) and over all runs; 0 when met."""
    counts = ("cases", "auto", "control", "control_never", "twins", "twins_above", "oracle_near", "oracle_never")
    total = dict.fromkeys(counts, 0)
    worst = (0.0, None)

    def floor(c):  # what a choice never wrong gets (expected points), and the control at the upper bound
        return (f"a choice never wrong, expected above {near:.2f}x: {c['oracle_near']:.1f}, above {never:.2f}x: "
                f"{c['oracle_never']:.1f}; control above {never:.2f}x mpi: {c['control_never']}")

    for path in paths:
        run = dict.fromkeys(counts, 0)
        for key, algos in sorted(cases_of(load([path])).items()):
            others = {a: r["lat_us_median"] for a, r in algos.items() if a not in ("auto", CONTROL)}
            if "auto" not in algos or CONTROL not in algos or "mpi" not in others:
                continue
            run["cases"] += 1
            best = min(others, key=others.get)
            ratio = algos["auto"]["lat_us_median"] / others[best]
            run["auto"] += ratio > near
            control = algos[CONTROL]["lat_us_median"] / others["mpi"]
            run["control"] += control > near
            run["control_never"] += control > never
            if ratio > worst[0]:
                worst = (ratio, key)
            ran = algos[best].get("algo_resolved", best)
            again = [r["lat_us_median"] / others[best] for a, r in algos.items()
                     if a not in ("auto", best) and (r.get("algo_resolved", a) == ran or (a == CONTROL and ran == "mpi"))]
            run["twins"] += len(again)
            run["twins_above"] += sum(x > near for x in again)
            if again:
                run["oracle_near"] += sum(x > near for x in again) / len(again)
                run["oracle_never"] += sum(x > never for x in again) / len(again)
        print(f"{path}: {run['cases']} cases; auto above {near:.2f}x the best: {run['auto']}; "
              f"control above {near:.2f}x mpi: {run['control']}; the best's own schedule, timed again, "
              f"above {near:.2f}x the best: {run['twins_above']} of {run['twins']}; {floor(run)}")
        for c in counts:
            total[c] += run[c]
    if total["cases"] == 0:
        print("nhood_auto_report: no case has auto, mpi and the control", file=sys.stderr)
        return 2
    met_near = total["auto"] <= total["control"]
    met_never = worst[0] <= never
    print(f"all runs: auto above {near:.2f}x: {total['auto']}, control above {near:.2f}x: {total['control']} "
          f"({'met' if met_near else 'not met'}); worst auto/best {worst[0]:.3f} at {worst[1]} "
          f"({'met' if met_never else 'not met'}: never above {never:.2f}x); "
          f"the best's own schedule above {near:.2f}x: {total['twins_above']} of {total['twins']}; {floor(total)}")
    return 0 if met_near and met_never else 1


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+")
    ap.add_argument("--limit", type=float, default=1.05)
    ap.add_argument("--markdown", action="store_true", help="a Markdown table")
    ap.add_argument("--acceptance", action="store_true", help="issue 37's test: 1.10 against the control, 1.15 never")
    args = ap.parse_args()
    if args.acceptance:
        return acceptance(args.files)

    cases = cases_of(load(args.files))
    table = []
    control = []  # (pmpi/best, pmpi/mpi) per case
    worst = 0.0
    for key in sorted(cases, key=lambda k: (k[0], k[1], k[2], k[3], k[4])):
        algos = cases[key]
        if "auto" not in algos:
            continue
        auto = algos["auto"]
        others = {a: r["lat_us_median"] for a, r in algos.items() if a not in ("auto", CONTROL)}
        if not others:
            continue
        best = min(others, key=others.get)
        ratio_best = auto["lat_us_median"] / others[best]
        ratio_mpi = auto["lat_us_median"] / others["mpi"] if "mpi" in others else None
        worst = max(worst, ratio_best, ratio_mpi or 0)
        table.append((key, auto.get("algo_resolved", "?"), auto["lat_us_median"], best, others[best],
                      ratio_best, ratio_mpi, algos[best].get("algo_resolved", best)))
        if CONTROL in algos and "mpi" in others:
            ctl = algos[CONTROL]["lat_us_median"]
            control.append((ctl / others[best], ctl / others["mpi"]))
    if not table:
        print("nhood_auto_report: no case has an 'auto' row and another algorithm", file=sys.stderr)
        return 2

    head = ("topo", "coll", "ranks", "bytes", "auto ran", "auto us", "best", "best us", "auto/best", "auto/mpi")
    if args.markdown:
        print("| " + " | ".join(head) + " |")
        print("|" + "|".join("---" if i < 3 or i in (4, 6) else "---:" for i in range(len(head))) + "|")
    else:
        print("%-26s %-10s %5s %9s %-15s %11s %-15s %11s %9s %9s" % head)
    for (topo, coll, mode, ranks, nbytes), ran, auto_us, best, best_us, rb, rm, _ in table:
        mark = lambda v: ("%.3f" % v) + (" !" if v > args.limit else "") if v is not None else "-"
        cells = (topo, coll, str(ranks), str(nbytes), ran, "%.1f" % auto_us, best, "%.1f" % best_us, mark(rb), mark(rm))
        if args.markdown:
            print("| " + " | ".join(cells) + " |")
        else:
            print("%-26s %-10s %5s %9s %-15s %11s %-15s %11s %9s %9s" % cells)
    over = [row for row in table if row[5] > args.limit or (row[6] or 0) > args.limit]
    print(f"\n{len(table)} cases; worst ratio {worst:.3f}; {len(over)} above {args.limit}")
    # Where auto ran what the best (or mpi) ran, a ratio above 1 is not a wrong choice: it is the
    # spread between runs of one schedule, or nhood's own cost per call over MPI's.
    same = sum(1 for row in over
               if (row[5] <= args.limit or row[1] == row[7]) and ((row[6] or 0) <= args.limit or row[1] == "mpi"))
    if over:
        print(f"of those, {same} ran the same schedule as the algorithm they lost to")
    if control:
        # The same check applied to MPI's own collective timed a second time: what it flags is
        # the run's resolution, not a choice.
        c_over = sum(1 for rb, rm in control if rb > args.limit or rm > args.limit)
        c_mpi = sum(1 for _, rm in control if rm > args.limit)
        c_worst = max(max(rb, rm) for rb, rm in control)
        print(f"control ({CONTROL}, MPI's own timed again): {c_over} of {len(control)} cases above {args.limit} "
              f"(against mpi alone: {c_mpi}); worst ratio {c_worst:.3f}")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
