#!/usr/bin/env python3
"""The validation table of scripts/sim_validate.sh: nhood-bench's measured medians beside
nhood-sim's predictions (median and 10th-90th percentile band over the noise's seeds) with the
model nhood-calibrate fitted on the same processes.

  sim_validate.py --cores C [--out FILE] DIR NP [NP ...]

DIR holds bench-NP-L.json (one per launch L) and sim-NP-C.json (one per calibration C, with
nhood-sim --seeds) for each NP. A case's measured value is the median over launches of each
launch's median; its prediction is the median of every calibration's noise draws together,
and its band their 10th-90th percentile. A row is a case (processes, topology,
collective, bytes) and an algorithm that makes its own schedule there (where nhood-sim says it
falls back, the row is left out: its schedule is another algorithm's). NP above C is marked
"oversubscribed": the model has no term for processes taking turns on a core. Exit status 0;
the summary line says how many medians lie in their band and how many ratios to direct are
within 15%.
"""
import argparse
import glob
import json
import os
import statistics
import sys


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def case_key(r):
    return (r["topo"], r["coll"], r["bytes"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--out")
    ap.add_argument("dir")
    ap.add_argument("nps", nargs="+", type=int)
    a = ap.parse_args()

    lines = [
        "| P | topology | coll | bytes | algo | measured us (launches) | predicted us (band) | in band | "
        "ratio to direct: measured | predicted | predicted / measured |",
        "|---|---|---|---:|---|---:|---|---|---:|---:|---:|",
    ]
    inside = total = ratios_ok = ratios = 0
    for np_ in a.nps:
        over = np_ > a.cores
        launches = {}
        for path in sorted(glob.glob(os.path.join(a.dir, "bench-%d-*.json" % np_))):
            for r in rows(path):
                if r.get("mode") == "blocking" and r["coll"] in ("allgather", "alltoallv"):
                    launches.setdefault(case_key(r) + (r["algo"],), []).append(r["lat_us_median"])
        bench = {k: {"lat_us_median": statistics.median(v), "low": min(v), "high": max(v)}
                 for k, v in launches.items()}
        pooled = {}
        for path in sorted(glob.glob(os.path.join(a.dir, "sim-%d-*.json" % np_))):
            for r in rows(path):
                if r.get("pred_us") is None:
                    continue
                key = case_key(r) + (r["algo"],)
                if key not in pooled:
                    pooled[key] = dict(r, samples=[])
                pooled[key]["samples"] += r.get("pred_samples_us") or [r["pred_us"]]
        sim = []
        for r in pooled.values():
            v = sorted(r["samples"])
            q = lambda p: v[min(len(v) - 1, int(round(p * (len(v) - 1))))]
            r.update(pred_us=q(0.5), pred_p10_us=q(0.1), pred_p90_us=q(0.9))
            sim.append(r)
        sim.sort(key=lambda r: (r["topo"], r["coll"], r["bytes"]))
        direct = {case_key(r): r for r in sim if r["algo"] == "direct"}
        for r in sim:
            if r["algo_resolved"] != r["algo"]:
                continue
            b = bench.get(case_key(r) + (r["algo"],))
            d_sim = direct.get(case_key(r))
            d_bench = bench.get(case_key(r) + ("direct",))
            if b is None or d_sim is None or d_bench is None:
                continue
            m, p, lo, hi = b["lat_us_median"], r["pred_us"], r["pred_p10_us"], r["pred_p90_us"]
            ok = lo <= m <= hi
            rm, rp = m / d_bench["lat_us_median"], p / d_sim["pred_us"]
            close = abs(rp / rm - 1) <= 0.15
            if not over:
                total += 1
                inside += ok
                if r["algo"] != "direct":
                    ratios += 1
                    ratios_ok += close
            topo = os.path.basename(r["topo"]) if r["topo"].startswith("mtx:") else r["topo"]
            lines.append(
                "| %d%s | %s | %s | %d | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s | %.2f | %.2f | %.2f |"
                % (np_, " (oversubscribed)" if over else "", topo, r["coll"], r["bytes"], r["algo"], m, b["low"],
                   b["high"], p, lo, hi,
                   "yes" if ok else "**no**", rm, rp, rp / rm)
            )
    summary = ("%d of %d measured medians inside their band; %d of %d ratios to direct predicted within 15%% "
               "(processes with a core each)" % (inside, total, ratios_ok, ratios))
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
