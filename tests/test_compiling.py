"""sims.core.compiling: a compile is said on stderr, a run compiles once before its workers, glade warm fills the
cache. The subprocess tests use Overgrowth (the smallest compile) in an empty NUMBA_CACHE_DIR of their own."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from sims.core.compiling import CompileNotice, _game_of, notice
from sims.registry import get_game

NOTICE = "compiling Overgrowth kernels"


def glade(cache: Path, *args: str, debug: bool = False) -> subprocess.CompletedProcess:
    """``glade ARGS`` in a process of its own with numba's cache in ``cache`` (``debug``: numba says every cache
    load and save on stdout)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "NUMBA_DEBUG_CACHE": "1" if debug else "0"}
    command = [sys.executable, "-c", "from analysis.cli import main; main()", *args]
    result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    return result


@pytest.fixture(scope="module")
def cache(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("numba-cache")


def test_quiet_keeps_the_notice_off_stderr(cache, tmp_path):
    """The random bot's kernels compiled under --quiet: nothing on stderr (the cache the next tests start from
    then holds them, and the greedy bot's kernels are still to compile)."""
    result = glade(cache, "play", "overgrowth", "--games", "4", "--seed", "1", "--bots", "random",
                   "--out", str(tmp_path / "run"), "-q")
    assert result.stderr == ""
    assert next(cache.rglob("glade-warm-overgrowth.json"))  # it compiled, and remembered it


def test_a_cold_run_with_two_workers_compiles_once_and_says_so(cache, tmp_path):
    """The greedy bot's kernels not in the cache: the notice is the first line on stderr, said once (the workers,
    which would say it too, compile nothing); numba saves each compiled kernel once, and the workers load theirs
    from the cache."""
    result = glade(cache, "play", "overgrowth", "--games", "60", "--batch-size", "15", "--jobs", "2", "--seed", "1",
                   "--bots", "greedy,random", "--out", str(tmp_path / "run"), debug=True)
    assert result.stderr.splitlines()[0].startswith(NOTICE)
    assert result.stderr.count(NOTICE) == 1
    assert re.search(r"overgrowth kernels of greedy at 2 players: compiled in \d+ CPU s", result.stderr)
    saved = Counter(re.findall(r"data saved to '([^']+)'", result.stdout))
    assert saved and max(saved.values()) == 1, saved.most_common(3)
    loaded = re.findall(r"data loaded from '([^']+)'", result.stdout)
    assert set(loaded) & set(saved)  # the workers loaded kernels the main process compiled


def test_glade_warm_fills_the_cache_and_warm_runs_are_silent(cache, tmp_path):
    """After the run above, glade warm compiles the bots it did not play (planner, strong) and remembers every bot;
    then glade warm has nothing to compile and a run says nothing of compiling."""
    first = glade(cache, "warm", "overgrowth")
    assert first.stderr.startswith(NOTICE)
    assert re.match(r"overgrowth: compiled \d+ kernels in \d+ CPU s: random, greedy, planner, strong at 2 players",
                    first.stdout)
    marker = json.loads(next(cache.rglob("glade-warm-overgrowth.json")).read_text())
    assert marker["warmed"] == ["greedy/2", "planner/2", "random/2", "strong/2"]
    again = glade(cache, "warm", "overgrowth")
    assert "compiling" not in again.stderr and again.stdout.startswith("overgrowth: already compiled")
    run = glade(cache, "play", "overgrowth", "--games", "20", "--seed", "2", "--bots", "planner,greedy",
                "--jobs", "2", "--batch-size", "10", "--out", str(tmp_path / "run"))
    assert "compiling" not in run.stderr


def test_an_unknown_game_is_one_error_line():
    from tests.cli_helpers import glade as glade_here
    from tests.cli_helpers import one_error_line

    one_error_line(glade_here("warm", "chess"), "GAME", "overgrowth")


def test_the_notice_is_said_once_per_game_at_the_first_compile():
    said = []
    listener = CompileNotice(said.append)

    @njit
    def doubled(x):
        return 2 * x

    from numba.core import event

    event.register("numba:compile", listener)
    try:
        listener.game = "overgrowth"
        doubled(np.int64(2))
        doubled(np.float64(2))  # a second compile: no second notice
    finally:
        event.unregister("numba:compile", listener)
    assert said == [notice(get_game("overgrowth"))] and listener.compiles == 2 and listener.seconds > 0
    assert _game_of("sims.vorex.kernels") == "vorex" and _game_of("sims.core.kernels") is None
