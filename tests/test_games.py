"""The checks every game gets, read from its definition, so a new game cannot skip them.

* its reference side (``reference.py``, ``reference_bots.py``) loads no batched
  module: the two engines share only the config, the random streams and the
  contract types, so their agreement in ``glade verify`` is evidence;
* its golden playthroughs (``GameDefinition.golden``) replay unchanged;
* its verify runs (``GameDefinition.verify_runs``) find no mismatch.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from sims.core.engine import GameConfig, GameDefinition, GoldenGame, VerifyRun
from sims.core.spec import LoadedConfig
from sims.registry import get_game, shipped_game_names
from sims.replay import replay_text
from sims.verify import verify
from tests.golden_files import assert_golden

GAMES = shipped_game_names()
ROOT = Path(__file__).resolve().parents[1]
# Modules of the batched side: numpy engines and bots, compiled kernels, the batched play loop.
BATCHED = ("rules", "bots", "kernels", "bot_kernels")
BATCHED_CORE = ("sims.core.play", "sims.core.planner", "sims.core.kernels", "sims.core.choice", "sims.core.grid",
                "numba")


def loaded_modules(*imports: str) -> set[str]:
    """The modules a fresh interpreter holds after importing ``imports`` (and nothing else)."""
    code = "".join(f"import {name}\n" for name in ("json", "sys", *imports))
    code += "print(json.dumps(sorted(sys.modules)))"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True,
                         env=env).stdout
    return set(json.loads(out))


@pytest.mark.parametrize("name", GAMES)
def test_reference_side_loads_no_batched_module(name):
    loaded = loaded_modules(f"sims.{name}.reference", f"sims.{name}.reference_bots")
    assert f"sims.{name}.reference_bots" in loaded
    batched = {f"sims.{name}.{part}" for part in BATCHED} | set(BATCHED_CORE)
    assert not loaded & batched, f"the reference side of {name} loads {sorted(loaded & batched)}"


def test_importing_every_game_definition_loads_no_engine():
    loaded = loaded_modules("sims.registry", *(f"sims.{name}" for name in GAMES))
    engines = {m for m in loaded if m.rpartition(".")[2] in BATCHED + ("reference", "reference_bots")}
    assert not engines and "numba" not in loaded, sorted(engines)


@pytest.mark.parametrize("name", GAMES)
def test_every_game_lists_goldens_and_a_verify_run_per_player_count(name):
    game: GameDefinition = get_game(name)
    assert game.golden, f"{name} names no golden playthrough"
    assert {case.players for case in game.golden} <= set(game.player_counts)
    fast = {run.players for run in game.verify_runs if not run.slow}
    assert fast == set(game.player_counts), f"{name} verifies player counts {sorted(fast)} in make test"


@pytest.mark.parametrize("name", GAMES)
def test_every_config_is_a_game_config(name):
    """What the runner and the command line read of a config: its loaded values and hash, its turn cap."""
    config = get_game(name).load_config(None, ("limits.max_turns=77",))
    assert isinstance(config, GameConfig)
    assert isinstance(config.loaded, LoadedConfig) and config.loaded.values["limits"]["max_turns"] == 77
    assert config.max_turns == get_game(name).max_turns(config) == 77
    assert config.loaded.hash != get_game(name).load_config().loaded.hash


def _cases(kind: str) -> list:
    """(game, case) params for each game's golden games or verify runs."""
    params = []
    for name in GAMES:
        for case in getattr(get_game(name), kind):
            marks = [pytest.mark.slow] if getattr(case, "slow", False) else []
            params.append(pytest.param(name, case, id=f"{name}-{_label(case)}", marks=marks))
    return params


def _label(case: GoldenGame | VerifyRun) -> str:
    if isinstance(case, GoldenGame):
        return case.file.removesuffix(".txt")
    bots = "-".join(case.bots) if case.bots else "mixed"
    return "-".join([f"{case.players}p", str(case.games), f"seed{case.seed}", bots, *case.overrides])


@pytest.mark.parametrize("name, case", _cases("golden"))
def test_golden_playthrough(name: str, case: GoldenGame):
    """A seeded game rendered turn by turn; any rules or bot change shows up as a diff."""
    config = get_game(name).load_config()
    text = replay_text(name, config, case.players, case.seed, case.game, list(case.bots), case.rotate_seats)
    assert_golden(case.file, text + "\n")


@pytest.mark.parametrize("name, case", _cases("verify_runs"))
def test_verify_finds_no_mismatch(name: str, case: VerifyRun):
    config = get_game(name).load_config(None, case.overrides)
    report = verify(name, config, case.players, case.games, seed=case.seed,
                    bot_labels=list(case.bots) if case.bots else None, jobs=case.jobs)
    assert report.games == case.games and report.ok, report.format()
