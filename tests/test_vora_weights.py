"""Vora's greedy weights: the config keys, the features they weigh, and the batched and plain bots agreeing on
every weight."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sims.core.engine import take_games
from sims.core.play import play_batch, play_reference
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.vora import GAME, bots, reference_bots
from sims.vora import config as vora_config
from sims.vora.rules import VoraEngine
from tests.cli_helpers import glade
from tests.test_vora_rules import CASCADE, QUIET, position


@pytest.fixture(scope="module")
def config():
    return vora_config.load()


def test_shipped_weights_are_the_rulebook_greedy_unless_tuned(config):
    assert set(config.bot_weights) == {"greedy", "planner"}
    assert set(config.bot_weights["greedy"]) == set(vora_config.WEIGHT_NAMES)
    assert set(config.bot_weights["planner"]) == set(vora_config.WEIGHT_NAMES) | {"worth_mean"}
    assert vora_config.weight_vector({}) == [1.0, 1.0, 0.0, 0.0, 0.0]
    assert vora_config.weight_vector({"near": 2, "candidates": 12}) == [1.0, 1.0, 2.0, 0.0, 0.0]


@pytest.mark.parametrize("override, key, expected", [
    ("bots.greedy.near=\"many\"", "bots.greedy.near", "a number from -1000.0 to 1000.0"),
    ("bots.greedy.cubes=5000", "bots.greedy.cubes", "a number from -1000.0 to 1000.0"),
    ("bots.greedy.rival=nan", "bots.greedy.rival", "a number from -1000.0 to 1000.0"),
    ("bots.greedy.bump=1", "bots.greedy.bump", "expected one of the known keys ("),
    ("bots.smart.near=1", "bots.smart.near", "expected a key of"),
    ("personas.collector.near=inf", "personas.collector.near", "a number from -1000.0 to 1000.0"),
])
def test_bad_weights_name_the_key(override, key, expected):
    with pytest.raises(ConfigError) as error:
        vora_config.load(overrides=[override])
    message = str(error.value)
    assert "\n" not in message and expected in message and key in message, message


def test_a_bad_weight_in_the_file_is_one_error_line_naming_file_and_key(tmp_path, config):
    path = tmp_path / "vora.toml"
    text = Path(config.loaded.source).read_text()
    path.write_text(text.replace("[personas.collector]\nbot = \"greedy\"\nnear = 0.5",
                                 "[personas.collector]\nbot = \"greedy\"\nnear = \"lots\""))
    result = glade("play", "vora", "--games", "1", "--seed", "1", "--bots", "greedy,random", "--config", str(path),
                   "--out", str(tmp_path / "run"))
    assert result.exit_code != 0 and "Traceback" not in result.output
    line = result.stderr.strip()
    assert "\n" not in line and line.startswith("error: ") and str(path) in line
    assert "personas.collector.near" in line and "a number" in line


def test_farm_features_of_known_farms(config):
    """Kinds one cube short of more points (1, 2, 5 and 8 cubes with the rulebook's marks 1, 3, 6, 9), from-farm
    specials held (pig, crow, wolf), cubes."""
    from sims.vora.bot_kernels import farm_features

    tables = VoraEngine(config, 2).geo.tables
    farms = {  # pig crow wolf ladybug duck mole sheep water grass
        (0, 0, 0, 0, 0, 0, 0, 0, 0): (0, 0, 0),
        (1, 2, 0, 3, 5, 6, 8, 9, 12): (4, 2, 46),
        (0, 0, 4, 0, 0, 0, 0, 0, 1): (1, 1, 5),
    }
    for farm, expected in farms.items():
        assert reference_bots.farm_features(config, farm) == expected
        assert farm_features(tables, np.array(farm, dtype=np.int16)) == expected


def weighed_values(engine, state, weights) -> dict[int, float]:
    """Every legal action's weighed one-ply value, by stepping a copy of the game (the definition)."""
    geo, config = engine.geo, engine.config
    me = int(state.to_move[0])
    w = dict(zip(vora_config.WEIGHT_NAMES, vora_config.weight_vector(weights)))
    before = geo.scores(state.farms[0].astype(np.int64))
    base = reference_bots.farm_features(config, state.farms[0, me].tolist())
    values = {}
    for action in np.nonzero(engine.legal_mask(state)[0])[0]:
        branch = take_games(state, np.array([0]))
        engine.step(branch, np.array([action]))
        change = geo.scores(branch.farms[0].astype(np.int64)) - before
        found = reference_bots.farm_features(config, branch.farms[0, me].tolist())
        rival = max(change[s] for s in range(engine.players) if s != me)
        values[int(action)] = (w["score"] * change[me] - w["rival"] * rival
                               + sum(w[name] * (a - b) for name, a, b in zip(("near", "specials", "cubes"), found, base)))
    return values


@pytest.mark.parametrize("weights", [{}, {"score": 0.0, "rival": 0.0, "cubes": 1.0}, {"near": 2.0},
                                     {"specials": 1.5, "rival": 0.0}])
def test_greedy_takes_the_action_of_highest_weighed_value(weights):
    engine, state = position(2, CASCADE, {0: "dd", 1: "c"}, bag="lllllll")
    values = weighed_values(engine, state, weights)
    action = int(bots.GreedyBot(engine, 0, weights).act(state, np.array([True]))[0])
    assert values[action] == max(values.values())


def test_a_specials_weight_keeps_the_pig_and_takes_the_wolf():
    """A quiet meadow (nothing to collect), my farm pig, crow, crow: the rulebook greedy pushes the lone pig away
    (-1 point becomes 0) as a double push; with specials 3 it keeps the pig and its crow devours the wolf at (0,2),
    holding a third from-farm special (a crow spent and a first wolf: -2 points; +3)."""
    engine, state = position(2, QUIET, {0: "pcc", 1: "p"}, bag="lllllll")
    config = engine.config
    lone = int(bots.GreedyBot(engine, 0).act(state, np.array([True]))[0])
    holding = int(bots.GreedyBot(engine, 0, {"specials": 3.0}).act(state, np.array([True]))[0])
    assert config.decode(lone) == ("double", (0, 0))
    assert config.decode(holding) == ("devour", (2,))
    values = weighed_values(engine, state, {"specials": 3.0})
    assert values[holding] == max(values.values()) == 1.0


@pytest.mark.parametrize("kinds, weights", [
    (("greedy", "random"), {"near": 0.5}),
    (("random", "greedy", "greedy"), {"specials": 0.4, "rival": 0.5}),
    (("greedy", "random", "greedy", "greedy"), {"cubes": -0.3, "score": 2.0}),
])
def test_batched_and_plain_greedy_play_the_same_games_with_weights(kinds, weights, config):
    players = len(kinds)
    seeds = game_seeds(23, np.arange(4))
    engine = VoraEngine(config, players)
    lineup = [bots.GreedyBot(engine, s, weights) if k == "greedy" else GAME.bots[k].batched(engine, s)
              for s, k in enumerate(kinds)]
    state, _ = play_batch(engine, lineup, seeds, config.max_turns)
    for i, seed in enumerate(seeds):
        plain = [GAME.bots[k].reference(s, weights if k == "greedy" else {}) for s, k in enumerate(kinds)]
        game = play_reference(GAME.reference(config, players, int(seed)), plain, int(seed), config.max_turns)
        assert game.snapshot() == engine.snapshot(state, i)


def test_planner_rollouts_read_the_planner_weights(config):
    """The compiled rollouts play greedy with the planner's weights, as the shared rollout loop's greedy bots do;
    other weights play other rollouts."""
    from sims.core.planner import RolloutPlanner, branch_games
    from tests.test_vora_bots import mid_game

    engine, state = mid_game(config, 2, 20, deals=8)
    start = state.turn.astype(np.int64)
    worths = []
    for weights in ({"near": 1.0, "cubes": 0.5}, {}):
        planner = bots.PlannerBot(engine, 1, weights)
        compiled, shared = branch_games(state, np.arange(state.size)), branch_games(state, np.arange(state.size))
        worth = planner.roll_out(compiled, start)
        assert np.array_equal(worth, RolloutPlanner.roll_out(planner, shared, start))
        worths.append(worth)
    assert not np.array_equal(*worths)


@pytest.mark.parametrize("mix, running, finished", [(0.0, -2.0, -1e6 - 2.0), (0.5, -1.0, -0.5e6 - 1.0),
                                                    (1.0, 0.0, 0.0)])
def test_planner_worth_mixes_the_opponents_mean_into_the_best(config, mix, running, finished):
    """Seat 0 scores 1 (3 pigs), seat 1 scores 3 (6 crows), seat 2 -1 (a wolf): against the best opponent
    1 - 3, against the mean 1 - 1; a finished game's result is the sign against the best (-1), against each
    (-1 and +1, mean 0), mixed alike."""
    from sims.vora.bot_kernels import worths

    tables = VoraEngine(config, 3).geo.tables
    farms = np.zeros((2, 3, 9), dtype=np.int16)
    farms[:, 0, 0], farms[:, 1, 1], farms[:, 2, 2] = 3, 6, 1
    worth = np.zeros(2)
    weights = np.array([1.0, 1.0, 0.0, 0.0, 0.0, mix])
    worths(tables, farms, np.array([False, True]), 0, weights, 1e6, worth)
    assert worth.tolist() == [running, finished]


def test_planner_worth_mean_changes_nothing_at_two_players(config):
    """With one opponent the mean is the best: the same rollouts' worths with any mix."""
    from sims.core.planner import branch_games
    from tests.test_vora_bots import mid_game

    engine, state = mid_game(config, 2, 20, deals=8)
    start = state.turn.astype(np.int64)
    worths = [bots.PlannerBot(engine, 1, {"worth_mean": mix}).roll_out(branch_games(state, np.arange(state.size)),
                                                                      start) for mix in (0.0, 1.0)]
    assert np.array_equal(*worths) and np.isfinite(worths[0]).all()
