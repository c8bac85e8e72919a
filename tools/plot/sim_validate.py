#!/usr/bin/env python3
"""The validation table of scripts/sim_validate.sh: nhood-bench's measured medians beside
nhood-sim's predictions (median and 10th-90th percentile band over the noise's seeds) with the
model nhood-calibrate fitted in the same launch.

  sim_validate.py --cores C [--out FILE] DIR NP [NP ...]

DIR holds, for each NP and launch L, bench-NP-L.json (nhood-bench's rows) and sim-NP-L.json
(nhood-sim --seeds with the model nhood-calibrate fitted at the start of that launch). A
launch's measured median lies in its band when it lies between the 10th and 90th percentile
of nhood-sim's draws with that launch's model. A row is a case (processes, topology,
collective, bytes) and an algorithm that makes its own schedule there (where nhood-sim says it
falls back, the row is left out: its schedule is another algorithm's): the median and range
over launches of the measured medians, the median of all launches' draws and their 10th-90th
percentile, in how many launches the measured median lay in its own band, and each
algorithm's ratio to direct, measured (median over launches) and predicted (all draws). NP
above C is marked "oversubscribed": the model has no term for processes taking turns on a
core. Exit status 0; the summary line counts the launches and cases inside their own band, the
medians over launches inside the band of all launches' draws together, and the ratios to
direct within 15%.
"""
import argparse
import glob
import json
import os
import re
import statistics
import sys


def rows(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def case_key(r):
    return (r["topo"], r["coll"], r["bytes"])


def launch_of(path):
    return int(re.search(r"-(\d+)\.json$", path).group(1))


def quantile(v, p):
    return v[min(len(v) - 1, int(round(p * (len(v) - 1))))]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cores", type=int, required=True)
    ap.add_argument("--out")
    ap.add_argument("dir")
    ap.add_argument("nps", nargs="+", type=int)
    a = ap.parse_args()

    lines = [
        "| P | topology | coll | bytes | algo | measured us (launches) | predicted us (band) | launches in band | "
        "ratio to direct: measured | predicted | predicted / measured |",
        "|---|---|---|---:|---|---:|---|---:|---:|---:|---:|",
    ]
    pairs_in = pairs = cases_all = cases_most = cases = pooled_in = ratios_ok = ratios = 0
    for np_ in a.nps:
        over = np_ > a.cores
        measured = {}  # (case, algo) -> {launch: median}
        for path in glob.glob(os.path.join(a.dir, "bench-%d-*.json" % np_)):
            for r in rows(path):
                if r.get("mode") == "blocking" and r["coll"] in ("allgather", "alltoallv") and "lat_us_median" in r:
                    measured.setdefault(case_key(r) + (r["algo"],), {})[launch_of(path)] = r["lat_us_median"]
        predicted = {}  # (case, algo) -> {launch: row}
        for path in glob.glob(os.path.join(a.dir, "sim-%d-*.json" % np_)):
            for r in rows(path):
                if r.get("pred_us") is not None and r["algo_resolved"] == r["algo"]:
                    predicted.setdefault(case_key(r) + (r["algo"],), {})[launch_of(path)] = r
        keys = sorted(k for k in predicted if k in measured)
        direct = {k[:3]: k for k in keys if k[3] == "direct"}
        for k in keys:
            d = direct.get(k[:3])
            if d is None:
                continue
            launches = sorted(set(predicted[k]) & set(measured[k]))
            if not launches:
                continue
            inside = sum(predicted[k][l]["pred_p10_us"] <= measured[k][l] <= predicted[k][l]["pred_p90_us"]
                         for l in launches)
            m = [measured[k][l] for l in launches]
            draws = sorted(x for l in launches
                           for x in (predicted[k][l].get("pred_samples_us") or [predicted[k][l]["pred_us"]]))
            d_draws = sorted(x for l in predicted[d]
                             for x in (predicted[d][l].get("pred_samples_us") or [predicted[d][l]["pred_us"]]))
            med, p = statistics.median(m), quantile(draws, 0.5)
            rm = med / statistics.median(measured[d].values())
            rp = p / quantile(d_draws, 0.5)
            close = abs(rp / rm - 1) <= 0.15
            if not over:
                pairs += len(launches)
                pairs_in += inside
                cases += 1
                cases_all += inside == len(launches)
                cases_most += 2 * inside > len(launches)
                pooled_in += quantile(draws, 0.1) <= med <= quantile(draws, 0.9)
                if k[3] != "direct":
                    ratios += 1
                    ratios_ok += close
            topo = os.path.basename(k[0]) if k[0].startswith("mtx:") else k[0]
            lines.append(
                "| %d%s | %s | %s | %d | %s | %.2f (%.2f-%.2f) | %.2f (%.2f-%.2f) | %s%d/%d%s | %.2f | %.2f | %.2f |"
                % (np_, " (oversubscribed)" if over else "", topo, k[1], k[2], k[3], med, min(m), max(m), p,
                   quantile(draws, 0.1), quantile(draws, 0.9), "" if inside == len(launches) else "**", inside,
                   len(launches), "" if inside == len(launches) else "**", rm, rp, rp / rm))
    summary = ("processes with a core each: %d of %d launches' medians inside their launch's band; %d of %d cases "
               "inside in every launch, %d in most; %d of %d medians over launches inside the band of all "
               "launches' draws; %d of %d ratios to direct predicted within 15%%"
               % (pairs_in, pairs, cases_all, cases, cases_most, pooled_in, cases, ratios_ok, ratios))
    text = "\n".join(lines) + "\n\n" + summary + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
