#!/usr/bin/env python3
"""Where a staged copy's time goes, from a Perfetto trace of `pinbench staged --trace` or
`pinbench pipeline --trace` (docs/methodology.md, "Where a copy's time goes").

For every synchronous engine call in the trace (the caller's "copy to device" / "copy to host"
range of the engine's NVTX domain), the DMAs of its chunks, the host threads' fill and drain
slices, their wake-ups, the coordinator's "queue dma" and "dma seen" marks and the caller's end
are laid on one clock (CUPTI's), and the call's time is cut into stages:

  start   the call's entry to its first DMA's start (argument checks, the coordinator and the
          host threads waking, the first chunk's fill, the first DMA queued)
  dma     the chunks' DMAs, back to back
  gaps    time inside the DMA span when no chunk's DMA ran (the ring waited on the host side)
  end     the last DMA's end to the call's return (the mark seen, the last drain, the caller)

and `dma` is set against the same bytes from page-locked memory in one DMA (the case's pinned
samples in the same trace), so `dma excess` is what moving through staging costs the copy engine.
Figures are medians over the calls of each case, in microseconds.

With --pipeline the trace is a pipeline's: each staged run's span (first fill to last drain) and
the share of it each direction's DMA and host threads were busy.

Usage: engine-timeline.py TRACE.json[.gz] [--pipeline] [--json OUT]
"""
import argparse
import gzip
import json
import os
import statistics
import sys
from collections import defaultdict

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from script_input import fail, open_input  # noqa: E402

ENGINE = "pinbench engine"
PHASE = "pinbench"


def load(path):
    """The trace's complete slices ("ph": "X"), each with its end; a trace that is not a regular
    file holding Chrome trace JSON (gzipped where its name ends in .gz) is exit 2, one line."""
    with open_input(path, "rb", "trace") as f:
        raw = f.read()
    if path.endswith(".gz"):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError) as e:
            fail("trace %s is not gzip: %s" % (path, e))
    try:
        data = json.loads(raw)
    except ValueError as e:
        fail("trace %s is not JSON: %s" % (path, e))
    events = data.get("traceEvents") if isinstance(data, dict) else data
    if not isinstance(events, list) or not all(isinstance(e, dict) for e in events):
        fail("trace %s holds no list of trace events" % path)
    slices = [e for e in events if e.get("ph") == "X"]
    for e in slices:
        e["end"] = e["ts"] + e.get("dur", 0)
    return slices


def domain(e):
    return (e.get("args") or {}).get("domain", "")


def median(xs):
    return statistics.median(xs) if xs else float("nan")


def within(events, start, end):
    return [e for e in events if e["ts"] >= start and e["ts"] <= end]


def busy_union(intervals):
    total, cur_s, cur_e = 0.0, None, None
    for s, e in sorted(intervals):
        if cur_e is None or s > cur_e:
            if cur_e is not None:
                total += cur_e - cur_s
            cur_s, cur_e = s, e
        else:
            cur_e = max(cur_e, e)
    if cur_e is not None:
        total += cur_e - cur_s
    return total


def copies(slices):
    nvtx = [e for e in slices if e.get("cat") == "nvtx"]
    engine = [e for e in nvtx if domain(e) == ENGINE]
    phases = [e for e in nvtx if domain(e) == PHASE]
    dmas = sorted((e for e in slices if e.get("cat") == "memcpy"), key=lambda e: e["ts"])
    calls = [e for e in engine if e["name"] in ("copy to device", "copy to host")]
    by_name = defaultdict(list)
    for e in engine:
        by_name[e["name"]].append(e)
    for k in by_name:
        by_name[k].sort(key=lambda e: e["ts"])
    out = []
    for c in sorted(calls, key=lambda e: e["ts"]):
        s, e = c["ts"], c["end"]
        to_device = c["name"] == "copy to device"
        phase = next((p["name"] for p in phases if p["ts"] <= s and p["end"] >= e), "")
        mine = [d for d in dmas if d["ts"] >= s and d["end"] <= e + 1]
        if not mine:
            continue  # a direct copy: no chunk went through the ring
        host = by_name["fill" if to_device else "drain"]
        hs = [h for h in host if h["end"] >= s and h["ts"] <= e]
        wakes = [w["end"] - s for w in by_name["asleep"] if s <= w["end"] <= e]
        coord = [w["end"] - s for w in by_name["coordinator asleep"] if s <= w["end"] <= e]
        queued = [q for q in by_name["queue dma"] if s <= q["ts"] <= e]
        seen = [q for q in by_name["dma seen"] if s <= q["ts"] <= e]
        prefault = [q for q in by_name["prefault"] if q["end"] >= s and q["ts"] <= e]
        first_dma, last_dma = mine[0], mine[-1]
        span = last_dma["end"] - first_dma["ts"]
        dma_busy = busy_union([(d["ts"], d["end"]) for d in mine])
        row = {
            "phase": phase,
            "direction": "h2d" if to_device else "d2h",
            "bytes": sum(d.get("args", {}).get("bytes", 0) for d in mine),
            "call": e - s,
            "start": first_dma["ts"] - s,
            "dma": dma_busy,
            "gaps": span - dma_busy,
            "end": e - last_dma["end"],
            "chunks": len(mine),
            "first_slice": (min(h["ts"] for h in hs) - s) if hs else float("nan"),
            "first_queue": (queued[0]["ts"] - s) if queued else float("nan"),
            "queue_to_start": (first_dma["ts"] - queued[0]["end"]) if queued else float("nan"),
            "last_seen": (seen[-1]["ts"] - last_dma["end"]) if seen else float("nan"),
            "host_thread_us": sum(h["dur"] for h in hs),
            "prefault_us": sum(h["dur"] for h in prefault),
            "workers_woken": len(wakes),
            "first_wake": min(wakes) if wakes else float("nan"),
            "coordinator_woke": min(coord) if coord else float("nan"),
        }
        if not to_device and hs:
            row["last_drain_end"] = max(h["end"] for h in hs) - last_dma["end"]
        out.append(row)
    return out, dmas, phases


def pinned_dma(dmas, phases):
    """Median single-DMA time of each page-locked case, keyed by (direction, bytes)."""
    found = defaultdict(list)
    for p in phases:
        if " pinned " not in p["name"] + " ":
            continue
        for d in dmas:
            if d["ts"] >= p["ts"] and d["end"] <= p["end"]:
                a = d.get("args", {})
                kind = "h2d" if a.get("src_kind") == "pinned" else "d2h"
                found[(kind, a.get("bytes", 0))].append(d["dur"])
    return {k: median(v) for k, v in found.items()}


def report(rows, pinned):
    groups = defaultdict(list)
    for r in rows:
        groups[(r["phase"], r["direction"])].append(r)
    keys = ["call", "start", "dma", "gaps", "end", "first_slice", "first_queue",
            "queue_to_start", "last_seen", "first_wake", "coordinator_woke", "last_drain_end",
            "prefault_us", "host_thread_us", "chunks", "workers_woken"]
    summary = []
    for (phase, direction), rs in sorted(groups.items()):
        med = {k: median([r[k] for r in rs if k in r]) for k in keys}
        med["calls"] = len(rs)
        med["phase"] = phase
        med["direction"] = direction
        med["bytes"] = rs[0]["bytes"]
        ref = pinned.get((direction, rs[0]["bytes"]))
        med["pinned_dma"] = ref if ref is not None else float("nan")
        med["dma_excess"] = med["dma"] - med["pinned_dma"] if ref is not None else float("nan")
        summary.append(med)
    return summary


def print_summary(summary):
    cols = ["calls", "call", "pinned_dma", "start", "dma", "dma_excess", "gaps", "end",
            "first_slice", "first_wake", "coordinator_woke", "first_queue", "queue_to_start",
            "last_seen", "last_drain_end", "prefault_us", "chunks"]
    for s in summary:
        print(f"{s['phase'] or '(no phase)'} [{s['direction']}, {s['bytes'] / 2**20:.0f} MiB]")
        for c in cols:
            v = s.get(c, float("nan"))
            if isinstance(v, float) and v != v:
                continue
            print(f"  {c:18} {v:10.1f}")


def pipeline(slices):
    """Per staged pipeline run: span, and each direction's DMA and host busy share."""
    nvtx = [e for e in slices if e.get("cat") == "nvtx"]
    fills = [e for e in nvtx if domain(e) == ENGINE and e["name"] == "fill"]
    drains = [e for e in nvtx if domain(e) == ENGINE and e["name"] == "drain"]
    dmas = [e for e in slices if e.get("cat") == "memcpy"]
    if not fills:
        return []
    # Runs are separated by gaps of over 5 ms without a fill or drain.
    host = sorted(fills + drains, key=lambda e: e["ts"])
    runs, cur = [], [host[0]]
    for e in host[1:]:
        if e["ts"] - max(x["end"] for x in cur[-50:]) > 5000:
            runs.append(cur)
            cur = []
        cur.append(e)
    runs.append(cur)
    out = []
    for r in runs:
        s, e = min(x["ts"] for x in r), max(x["end"] for x in r)
        ds = [d for d in dmas if d["ts"] >= s - 1 and d["end"] <= e + 1]
        h2d = [d for d in ds if d.get("args", {}).get("src_kind") == "pinned"]
        d2h = [d for d in ds if d.get("args", {}).get("dst_kind") == "pinned"]
        f = [x for x in r if x["name"] == "fill"]
        d = [x for x in r if x["name"] == "drain"]
        span = e - s
        out.append({
            "span_ms": span / 1000,
            "h2d_dma_busy": busy_union([(x["ts"], x["end"]) for x in h2d]) / span,
            "d2h_dma_busy": busy_union([(x["ts"], x["end"]) for x in d2h]) / span,
            "fill_thread_ms": sum(x["dur"] for x in f) / 1000,
            "drain_thread_ms": sum(x["dur"] for x in d) / 1000,
            "fill_threads_mean": sum(x["dur"] for x in f) / span,
            "drain_threads_mean": sum(x["dur"] for x in d) / span,
        })
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--pipeline", action="store_true")
    ap.add_argument("--json")
    a = ap.parse_args()
    slices = load(a.trace)
    if a.pipeline:
        result = pipeline(slices)
        for r in result:
            print("  ".join(f"{k} {v:.2f}" for k, v in r.items()))
    else:
        rows, dmas, phases = copies(slices)
        result = report(rows, pinned_dma(dmas, phases))
        print_summary(result)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
