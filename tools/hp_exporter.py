#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Prometheus exporter for running heteroplane instances (docs/operations.md).

Reads the DPDK telemetry socket of each instance (the /heteroplane/
commands of lib/pipeline/pl_tel.c, and /heteroplane/lcore/load) at every
scrape and serves /metrics in the exposition format. One process serves
one or several instances, named by DPDK file prefix (hplane runs with
--file-prefix hplane<pid>); `--all` serves every hplane* instance it finds
at each scrape. Each series carries the instance's prefix as `hplane`.

  tools/hp_exporter.py --prefix hplane1234 --listen 127.0.0.1:9105
  tools/hp_exporter.py --all

Units are Prometheus's: seconds, bytes, joules, watts; counters end in
_total and restart at 0 when a run's measured phase begins (Prometheus's
rate() treats that as a counter reset).
"""
import argparse
import glob
import json
import os
import socket
import sys
import time

from prometheus_client import start_http_server
from prometheus_client.core import REGISTRY, CounterMetricFamily, GaugeMetricFamily, Metric

SOCKET = "dpdk_telemetry.v2"
QUANTILES = (("0.5", "p50"), ("0.9", "p90"), ("0.99", "p99"), ("0.999", "p999"))


def runtime_dir():
    """DPDK's EAL runtime directory base (as dpdk-telemetry.py finds it)."""
    d = os.environ.get("RUNTIME_DIRECTORY")
    if not d:
        d = "/var/run" if os.getuid() == 0 else os.environ.get("XDG_RUNTIME_DIR", "/tmp")
    return os.path.join(d, "dpdk")


class Telemetry:
    """One connection to an instance's telemetry socket (SOCK_SEQPACKET:
    one message a request, one a reply)."""

    def __init__(self, path, timeout=2.0):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.settimeout(timeout)
        self.s.connect(path)
        hello = json.loads(self.s.recv(1 << 16).decode())
        self.buf = int(hello.get("max_output_len", 16384))

    def ask(self, cmd):
        self.s.send(cmd.encode())
        return json.loads(self.s.recv(self.buf).decode()).get(cmd.split(",")[0])

    def close(self):
        self.s.close()


def table(t):
    """A keyed table of pl_tel.c ({"fields", "names", key: [values]}) as
    {name: {field: value}}, in the instance's order."""
    if not t or "fields" not in t:
        return {}
    keys = [k for k in t if k not in ("fields", "names")]
    return {n: dict(zip(t["fields"], t[k])) for n, k in zip(t.get("names", []), keys)}


def read_instance(path):
    """Every /heteroplane/ answer of one instance, or None when it is not
    running a measured phase (not started, calibrating, between runs)."""
    try:
        tel = Telemetry(path)
    except (OSError, ValueError):
        return None
    try:
        st = tel.ask("/heteroplane/stats")
        if not st or st.get("running") == 0:
            return None
        out = {"stats": st}
        for c in ("devices", "apps", "drops", "latency", "batches", "power", "flows",
                  "lcore/load"):
            out[c] = tel.ask(f"/heteroplane/{c}") or {}
        return out
    except (OSError, ValueError):
        return None
    finally:
        tel.close()


class Collector:
    def __init__(self, prefixes, discover):
        self.prefixes = list(prefixes)
        self.discover = discover

    def targets(self):
        base = runtime_dir()
        names = list(self.prefixes)
        if self.discover:
            for p in sorted(glob.glob(os.path.join(base, "hplane*", SOCKET))):
                n = os.path.basename(os.path.dirname(p))
                if n not in names:
                    names.append(n)
        return [(n, os.path.join(base, n, SOCKET)) for n in names]

    def collect(self):
        m = Families()
        for prefix, path in self.targets():
            r = read_instance(path)
            m.g("up", "1 when the instance answered with a run in its measured phase",
                ["hplane"], [prefix], 0 if r is None else 1)
            if r is not None:
                add_instance(m, prefix, r)
        yield from m.all()


class Families:
    """Metric families by name, created on first use."""

    def __init__(self):
        self.f = {}

    def _get(self, kind, name, doc, labels, unit=""):
        full = "heteroplane_" + name
        if full not in self.f:
            if kind == "counter":
                self.f[full] = CounterMetricFamily(full, doc, labels=labels, unit=unit)
            else:
                self.f[full] = GaugeMetricFamily(full, doc, labels=labels, unit=unit)
        return self.f[full]

    def c(self, name, doc, labels, values, v, unit=""):
        self._get("counter", name, doc, labels, unit).add_metric(values, v)

    def g(self, name, doc, labels, values, v, unit=""):
        self._get("gauge", name, doc, labels, unit).add_metric(values, v)

    def summary(self, name, doc, labels, values, quantiles, count, total):
        full = "heteroplane_" + name
        if full not in self.f:
            self.f[full] = Metric(full, doc, "summary")
        s = self.f[full]
        base = dict(zip(labels, values))
        for q, v in quantiles:
            s.add_sample(full, dict(base, quantile=q), v)
        s.add_sample(full + "_count", base, count)
        s.add_sample(full + "_sum", base, total)

    def all(self):
        return self.f.values()


def add_instance(m, prefix, r):
    st = r["stats"]
    app = st["app"]
    L, V = ["hplane", "app"], [prefix, app]
    hz = float(st["hz"]) or 1.0
    m.g("info", "The run: app, scheduler, traffic source", ["hplane", "app", "scheduler", "source"],
        [prefix, app, st["scheduler"], st["source"]], 1)
    m.g("run_seconds", "Time since the measured phase began", L, V, st["t_ns"] / 1e9)
    for what in ("offered", "received", "delivered"):
        m.c(f"{what}_packets", f"Packets {what} (summary.json packets_{what})", L, V,
            st[f"packets_{what}"])
    m.c("bytes", "L2 bytes (frames without FCS) received and delivered", L + ["direction"],
        V + ["received"], st["bytes_received"])
    m.c("bytes", "", L + ["direction"], V + ["delivered"], st["bytes_delivered"])
    m.c("wire_bytes", "Delivered bytes on the wire (L1: + FCS, preamble, gap)", L, V,
        st["bytes_delivered_l1"])
    m.g("in_flight_packets", "Packets inside the pipeline now", L, V, st["in_flight"])
    m.c("deadline_packets", "Latency-sensitive packets delivered", L, V, st["deadline_packets"])
    m.c("deadline_met_packets", "... of them within their deadline", L, V, st["deadline_met"])
    m.c("order_packets", "Order-needing packets delivered", L, V, st["order_packets"])
    m.c("order_in_order_packets", "... of them in their flow's order", L, V, st["order_in_order"])
    m.c("verified_packets", "Delivered packets checked against the reference", L, V,
        st["verified"])
    m.c("verify_failures", "Checked packets that were wrong", L, V, st["verify_failures"])
    m.c("scheduler_busy_seconds", "Scheduler loop time that found work", L, V,
        st["sched_busy_cycles"] / hz)
    m.c("scheduler_loop_seconds", "Scheduler loop time in all", L, V, st["sched_total_cycles"] / hz)
    for d, k in (("rx", "ipackets"), ("tx", "opackets")):
        m.c("ethdev_packets", "The port's packets as ethdev counts them", L + ["direction"],
            V + [d], st[f"ethdev_{k}"])
    m.c("ethdev_missed_packets", "ethdev's imissed of the rx port", L, V, st["ethdev_imissed"])
    for reason, n in r["drops"].items():
        m.c("drops", "Packets dropped, by reason (port, classification, task_error)",
            L + ["reason"], V + [reason], n)
    # latency: since the start as a summary; the last trace window as gauges
    lt = r["latency"]
    if lt:
        m.summary("latency_seconds", "Latency from port arrival to tx, since the start",
                  L, V, [(q, lt[f"{k}_ns"] / 1e9) for q, k in QUANTILES],
                  lt["count"], lt["sum_ns"] / 1e9)
        for q, k in QUANTILES:
            m.g("latency_window_seconds", "Latency quantiles of the last trace window (1 s)",
                L + ["quantile"], V + [q], lt[f"window_{k}_ns"] / 1e9)
        m.g("latency_window_end_seconds", "When that window ended (its trace.csv row's t_s)",
            L, V, lt["window_end_ns"] / 1e9)
        m.g("latency_max_seconds", "Longest latency since the start", L, V, lt["max_ns"] / 1e9)
    for dev, d in table(r["devices"]).items():
        DL, DV = L + ["device"], V + [dev]
        m.c("packets", "Packets each device completed", DL, DV, d["packets"])
        m.summary("device_latency_seconds", "Latency of the packets each device ran",
                  DL, DV, [("0.99", d["latency_p99_ns"] / 1e9)], d["latency_count"],
                  d["latency_sum_ns"] / 1e9)
        m.c("device_busy_seconds", "Device loop time that found work", DL, DV,
            d["busy_cycles"] / hz)
        m.c("device_loop_seconds", "Device loop time in all", DL, DV, d["total_cycles"] / hz)
        m.c("device_fallback_packets", "Packets a failed device left to the CPU path", DL, DV,
            d["fallback_packets"])
        m.g("device_failed", "1 when the device failed", DL, DV, d["failed"])
    for dev, b in table(r["batches"]).items():
        DL, DV = L + ["device"], V + [dev]
        m.c("batches", "Batches a batching device formed", DL, DV, b["batches"])
        m.c("batch_packets", "Packets in those batches", DL, DV, b["batch_packets"])
        for f, n in b.items():
            if f.startswith("flush_"):
                m.c("batch_flushes", "Batches by why they left", DL + ["reason"],
                    DV + [f[len("flush_"):]], n)
    for src, p in table(r["power"]).items():
        PL, PV = L + ["source", "modeled"], V + [src, str(bool(p["modeled"])).lower()]
        m.g("power_watts", "Power of each source at its last sample", PL, PV,
            p["milliwatts"] / 1e3)
        m.c("joules", "Energy of each source since the start", PL, PV, p["millijoules"] / 1e3)
    fl = r["flows"]
    if fl:
        m.g("flows", "Flows in the table now", L, V, fl["live"])
        m.g("flows_max", "Flows the table holds", L, V, fl["max"])
        m.g("flows_peak", "Most flows at once", L, V, fl["peak"])
        m.c("flows_created", "Flows that entered the table", L, V, fl["created"])
        m.c("flows_expired", "Flows that left it idle", L, V, fl["expired"])
        m.c("flow_refused_packets", "Packets of flows a full table refused", L, V,
            fl["refused_packets"])
    ld = r["lcore/load"]
    for i, n in enumerate(ld.get("name", [])):
        m.g("loop_load_ratio", "Polling loop load estimate (docs/load.md)", L + ["loop"],
            V + [n], ld["load_bp"][i] / 1e4)


class OneLineParser(argparse.ArgumentParser):
    """Bad usage is one line on stderr and exit 2, as every program here."""

    def error(self, message):
        print(f"hp_exporter: {message} (--help for usage)", file=sys.stderr)
        sys.exit(2)


def main():
    ap = OneLineParser(description=__doc__.split("\n")[0])
    ap.add_argument("--prefix", action="append", default=[],
                    help="DPDK file prefix of an instance (hplane<pid>); repeat for several")
    ap.add_argument("--all", action="store_true",
                    help="serve every hplane* instance found at each scrape")
    ap.add_argument("--listen", default="127.0.0.1:9105", help="address:port (127.0.0.1:9105)")
    ap.add_argument("--once", action="store_true", help="print /metrics once and exit")
    a = ap.parse_args()
    if not a.prefix and not a.all:
        ap.error("name an instance (--prefix hplane<pid>) or --all")
    for p in a.prefix:
        if not p or "/" in p or p.startswith("."):
            ap.error(f"bad prefix {p!r}: a DPDK file prefix, as hplane1234")
    col = Collector(a.prefix, a.all)
    REGISTRY.register(col)
    if a.once:
        from prometheus_client import generate_latest
        sys.stdout.write(generate_latest(REGISTRY).decode())
        return
    host, _, port = a.listen.rpartition(":")
    try:
        start_http_server(int(port), addr=host or "127.0.0.1")
    except (ValueError, OSError) as e:
        ap.error(f"cannot listen on {a.listen!r}: {e}")
    print(f"hp_exporter: serving http://{host or '127.0.0.1'}:{port}/metrics", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
