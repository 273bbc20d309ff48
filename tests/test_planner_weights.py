"""Every game's planner takes the same search weights from its config, its personas and ``--set``."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.play import resolve_bot
from sims.core.spec import PLANNER_WEIGHTS, ConfigError, default_config_path, weight_at
from sims.registry import get_game

GAMES = ("overgrowth", "vora", "vorex", "reforest")


@pytest.mark.parametrize("game_name", GAMES)
def test_set_gives_the_planner_every_search_weight_and_its_per_count_form(game_name):
    game = get_game(game_name)
    players = max(game.player_counts)
    overrides = [f"bots.planner.{name}=3" for name in PLANNER_WEIGHTS]
    overrides += [f"bots.planner.{weight_at(name, players)}=5" for name in PLANNER_WEIGHTS]
    weights = game.bot_weights(game.load_config(overrides=overrides), "planner")
    for name in PLANNER_WEIGHTS:
        assert weights[name] == 3.0
        assert weights[weight_at(name, players)] == 5.0


@pytest.mark.parametrize("game_name", GAMES)
def test_a_planner_persona_takes_search_weights(tmp_path, game_name):
    game = get_game(game_name)
    text = default_config_path(game_name).read_text() + '\n[personas.deep]\nbot = "planner"\nsamples = 6\niterations = 2\n'
    path = tmp_path / f"{game_name}.toml"
    path.write_text(text)
    choice = resolve_bot(game, game.load_config(path), "deep")
    assert (choice.kind, choice.weights["samples"], choice.weights["iterations"]) == ("planner", 6.0, 2.0)


@pytest.mark.parametrize("game_name", GAMES)
@pytest.mark.parametrize("override, key, fragment", [
    ("bots.greedy.samples=2", "bots.greedy.samples", "no planner weight on a greedy bot"),
    ("bots.planner.samplez=2", "bots.planner.samplez", "one of the known keys"),
    ("bots.planer.depth=2", "bots.planer", "a key of"),
])
def test_misplaced_or_misspelt_weights_are_named(game_name, override, key, fragment):
    game = get_game(game_name)
    with pytest.raises(ConfigError) as error:
        game.load_config(overrides=[override])
    assert key in str(error.value) and fragment in str(error.value)


@pytest.mark.parametrize("name", ["budget", "halving", "reply_planner"])
def test_reforest_sends_a_weight_its_kernel_does_not_know_to_the_shared_plan(monkeypatch, name):
    from sims.core.planner import RolloutPlanner
    from sims.reforest.bots import PlannerBot

    game = get_game("reforest")
    config = game.load_config()
    engine = game.batched(config, 2)
    state = engine.init(np.arange(2, dtype=np.uint64))
    shared = []
    monkeypatch.setattr(RolloutPlanner, "act", lambda self, state, active: shared.append(name) or
                        np.zeros(state.size, dtype=np.int64))
    weights = dict(game.bot_weights(config, "planner"))
    seat = int(state.to_move[0])
    PlannerBot(engine, seat, weights).act(state, state.to_move == seat)
    assert shared == []
    PlannerBot(engine, seat, weights | {name: 4.0}).act(state, state.to_move == seat)
    assert shared == [name]


def test_every_weight_a_planner_reads_is_one_a_config_accepts():
    """A planner or search weight read in code (``self.weight("name", ...)``) must be in PLANNER_WEIGHTS or a
    game's own planner weights, or no config could set it."""
    from pathlib import Path
    import re

    from sims.vora.config import PLANNER_OWN

    root = Path(__file__).resolve().parents[1] / "sims"
    read = {name for path in root.rglob("*.py")
            for name in re.findall(r"\bweight\(\"([a-z_]+)\"", path.read_text())}
    assert {"samples", "budget", "iterations"} <= read
    assert read <= set(PLANNER_WEIGHTS) | set(PLANNER_OWN)
