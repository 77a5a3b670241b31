# SPDX-License-Identifier: BSD-3-Clause
"""Runs hplane for a benchmark with its lcore threads in SCHED_FIFO (shared
by bench/load and bench/pipeline).

On a shared 2-CPU VM other tenants' builds take 30-80 % of a CPU at random,
a CFS share that nice cannot win across cgroups. SCHED_FIFO priority 1 gives
the polling threads their CPUs like isolated cores would, while a loop with
nothing to do still gives the CPU away (--idle yield or sleep): two lcores
that share a CPU then take turns whenever one runs dry. The kernel keeps 5 %
of every second for everything else (sched_rt_runtime_us), so a saturated
loop runs ~95 % of the time; hplane's trace shows how much each loop's
thread really had (os_cpu, from /proc/PID/task/TID/schedstat).
"""
import datetime
import json
import platform
import os
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cpu_model():
    """The CPU's model name, for a record's machine line."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def report(text, name, tag="", record=False):
    """Prints a bench's Markdown report; with record also writes it to
    bench/results/NAME-DATE{tag}.md (the file the README tables cite)."""
    print(text)
    if record:
        path = os.path.join(ROOT, "bench/results",
                            f"{name}-{datetime.date.today().isoformat()}{tag}.md")
        with open(path, "w") as f:
            f.write(text)
        print(f"recorded in {path}", file=sys.stderr)


def run_rt(cmd, timeout, rt=True, log=None, prio=1, on_start=None):
    """Runs cmd (an hplane command line); its lcore threads (rte-worker-*)
    go to SCHED_FIFO priority prio (1) as soon as they exist, the main thread
    stays as it is. Returns (stdout, note on the real-time threads or why
    there are none). Raises RuntimeError on a non-zero exit or a timeout.
    log: a path that also gets stdout, stderr and the note (written before
    any exception, so a failed run leaves its whole output there).
    on_start(pid), if given, is called once the process exists and returns
    what to call when it has ended (bench/pipeline's telemetry reader)."""
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    on_end = on_start(p.pid) if on_start is not None else None
    done, why, out = set(), None, {}
    t_end = time.monotonic() + timeout

    def drain(name, f):
        out[name] = f.read()
    th = [threading.Thread(target=drain, args=(n, f)) for n, f in (("o", p.stdout), ("e", p.stderr))]
    for t in th:
        t.start()

    def keep(note):
        if log is not None:
            for t in th:
                t.join()
            with open(log, "w") as f:
                f.write(out.get("o", "") + out.get("e", "") + note + "\n")
    while p.poll() is None:
        if time.monotonic() > t_end:
            os.killpg(p.pid, 9)
            p.wait()
            keep("timeout")
            raise RuntimeError(f"timeout: {' '.join(cmd)}")
        if rt and why is None:
            try:
                for t in os.listdir(f"/proc/{p.pid}/task"):
                    if t in done:
                        continue
                    with open(f"/proc/{p.pid}/task/{t}/comm") as f:
                        if not f.read().startswith("rte-worker"):
                            continue
                    os.sched_setscheduler(int(t), os.SCHED_FIFO, os.sched_param(prio))
                    done.add(t)
            except (FileNotFoundError, ProcessLookupError):
                pass  # a thread (or the process) ended between listdir and open/read
            except PermissionError as e:
                why = f"no real-time threads ({e})"
        time.sleep(0.005)
    for t in th:
        t.join()
    if on_end is not None:
        on_end()
    note = (why or f"{len(done)} lcore threads SCHED_FIFO" + (f" priority {prio}" if prio != 1 else "")) \
        if rt else "no real-time threads"
    keep(f"exit {p.returncode}; {note}")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {out['e'].strip()[-500:]}")
    return out["o"], note


def run_summary(cmd, secs, rt, who, also=None, on_start=None):
    """Runs the hplane command line cmd with --out in a scratch folder
    (run_rt: lcores SCHED_FIFO unless rt is False) and returns its
    summary.json with the real-time note under "_rt"; also(folder, summary),
    if given, reads more of the run's files before the folder goes. A failed
    run exits with one line that starts with who."""
    with tempfile.TemporaryDirectory() as d:
        try:
            _, note = run_rt(list(cmd) + ["--out", d], timeout=120 + 4 * secs, rt=rt,
                             on_start=on_start)
        except RuntimeError as e:
            sys.exit(f"{who}: {e}")
        with open(os.path.join(d, "summary.json")) as f:
            s = json.load(f)
        if also is not None:
            also(d, s)
        s["_rt"] = note
        return s
