"""The planner's UCB rollout allocation (weight ``budget``) and its reply model (weight ``reply_planner``) on the
toy dice race; in real games, batch one against five: tests/test_search.py."""

from __future__ import annotations

import numpy as np

from sims.core.engine import take_games
from sims.core.rng import game_seeds
from tests.test_core_planner import LEAP, ROLL, CountingPlanner, DicePlanner, engine, next_rolls, trap_position  # noqa: F401


def test_the_budget_is_spent_and_rollout_j_of_a_candidate_draws_from_sample_j(engine):
    """Three candidates with one rollout each (sample 0), then one candidate a round (``walkers`` 1) until 9
    rollouts are spent; a candidate's next rollout draws from the sample of its own count."""
    state = trap_position(engine)
    planner = CountingPlanner(engine, 0, {"budget": 9, "candidates": 3, "walkers": 1})
    planner.act(state, np.array([True]))
    assert planner.rollouts[:1] == [(0, 3)] and planner.sample == 0
    assert sum(size for _, size in planner.rollouts) == 9
    assert all(size == 1 for _, size in planner.rollouts[1:])
    # the j-th rollouts (sample j) of the three candidates: at most three, and no fewer than the (j+1)-th
    counts = np.bincount([sample for sample, _ in planner.rollouts[1:]])
    assert counts[0] == 0 and (counts[1:] <= 3).all() and (np.diff(counts[1:]) <= 0).all()


def test_ucb_rollouts_choose_the_move_best_on_average(engine):
    """The leap is worth more on average than the roll (test_core_planner); one sample that rolls a 1 takes the
    roll, a budget of 24 rollouts over the three candidates takes the leap."""
    state = trap_position(engine)
    for seed in game_seeds(1, np.arange(200)):
        state.seeds[0] = seed
        rolls = next_rolls(engine, DicePlanner(engine, 0), state, 8)
        if rolls[0] == 1 and rolls.count(1) + rolls.count(5) <= 3:
            break
    assert DicePlanner(engine, 0).act(state, np.array([True]))[0] == ROLL
    assert DicePlanner(engine, 0, {"budget": 24, "candidates": 3}).act(state, np.array([True]))[0] == LEAP


def assert_choices_do_not_depend_on_the_batch(engine, weights: dict[str, float], games: int = 48) -> None:
    """A dice planner with ``weights`` chooses the same in a batch of ``games`` positions as in its two halves,
    and differently from the one-sample planner somewhere."""
    state = engine.init(game_seeds(4, np.arange(games)))
    state.turn[:] = 10
    state.position[:, 0] = 2 + np.arange(games) % 7
    state.position[:, 1] = state.position[:, 0] + 1 + np.arange(games) % 4
    movers = np.arange(games) % 5 > 0
    together = DicePlanner(engine, 0, weights).act(state, movers)
    halves = [DicePlanner(engine, 0, weights).act(take_games(state, rows), movers[rows])
              for rows in (np.arange(0, games, 2), np.arange(1, games, 2))]
    assert (together[0::2] == halves[0]).all() and (together[1::2] == halves[1]).all()
    assert (together[movers] >= 0).all() and (together[~movers] == -1).all()
    assert (together != DicePlanner(engine, 0).act(state, movers)).any()


def test_budget_choices_do_not_depend_on_the_batch(engine):
    assert_choices_do_not_depend_on_the_batch(engine, {"budget": 12, "walkers": 2})


def test_the_reply_model_is_the_planner_on_this_planners_streams(engine):
    planner = DicePlanner(engine, 0, {"reply_planner": 1, "samples": 2, "candidates": 2, "budget": 8, "depth": 9})
    models = planner.reply_models()
    assert [type(model) for model in models] == [DicePlanner, DicePlanner]
    assert models[1].seat == 1 and models[1].stream == "plan/0/model/1"
    assert models[1].plan_stream("dice") == "plan/0/model/1/dice"
    assert models[1].weights == {"depth": 9}  # the search weights left to the class
    planner.sample = 1
    assert planner.reply_models()[1].plan_stream("dice") == "plan/0/model/1/s1/dice"


class ModelCountingPlanner(DicePlanner):
    """Records the seat and the number of games of each reply model's decision."""

    calls: list[tuple[int, int]] = []

    def act(self, state, active):
        if self.plan_root:
            ModelCountingPlanner.calls.append((self.seat, int(active.sum())))
        return super().act(state, active)


def test_the_reply_model_plays_the_first_decision_of_another_seat(engine):
    state = trap_position(engine)
    ModelCountingPlanner.calls = []
    ModelCountingPlanner(engine, 0, {"reply_planner": 1, "candidates": 3}).act(state, np.array([True]))
    assert ModelCountingPlanner.calls == [(1, 3)]  # one reply for each candidate, by seat 1's model
    ModelCountingPlanner(engine, 0, {"candidates": 3}).act(state, np.array([True]))
    assert ModelCountingPlanner.calls == [(1, 3)]
