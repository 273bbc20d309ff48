"""Progress on stderr: a bar on a terminal, a line every ~10 s in logs and CI.

On a terminal, a click progress bar that moves with each finished chunk
(position, percentage, ETA). When stderr is not a terminal (a log file, CI),
a bar would print nothing useful: instead a line every ``every`` seconds with
games done, games per second and the ETA, and one at the end. A sweep names
its current cell in both, with the cell's own progress and ETA in the lines.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator
from typing import IO, Any

import click

EVERY = 10.0  # seconds between progress lines when stderr is not a terminal


def is_terminal(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def eta_text(seconds: float | None) -> str:
    """``42 s``, ``3 min 5 s``, ``2 h 07 min``; ``?`` when unknown."""
    if seconds is None:
        return "?"
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


class Lines:
    """Progress as lines: every ``every`` seconds (and at the end) games done, games/s and the ETA."""

    def __init__(self, length: int, label: str, file: IO[str], every: float = EVERY,
                 clock: Callable[[], float] = time.monotonic):
        self.length, self.label, self.file, self.every, self.clock = length, label, file, every, clock
        self.done = 0
        self.started = self.last = clock()
        self.cell: tuple[str, int, int, float] | None = None  # name, length, done, start time

    def start_cell(self, name: str, length: int) -> None:
        """A sweep's next cell: its name and the games it has to play."""
        self.cell = (name, length, 0, self.clock())

    def update(self, count: int) -> None:
        self.done += count
        if self.cell is not None:
            name, length, done, started = self.cell
            self.cell = (name, length, done + count, started)
        if self.clock() - self.last >= self.every:
            self.write()

    def write(self) -> None:
        now = self.clock()
        self.last = now
        click.echo(self.line(now), file=self.file)

    def line(self, now: float) -> str:
        text = f"{self.label}: {self._figures(self.done, self.length, now - self.started)}"
        if self.cell is not None:
            name, length, done, started = self.cell
            text += f"; cell {name}: {self._figures(done, length, now - started)}"
        return text

    @staticmethod
    def _figures(done: int, length: int, seconds: float) -> str:
        speed = done / seconds if seconds > 0 and done else None
        eta = (length - done) / speed if speed else None
        share = f" ({100 * done / length:.0f}%)" if length else ""
        rate = f"{speed:,.0f} games/s" if speed else "- games/s"
        return f"{done:,}/{length:,} games{share}, {rate}, ETA {eta_text(eta)}"

    def echo(self, line: str) -> None:
        click.echo(line, file=self.file)


class Bar:
    """A click progress bar (terminal); a sweep's cell shows in its label."""

    def __init__(self, bar: Any, label: str, file: IO[str]):
        self.bar, self.label, self.file = bar, label, file

    def start_cell(self, name: str, length: int) -> None:
        self.bar.label = f"{self.label} cell {name}"
        self.bar.render_progress()

    def update(self, count: int) -> None:
        self.bar.update(count)

    def echo(self, line: str) -> None:
        """A line above the bar: clear the bar's line, write ours, draw the bar again below it."""
        click.echo("\r\x1b[K" + line, file=self.file)
        self.bar.render_progress()


@contextlib.contextmanager
def progress_display(length: int, label: str, file: IO[str] | None = None) -> Iterator[Bar | Lines]:
    """The progress display for ``length`` games: a bar on a terminal, else :class:`Lines`."""
    file = file or sys.stderr
    if is_terminal(file):
        with click.progressbar(length=length, label=label, file=file, show_pos=True, show_eta=True) as bar:
            yield Bar(bar, label, file)
        return
    lines = Lines(length, label, file)
    yield lines
    if lines.done:  # the last line, when the games ran to the end (an interrupted run says so in one line instead)
        lines.write()
