"""Shared fixtures; importing the toy game registers it with sims.registry.

With pytest-xdist (``-n 2``, as ``make test`` runs) the games' numba kernels are compiled into numba's cache
before the workers start, two games at a time (``glade warm --jobs 2``), unless already there: each worker then
loads them instead of compiling the same kernels again beside the other."""

from __future__ import annotations

import sys
import time

import pytest

import tests.toy_game as toy_game  # noqa: F401 (registers the "toy" game)


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput") or not config.pluginmanager.hasplugin("xdist") \
            or not config.getoption("numprocesses", None):
        return
    from sims.core.compiling import cold_games, warm_games

    cold = cold_games()
    if not cold:
        return
    print(f"compiling the numba kernels of {', '.join(cold)} before the test workers start (glade warm --jobs 2)",
          file=sys.stderr, flush=True)
    started = time.perf_counter()
    for warmed in warm_games(cold, jobs=2):
        print(f"  {warmed.game}: {warmed.compiled} kernels, {warmed.seconds:.0f} CPU s", file=sys.stderr, flush=True)
    print(f"compiled in {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)


@pytest.fixture
def toy_config():
    return toy_game.load()
