"""Observation nodes of the tree search (weight ``observe``, sims.core.search) on the toy dice race and Vora."""

from __future__ import annotations

import numpy as np

from sims.core.play import resolve_bot
from sims.core.rng import game_seeds
from sims.core.search import Tree, hidden_fields, observations
from sims.registry import get_game
from tests.test_core_planner import DicePlanner, PositionPlanner, engine, trap_position  # noqa: F401 (fixture)
from tests.test_planner_budget import assert_choices_do_not_depend_on_the_batch
from tests.toy_game import ROLL


def test_an_edge_keeps_one_observation_node_per_position_seen():
    tree = Tree(games=2, actions=5, capacity=2)
    edges = tree.add(np.array([0, 1]), np.array([3, 3]))
    seen = np.array([7, 8, 7, 7], dtype=np.uint64)
    nodes = tree.seen(np.r_[edges, edges], seen)
    assert nodes[0] == nodes[2] and len(set(nodes.tolist())) == 3 and (nodes >= 4).all()
    assert (tree.seen(np.r_[edges, edges], seen) == nodes).all()  # found again, nothing added
    assert tree.size == 2 + 2 + 3 and tree.child(nodes[:1], np.array([3])).tolist() == [-1]


def test_observations_ignore_the_hidden_arrays_only(engine):
    state = engine.init(game_seeds(3, np.arange(4)))
    state.position[:, 0] = [2, 2, 5, 2]
    state.die[:] = 3
    state.seeds[1] = 99  # hidden: the same position
    code = observations(state, frozenset({"seeds"}))
    assert code[0] == code[1] and code[0] != code[2] and code[0] == code[3]
    unplaced = observations(state, frozenset({"position"}))
    assert unplaced[2] == unplaced[0]


def test_hidden_fields_are_what_the_determinization_changes(engine):
    state = engine.init(game_seeds(3, np.arange(4)))
    assert hidden_fields(DicePlanner(engine, 0), state, np.arange(4)) == {"seeds"}
    assert hidden_fields(PositionPlanner(engine, 0), state, np.arange(4)) == frozenset()
    game = get_game("vora")
    config = game.load_config()
    vora = game.batched(config, 2)
    planner = game.bots["planner"].batched.resolve()(vora, 0, resolve_bot(game, config, "planner").weights)
    assert hidden_fields(planner, vora.init(game_seeds(3, np.arange(3))), np.arange(3)) == {"bag"}


def test_an_observing_search_avoids_the_trap_and_does_not_depend_on_the_batch(engine):
    assert PositionPlanner(engine, 0, {"iterations": 9, "observe": 1}).act(trap_position(engine),
                                                                             np.array([True]))[0] == ROLL
    assert_choices_do_not_depend_on_the_batch(engine, {"iterations": 12, "observe": 1}, games=40)
