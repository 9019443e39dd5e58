"""bench/run_all.py: runs every bench_*.py, collects their BENCH lines into one table; killed,
it leaves no benchmark and no queue manager running."""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

import psutil

from support import wait_for

PROJECT_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUN_ALL = os.path.join(PROJECT_ROOT, "bench", "run_all.py")

GOOD = '''
import json, sys
quick = "--quick" in sys.argv
print("warming up")
print("BENCH " + json.dumps({"name": "good", "figures": {"connector msg/s": 41250.5 if quick else 1,
      "bare msg/s": 52000}, "ratios": {"connector / bare": 0.7933}, "notes": "1 KiB persistent"}))
'''
BROKEN = '''
import sys
print("about to fail")
sys.exit(3)
'''
SILENT = 'print("no report")\n'
#: a benchmark that starts an embedded queue manager, says where (in $NOTE) and runs on
HOLDING = '''
import json, os, tempfile, time
from spark_mq.embedded import EmbeddedQueueManager
qm = EmbeddedQueueManager(tempfile.mkdtemp(prefix="bench-holding-")).start()
note = {"benchmark": os.getpid(), "queue manager": qm.pid, "port": qm.port}
with open(os.environ["NOTE"] + ".tmp", "w") as handle:
    json.dump(note, handle)
os.replace(os.environ["NOTE"] + ".tmp", os.environ["NOTE"])
time.sleep(3600)
'''


def run_all(directory, *args):
    return subprocess.run([sys.executable, RUN_ALL, "--dir", str(directory), *args],
                          capture_output=True, text=True, timeout=60)


def test_table_has_every_figure_and_ratio_and_failures_fail_the_run(tmp_path):
    (tmp_path / "bench_good.py").write_text(GOOD)
    (tmp_path / "bench_broken.py").write_text(BROKEN)
    (tmp_path / "bench_silent.py").write_text(SILENT)
    (tmp_path / "helper.py").write_text("raise SystemExit('not a benchmark: never run')\n")
    report = tmp_path / "out.json"
    process = run_all(tmp_path, "--quick", "--json", str(report))
    assert process.returncode == 1, process.stdout + process.stderr
    table = process.stdout.split("=== spark-mq benchmarks")[1]
    rows = [line.split() for line in table.splitlines()]
    assert ["good", "figure", "connector", "msg/s", "41,250"] in rows      # --quick was passed
    assert ["good", "figure", "bare", "msg/s", "52,000"] in rows
    assert ["good", "ratio", "connector", "/", "bare", "0.793"] in rows
    assert any(row[:2] == ["bench_broken.py", "FAILED"] and row[-1] == "3" for row in rows if row)
    assert any(row[:2] == ["bench_silent.py", "FAILED"] and "BENCH" in row for row in rows if row)
    assert "good: 1 KiB persistent" in table
    saved = {entry["script"]: entry for entry in json.loads(report.read_text())}
    assert set(saved) == {"bench_good.py", "bench_broken.py", "bench_silent.py"}
    assert saved["bench_good.py"]["reports"][0]["ratios"] == {"connector / bare": 0.7933}


def test_only_selects_benchmarks_and_success_exits_zero(tmp_path):
    (tmp_path / "bench_good.py").write_text(GOOD)
    (tmp_path / "bench_broken.py").write_text(BROKEN)
    process = run_all(tmp_path, "--only", "good")
    assert process.returncode == 0, process.stdout + process.stderr
    assert "bench_broken" not in process.stdout


def test_no_benchmarks_is_an_error(tmp_path):
    process = run_all(tmp_path)
    assert process.returncode == 1
    assert "no bench/bench_*.py scripts found" in process.stderr


def test_killing_run_all_ends_the_benchmark_and_its_queue_manager(tmp_path):
    (tmp_path / "bench_holding.py").write_text(HOLDING)
    note = tmp_path / "note.json"
    run = subprocess.Popen([sys.executable, RUN_ALL, "--dir", str(tmp_path), "--quick"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           env={**os.environ, "NOTE": str(note)})
    try:
        wait_for(note.exists, 60)
        started = json.loads(note.read_text())
        left = [psutil.Process(started["benchmark"]), psutil.Process(started["queue manager"])]
        run.kill()
        run.wait(30)
        _, alive = psutil.wait_procs(left, timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
    assert alive == [], alive
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", started["port"]))      # the port is free again
