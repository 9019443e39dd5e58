"""Progress of a job's streaming queries, from Spark's query progress: in a terminal a live
display (rich) with a bar per query, its rows, rate and the queue depths; otherwise (a log,
a pipe, CI) a line per micro-batch with data. Also the counts and rates the jobs' summaries
print.

The depth shown is the job's own (`depth`, e.g. the quickstart's plain MQINQ of its queues),
else what an mq reader reports in each progress (`sources[0].latestOffset`: the queue's
depth when the trigger planned its batch, and the lag, which adds the batches the query
holds uncommitted), so a job needs no connection of its own to show it. `report(label)` is
that reader's last report, for the summary (e.g. messages moved to the backout queue)."""
from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from rich.console import Console
from rich.progress import BarColumn, Progress, TaskID, TextColumn, TimeElapsedColumn


@dataclass
class Tracked:
    """One query's progress so far."""
    label: str
    query: Any                          # a pyspark StreamingQuery
    task: TaskID | None = None          # its row in the live display
    seen: set[tuple[int, str]] = field(default_factory=set)
    rows: int = 0
    batches: int = 0
    first_rows: int = 0                 # rows of the first batch with data
    first_done: float | None = None     # when it was seen done
    last_done: float | None = None
    report: dict[str, Any] | None = None  # the mq reader's last report (latestOffset)


@dataclass
class ProgressMonitor:
    """Shows each query's micro-batches with data, from Spark's query progress.

    `expected` (rows) is shown as the total to reach; `depth`, when given, is shown with
    them (e.g. the queue depths). `live`: the live display (default: when `out` is a
    terminal); `close()` ends it, before a summary is printed."""

    expected: int | None = None
    depth: Callable[[], str] | None = None
    out: TextIO = field(default_factory=lambda: sys.stdout)
    live: bool | None = None
    tracked: list[Tracked] = field(default_factory=list)
    started: float = field(default_factory=time.monotonic)
    _display: Progress | None = None

    def __post_init__(self) -> None:
        if self.live is None:
            self.live = self.out.isatty()
        if self.live:
            self._display = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(bar_width=20),
                TextColumn("{task.completed:,.0f}{task.fields[total_text]} rows"),
                TextColumn("{task.fields[rate]:,.0f}/s"), TimeElapsedColumn(),
                TextColumn("{task.fields[depth]}"),
                console=Console(file=self.out, force_terminal=True), transient=False)
            self._display.start()

    def track(self, label: str, query: Any) -> None:
        """Follow this StreamingQuery under `label`."""
        tracked = Tracked(label, query)
        if self._display is not None:
            tracked.task = self._display.add_task(
                label, total=self.expected, total_text=f"/{self.expected:,}" if self.expected else "",
                rate=0.0, depth="")
        self.tracked.append(tracked)

    def close(self) -> None:
        """End the live display (the last state stays on the screen)."""
        if self._display is not None:
            self._display.stop()
            self._display = None

    def rows(self, label: str) -> int:
        return self._get(label).rows

    def batches(self, label: str) -> int:
        return self._get(label).batches

    def steady_rate(self, label: str) -> float | None:
        """Rows/s after the first micro-batch (which also pays for Spark's start-up)."""
        tracked = self._get(label)
        if tracked.first_done is None or tracked.last_done is None or tracked.last_done <= tracked.first_done:
            return None
        return (tracked.rows - tracked.first_rows) / (tracked.last_done - tracked.first_done)

    def summary(self) -> str:
        """What the queries did so far, in one line."""
        done = "; ".join(f"{t.label}: {t.rows:,} rows in {t.batches} "
                         f"micro-batch{'' if t.batches == 1 else 'es'}" for t in self.tracked)
        return f"{done or 'nothing processed'} after {time.monotonic() - self.started:.0f} s"

    def poll(self) -> None:
        """Print the micro-batches finished since the last poll."""
        for tracked in self.tracked:
            try:
                progresses = tracked.query.recentProgress
            except Exception:  # noqa: BLE001 - the query's JVM side is gone; nothing more to show
                continue
            for progress in progresses:
                self._show(tracked, progress)

    def report(self, label: str) -> dict[str, Any] | None:
        """The last figures the query's mq reader reported (see the module docstring)."""
        return self._get(label).report

    def _depth_text(self, tracked: Tracked) -> str:
        if self.depth is not None:
            return self.depth()
        report = tracked.report
        if not report or report.get("queueDepth") is None:
            return ""
        text = f"depth {report.get('queue', '')}={int(report['queueDepth']):,}"
        if report.get("lag") is not None and report["lag"] != report["queueDepth"]:
            text += f" (lag {int(report['lag']):,})"
        return text

    def _get(self, label: str) -> Tracked:
        return next(t for t in self.tracked if t.label == label)

    def _show(self, tracked: Tracked, progress: Any) -> None:
        # An idle trigger reports the batch id that runs next, with no rows; the batch that
        # then runs reports the same id. So a progress is known by its id AND timestamp.
        key = (progress.batchId, progress.timestamp)
        if key in tracked.seen:
            return
        tracked.seen.add(key)
        tracked.report = reader_report(progress) or tracked.report
        rows = int(progress.numInputRows or 0)
        if rows == 0:
            if self._display is not None and tracked.task is not None:
                self._display.update(tracked.task, depth=self._depth_text(tracked))
            return
        tracked.rows += rows
        tracked.batches += 1
        now = time.monotonic()
        if tracked.first_done is None:
            tracked.first_rows, tracked.first_done = rows, now
        tracked.last_done = now
        rate = progress.processedRowsPerSecond or 0.0
        if self._display is not None and tracked.task is not None:
            self._display.update(tracked.task, completed=tracked.rows, rate=rate,
                                 depth=self._depth_text(tracked))
            return
        total = f"{tracked.rows:,}" + (f"/{self.expected:,}" if self.expected else "")
        line = (f"[{tracked.label}] t+{time.monotonic() - self.started:5.1f}s batch {progress.batchId}: "
                f"{rows:,} rows at {rate:,.0f} rows/s (total {total})")
        depth = self._depth_text(tracked)
        if depth:
            line += f"  {depth}"
        print(line, file=self.out, flush=True)


def reader_report(progress: Any) -> dict[str, Any] | None:
    """The mq reader's figures in a StreamingQueryProgress (its first source's
    latestOffset JSON), or None (another source, or none reported)."""
    try:
        text = progress.sources[0].latestOffset
        report = json.loads(text) if isinstance(text, str) else text
    except (AttributeError, IndexError, TypeError, ValueError):
        return None
    return report if isinstance(report, dict) and "queueDepth" in report else None
