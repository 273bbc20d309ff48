"""The test-only oracle planner of docs/bots.md ("How far is the bar?"): a game's planner rolling out on the real
hidden order, the ceiling of what the hidden information is worth to a rollout bot."""

from __future__ import annotations

import numpy as np

from sims.core.planner import RolloutPlanner
from sims.core.play import resolve_bot
from sims.core.rng import game_seeds
from sims.core.search import hidden_fields
from sims.registry import get_game
from tests.test_core_planner import DicePlanner, engine, trap_position  # noqa: F401 (fixture)
from tests.toy_game import LEAP, ROLL


def oracle(planner_class: type[RolloutPlanner]) -> type[RolloutPlanner]:
    """``planner_class`` without its determinization: its rollouts draw what the real game will draw. Reforest's
    compiled plan reshuffles inside its kernel, so its oracle plays the shared plan of :class:`RolloutPlanner`
    (which chooses as the compiled one does)."""

    class Oracle(planner_class):
        def hide_unseen(self, branch) -> None:
            pass

        def act(self, state, active):
            if planner_class.__module__.startswith("sims.reforest"):
                return RolloutPlanner.act(self, state, active)
            return super().act(state, active)

    return Oracle


def test_the_oracle_plays_for_the_die_the_opponent_will_roll(engine):
    """Seat 0 on 3 with a 2, seat 1 on 5 (test_core_planner): the leap is sent home only by the opponent's 1,
    the roll only by a 5. The oracle rolls the real die in its rollouts: it rolls where the real roll is a 1 and
    leaps where it is a 5."""
    state = trap_position(engine)
    found = {}
    for seed in game_seeds(2, np.arange(400)):
        state.seeds[0] = seed
        real = int(engine._roll(state.seeds, state.turn + 1)[0])
        if real in (1, 5) and real not in found:
            found[real] = oracle(DicePlanner)(engine, 0, {"candidates": 3}).act(state, np.array([True]))[0]
    assert found == {1: ROLL, 5: LEAP}


def test_the_oracle_determinizes_nothing():
    game = get_game("vora")
    config = game.load_config()
    vora = game.batched(config, 2)
    planner_class = game.bots["planner"].batched.resolve()
    weights = resolve_bot(game, config, "planner").weights
    state = vora.init(game_seeds(3, np.arange(3)))
    assert hidden_fields(planner_class(vora, 0, weights), state, np.arange(3)) == {"bag"}
    assert hidden_fields(oracle(planner_class)(vora, 0, weights), state, np.arange(3)) == frozenset()
