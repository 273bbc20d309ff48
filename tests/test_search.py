"""The information-set tree search of a rollout planner (sims.core.search), on the toy dice race and real games."""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.engine import take_games
from sims.core.play import BotChoice, batched_bots, play_batch, resolve_bot
from sims.core.rng import game_seeds
from sims.core.search import Tree, rank_in_group
from sims.registry import get_game
from tests.test_core_planner import DicePlanner, PositionPlanner, engine, trap_position  # noqa: F401 (fixture)
from tests.toy_game import LEAP, ROLL, RaceEngine


def test_tree_finds_the_children_it_added():
    tree = Tree(games=3, actions=10, capacity=4)
    assert tree.child(np.array([0, 1]), np.array([4, 4])).tolist() == [-1, -1]
    first = tree.add(np.array([1, 2]), np.array([4, 7]))
    second = tree.add(np.array([first[0]]), np.array([4]))  # past the capacity: the arrays grow
    assert first.tolist() == [3, 4] and second.tolist() == [5]
    assert tree.child(np.array([1, 2, 0, 3, 2]), np.array([4, 7, 4, 4, 4])).tolist() == [3, 4, -1, 5, -1]
    assert tree.visits.size >= 6 and tree.visits[:6].sum() == 0


def test_rank_in_group_ranks_each_group_best_first():
    groups = np.array([0, 0, 0, 2, 2])
    value = np.array([1.0, 3.0, 2.0, 5.0, 5.0])
    noise = np.array([0.0, 0.0, 0.0, 0.1, 0.9])
    assert rank_in_group(groups, value, noise).tolist() == [2, 0, 1, 1, 0]


def test_the_search_sees_the_reply_and_avoids_the_trap(engine):
    """Greedy leaps into the opponent's reach; the tree tries the opponent's replies and rolls instead."""
    state = trap_position(engine)
    planner = PositionPlanner(engine, 0, {"iterations": 9})
    assert planner.act(state, np.array([True]))[0] == ROLL
    assert planner.hidden_calls == 9 and planner.sample == 0  # one determinization an iteration


def test_a_search_of_one_candidate_is_the_greedy_choice(engine):
    state = trap_position(engine)
    planner = PositionPlanner(engine, 0, {"iterations": 5, "candidates": 1})
    assert planner.act(state, np.array([True]))[0] == LEAP
    assert planner.hidden_calls == 0  # nothing to search


def test_many_iterations_choose_the_move_best_on_average(engine):
    """The planner's sampled example (tests/test_core_planner.py): over many determinizations of the
    opponent's die the leap keeps more than the roll."""
    state = trap_position(engine)
    for seed in game_seeds(1, np.arange(200)):
        state.seeds[0] = seed
        if DicePlanner(engine, 0).act(state, np.array([True]))[0] == ROLL:
            break
    assert DicePlanner(engine, 0, {"iterations": 48, "tree_depth": 1}).act(state, np.array([True]))[0] == LEAP


@pytest.mark.parametrize("weights", [{"iterations": 12}, {"iterations": 10, "tree_depth": 1, "widen": 2.0}])
def test_searched_choices_do_not_depend_on_the_batch(engine: RaceEngine, weights):
    state = engine.init(game_seeds(4, np.arange(40)))
    state.turn[:] = 10
    state.position[:, 0] = 2 + np.arange(40) % 7
    state.position[:, 1] = state.position[:, 0] + 1 + np.arange(40) % 4
    movers = np.arange(40) % 5 > 0
    together = DicePlanner(engine, 0, weights).act(state, movers)
    halves = [DicePlanner(engine, 0, weights).act(take_games(state, rows), movers[rows])
              for rows in (np.arange(0, 40, 2), np.arange(1, 40, 2))]
    assert (together[0::2] == halves[0]).all() and (together[1::2] == halves[1]).all()
    assert (together[movers] >= 0).all() and (together[~movers] == -1).all()
    assert (together != DicePlanner(engine, 0).act(state, movers)).any()  # the search changed some choice


@pytest.mark.parametrize("name, players, weights", [
    ("overgrowth", 2, {"iterations": 6.0, "candidates": 3.0}),
    ("vora", 3, {"iterations": 6.0, "candidates": 3.0}),
    ("vora", 2, {"budget": 10.0, "candidates": 4.0}),  # UCB allocation (sims.core.planner)
    ("vora", 2, {"reply_planner": 1.0, "candidates": 3.0}),  # the first reply by the planner's own policy
])
def test_a_searching_planner_plays_the_same_games_at_batch_one_and_five(name, players, weights):
    """A few turns of real games with the game's own rollouts (Vora's compiled), hidden bag reshuffled."""
    game = get_game(name)
    config = game.load_config()
    engine = game.batched(config, players)
    planner = dict(resolve_bot(game, config, "planner").weights) | weights
    lineup = [BotChoice("strong", "planner", planner)] + [resolve_bot(game, config, "greedy")] * (players - 1)
    seeds = game_seeds(9, np.arange(5))

    def actions(rows: np.ndarray) -> np.ndarray:
        return play_batch(engine, batched_bots(game, engine, lineup), seeds[rows], max_turns=5)[1].actions

    together = actions(np.arange(5))
    for row in range(5):
        alone = actions(np.array([row]))
        steps = alone.shape[1]
        assert (together[row, :steps] == alone[0]).all() and (together[row, steps:] == -1).all()
