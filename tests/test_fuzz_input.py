"""Property-based checks of bad input: configs, overrides and command-line values.

Whatever a user types, Glade either runs or says one clear ``error:`` line
(exit status 2); never a traceback. Configs that load must also play.
"""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from analysis.cli import main
from sims.core.play import batched_bots, play_batch, resolve_bot
from sims.core.rng import game_seeds
from sims.core.spec import ConfigError, default_config_path, read_toml
from sims.overgrowth import GAME
from sims.registry import game_names, get_game


def dotted_keys(table: dict, prefix: str = "") -> list[str]:
    keys = []
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        keys.extend(dotted_keys(value, key) if isinstance(value, dict) else [key])
    return keys


KNOWN_KEYS = dotted_keys(read_toml(default_config_path("overgrowth")))
SCALARS = st.one_of(
    st.integers(-3, 70).map(str),
    st.floats(-5, 70, allow_nan=False).map(repr),
    st.sampled_from(["true", "false", "'grow'", "'spread'", "'greedy'", "''", "[]", "{}", "nan", "inf"]),
    st.text(string.ascii_letters + string.digits + "[]{},.=' \"-_", max_size=12),
)
LISTS = st.lists(st.integers(-2, 9).map(str) | st.sampled_from(["'cast'", "'grow'", "[0,3]", "[[0,2]]"]),
                 max_size=9).map(lambda items: "[" + ",".join(items) + "]")
KEYS = st.sampled_from(KNOWN_KEYS) | st.text(string.ascii_lowercase + "._", min_size=1, max_size=15)
OVERRIDES = st.lists(st.tuples(KEYS, SCALARS | LISTS).map(lambda kv: f"{kv[0]}={kv[1]}"), min_size=1, max_size=3)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(OVERRIDES)
def test_overrides_load_or_fail_clearly_and_what_loads_plays(overrides):
    try:
        config = GAME.load_config(None, overrides)
    except ConfigError as error:
        assert "expected" in str(error)
        return
    engine = GAME.batched(config, 2)
    bots = batched_bots(GAME, engine, [resolve_bot(GAME, config, "random")] * 2)
    state, _ = play_batch(engine, bots, game_seeds(1, np.arange(4)), min(config.max_turns, 200))
    assert state.done.all()


@settings(max_examples=150, deadline=None)
@given(st.text(max_size=200))
def test_any_config_file_text_loads_or_fails_clearly(tmp_path_factory, text):
    path = tmp_path_factory.mktemp("cfg") / "overgrowth.toml"
    path.write_text(text)
    try:
        GAME.load_config(path, ())
    except ConfigError as error:
        assert str(path) in str(error)


OPTIONS = st.sampled_from(["--games", "--seed", "--bots", "--players", "--batch-size", "--jobs", "--set"])
VALUES = st.text(string.ascii_letters + string.digits + ",.-=_ ", max_size=10)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(OPTIONS, VALUES), min_size=1, max_size=3))
def test_bad_command_line_values_give_one_error_line(tmp_path, pairs):
    arguments = {"--games": "2", "--seed": "1", "--bots": "random,random", "--out": str(tmp_path / "run")}
    for option, value in pairs:
        arguments[option] = value
    flat = ["play", "overgrowth", "--no-progress"] + [item for pair in arguments.items() for item in pair]
    result = CliRunner().invoke(main, flat)
    assert "Traceback" not in result.output
    if result.exit_code != 0:
        assert result.exit_code == 2, (flat, result.output, result.exception)
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("error: "), (flat, result.stderr)


def as_toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f"'{value}'"
    if isinstance(value, list):
        return "[" + ",".join(as_toml(v) for v in value) + "]"
    return str(value)


ODD_BUT_PLAUSIBLE = st.fixed_dictionaries({
    "board.rows": st.integers(3, 9),
    "board.columns": st.integers(3, 9),
    "board.shaded_width": st.integers(1, 5),
    "track.spaces": st.lists(st.sampled_from(["overgrow", "grow", "cast", "spread"]), min_size=2, max_size=10),
    "track.start": st.lists(st.integers(0, 9), min_size=2, max_size=2),
    "track.moves": st.lists(st.integers(1, 5), min_size=1, max_size=3, unique=True).map(sorted),
    "rules.flowers": st.integers(1, 40),
    "rules.orthogonal_connection": st.booleans(),
    "rules.overgrow_sides": st.integers(1, 4),
    "rules.cast_distance": st.integers(1, 6),
    "limits.max_turns": st.integers(1, 120),
})


@settings(max_examples=100, deadline=None)
@given(ODD_BUT_PLAUSIBLE)
def test_odd_configs_that_load_play_the_same_on_both_engines(values):
    from sims.core.play import replay_on_reference

    overrides = [f"{key}={as_toml(value)}" for key, value in values.items()]
    try:
        config = GAME.load_config(None, overrides)
    except ConfigError:
        return
    engine = GAME.batched(config, 2)
    lineup = [resolve_bot(GAME, config, "random"), resolve_bot(GAME, config, "greedy")]
    seeds = game_seeds(2, np.arange(6))
    state, trace = play_batch(engine, batched_bots(GAME, engine, lineup), seeds, config.max_turns,
                              record_legal=True)
    assert state.done.all()
    for i, seed in enumerate(seeds):
        reference, problem, _ = replay_on_reference(
            GAME.reference(config, 2, int(seed)), trace.game_actions(i), trace.legal_hashes[i], config.max_turns)
        assert problem is None, (overrides, problem)
        assert reference.snapshot() == engine.snapshot(state, i), overrides


def fuzz_keys(table: dict, prefix: str = "") -> list[str]:
    """Every dotted key of a config, list-of-table items included (``kinds[2].count``), plus one past the end."""
    keys = []
    for name, value in table.items():
        key = f"{prefix}.{name}" if prefix else name
        if isinstance(value, dict):
            keys.extend(fuzz_keys(value, key))
        elif isinstance(value, list) and value and all(isinstance(item, dict) for item in value):
            for index, item in enumerate(value + value[-1:]):
                keys.extend(fuzz_keys(item, f"{key}[{index}]"))
        else:
            keys.append(key)
    return keys


FUZZ_VALUES = st.one_of(
    SCALARS,
    LISTS,
    st.sampled_from(["true", "false", "'none'", "'liquid'", "'grazer'", "'pasture'", "'devour'", "[0,1,2,3,6,9]",
                     "[-1,0,1,3,9]", "[]", "''", "0", "1", "-1", "1000000"]),
)


@pytest.mark.parametrize("name", game_names())
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_every_games_overrides_load_or_fail_clearly_and_what_loads_plays(name, data):
    """Any game (new ones included, with no change here): random --set lines on its own keys."""
    game = get_game(name)
    keys = st.sampled_from(fuzz_keys(read_toml(Path(game.load_config(None, ()).loaded.source))))
    overrides = data.draw(st.lists(st.tuples(keys, FUZZ_VALUES).map(lambda kv: f"{kv[0]}={kv[1]}"),
                                   min_size=1, max_size=3))
    try:
        config = game.load_config(None, overrides)
    except ConfigError as error:
        assert "expected" in str(error)
        return
    players = max(game.player_counts)
    engine = game.batched(config, players)
    bots = batched_bots(game, engine, [resolve_bot(game, config, "random")] * game.seats(players))
    state, _ = play_batch(engine, bots, game_seeds(1, np.arange(3)), min(game.max_turns(config), 60))
    assert state.done.all()


def test_a_vora_bag_smaller_than_the_meadow_and_farms_is_refused():
    from sims.vora import GAME as VORA

    small = [f"kinds[{i}].count=2" for i in range(9)]
    with pytest.raises(ConfigError, match=r"kinds: expected at least 30 cubes in all"):
        VORA.load_config(None, small)
