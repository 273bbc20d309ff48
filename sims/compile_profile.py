"""Where a cold compile of the numba kernels goes: CPU seconds compiling (every numba compile while playing two
games of each bot at a few player counts), per compiled function (its callees' compiles left out), and which
functions numba compiled more than once (one compile per argument types; a constant argument is typed as its
literal, so ``f(False)`` beside ``f(flag)`` compiles ``f`` and all it calls twice, ``docs/design.md``).

Run it from an empty cache, or it measures only what the cache lacks::

    NUMBA_CACHE_DIR=$(mktemp -d) python -m sims.compile_profile vorex
    make compile-profile GAME=vorex
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from numba.core import event

PLAYERS = {"overgrowth": (2,), "vora": (2, 3), "vorex": (1, 2, 3), "reforest": (1, 2, 3)}
BOTS = ("random", "greedy", "planner", "strong")


@dataclass
class CompileTimes:
    """CPU seconds each function took to compile, its callees' compiles excluded, and how often it was compiled."""

    seconds: Counter = field(default_factory=Counter)
    compiles: Counter = field(default_factory=Counter)

    def twice(self) -> list[tuple[str, int]]:
        """The functions of this project compiled more than once, most often first."""
        return [(name, n) for name, n in self.compiles.most_common() if n > 1 and name.startswith("sims.")]


class _Listener(event.Listener):
    def __init__(self, times: CompileTimes) -> None:
        self.times = times
        self.starts: list[float] = []

    def on_start(self, ev: event.Event) -> None:
        self.starts.append(time.process_time())

    def on_end(self, ev: event.Event) -> None:
        spent = time.process_time() - self.starts.pop()
        function = ev.data["dispatcher"].py_func
        name = f"{function.__module__}.{function.__qualname__}"
        self.times.seconds[name] += spent
        self.times.compiles[name] += 1
        self.starts = [start + spent for start in self.starts]  # the caller's own time excludes this compile


@contextmanager
def recording() -> Iterator[CompileTimes]:
    """Records every numba compile inside the block."""
    times = CompileTimes()
    listener = _Listener(times)
    event.register("numba:compile", listener)
    try:
        yield times
    finally:
        event.unregister("numba:compile", listener)


def play_every_bot(game: str, out: Path, invoke: Callable[[list[str]], None]) -> None:
    """Two seeded games of each bot kind in every seat at the player counts of :data:`PLAYERS`."""
    for players in PLAYERS[game]:
        for bot in BOTS:
            if players == 1 and bot == "strong":
                continue
            invoke(["play", game, "--players", str(players), "--games", "2", "--seed", "1", "--bots",
                    ",".join([bot] * players), "--trajectories", "--out", str(out / f"{bot}-{players}")])


def profile(game: str) -> tuple[float, CompileTimes]:
    """Total CPU seconds of playing :func:`play_every_bot`, and its compile times."""
    from click.testing import CliRunner

    from analysis.cli import main

    def invoke(arguments: list[str]) -> None:
        result = CliRunner().invoke(main, arguments)
        if result.exit_code:
            raise RuntimeError(f"glade {' '.join(arguments)} failed: {result.output[-400:]}")

    start = time.process_time()
    with tempfile.TemporaryDirectory() as out, recording() as times:
        play_every_bot(game, Path(out), invoke)
    return time.process_time() - start, times


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in PLAYERS:
        print(f"usage: python -m sims.compile_profile GAME (one of {', '.join(PLAYERS)})", file=sys.stderr)
        return 2
    total, times = profile(argv[0])
    print(f"{argv[0]}: {sum(times.seconds.values()):.1f} CPU s compiling ({total:.1f} CPU s in all, with the games "
          f"and imports), {sum(times.compiles.values())} compiles")
    for name, seconds in times.seconds.most_common(20):
        print(f"{seconds:8.2f} s  x{times.compiles[name]:<3d} {name}")
    print("compiled more than once:", ", ".join(f"{name} x{n}" for name, n in times.twice()) or "none")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
