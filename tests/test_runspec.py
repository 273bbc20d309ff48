"""RunSpec: what defines a run's records, recorded in the manifest, read back and compared on resume."""

from __future__ import annotations

import dataclasses
import json

import pytest
from polars.testing import assert_frame_equal

from sims.core.spec import ConfigError
from sims.records import MANIFEST, load_events, load_manifest, load_records
from sims.runner import run
from sims.runspec import RESUMED, RunSpec
from tests import toy_game

SPEC = RunSpec("toy", toy_game.load(), ("greedy", "random"), 2, 11)


def _files(path):
    return {p.relative_to(path): p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("spec", [
    SPEC,
    SPEC.with_(rotate_seats=True, trajectories=True),
    SPEC.with_(bots=("bully", "random", "greedy"), players=3, seed=2**64 - 1, bot_streams="placebo"),
    RunSpec("toy", toy_game.load(overrides=("race.goal=14",)), ("random",), 2, 5, rotate_seats=True),
    RunSpec("toy-solo", toy_game.load(), ("random",), 1, 3),
], ids=["plain", "rotated-trajectories", "three-personas-streams", "set-one-bot", "house-seat"])
def test_a_spec_round_trips_through_the_manifest(tmp_path, spec):
    summary = run(spec, 6, tmp_path, batch_size=4)
    manifest = load_manifest(tmp_path)
    assert {key: manifest[key] for key in spec.manifest_fields()} == spec.manifest_fields()
    assert summary.manifest["bots"] == list(spec.bots) and len(spec.bots) == len(spec.choices)
    held = RunSpec.from_manifest(manifest, tmp_path / MANIFEST)
    assert held == spec and hash(held) == hash(spec) and held.difference(spec) is None
    assert (held.game, held.bots, held.players, held.seed, held.rotate_seats, held.trajectories, held.bot_streams) \
        == (spec.game, spec.bots, spec.players, spec.seed, spec.rotate_seats, spec.trajectories, spec.bot_streams)
    assert held.config.loaded.values == spec.config.loaded.values


def test_labels_are_made_one_per_seat():
    assert RunSpec("toy", toy_game.load(), ["greedy"], 3, 1).bots == ("greedy", "greedy", "greedy")
    assert RunSpec("toy-solo", toy_game.load(), ["random"], 1, 1).bots == ("random", "greedy")  # the house seat
    assert [c.kind for c in RunSpec("toy", toy_game.load(), ("bully", "random"), 2, 1).choices] == ["greedy", "random"]


def test_an_old_manifest_without_trajectories_or_streams_reads_with_their_defaults(tmp_path):
    run(SPEC, 4, tmp_path)
    manifest = load_manifest(tmp_path)
    del manifest["trajectories"]
    assert "bot_streams" not in manifest  # an ordinary run never wrote it
    assert RunSpec.from_manifest(manifest) == SPEC
    (tmp_path / MANIFEST).write_text(json.dumps(manifest))
    assert run(SPEC, 8, tmp_path).played == 4  # and the directory resumes


def test_a_manifest_whose_config_is_not_its_hash_is_refused(tmp_path):
    run(SPEC, 4, tmp_path)
    manifest = load_manifest(tmp_path)
    manifest["config"]["race"]["goal"] = 15
    with pytest.raises(ConfigError, match=r"manifest.json: config: expected values whose hash is config_hash"):
        RunSpec.from_manifest(manifest, tmp_path / MANIFEST)
    del manifest["config"]
    with pytest.raises(ConfigError, match=r"manifest.json: config: expected the config values"):
        RunSpec.from_manifest(manifest, tmp_path / MANIFEST)


CHANGES = {
    "game": (dict(game="toy-solo"), "toy", "toy-solo"),
    "players": (dict(bots=("greedy", "random", "random"), players=3), "2", "3"),
    "config_hash": (dict(config=toy_game.load(overrides=("race.goal=14",))), SPEC.config.loaded.hash,
                    toy_game.load(overrides=("race.goal=14",)).loaded.hash),
    "bots": (dict(bots=("random", "greedy")), "greedy,random", "random,greedy"),
    "seed": (dict(seed=12), "11", "12"),
    "rotate_seats": (dict(rotate_seats=True), "false", "true"),
    "bot_streams": (dict(bot_streams="placebo"), "", "placebo"),
}


def test_every_compared_field_is_tested():
    assert set(CHANGES) == set(RESUMED)


@pytest.mark.parametrize("key", list(CHANGES))
def test_a_resume_with_one_field_changed_is_refused_naming_it(tmp_path, key):
    run(SPEC, 10, tmp_path, batch_size=4)
    before = _files(tmp_path)
    changes, held, wanted = CHANGES[key]
    with pytest.raises(ConfigError) as error:
        run(SPEC.with_(**changes), 10, tmp_path, batch_size=4)
    message = str(error.value)
    assert "\n" not in message
    assert message == (f"{tmp_path / MANIFEST}: {key}: expected {held} (what this run directory holds; use another "
                       f"--out for a different run), got {wanted}")
    assert _files(tmp_path) == before  # nothing written


def test_a_resume_without_trajectories_keeps_them(tmp_path):
    """Trajectories are not compared: a directory played with them keeps them (records are the same either way)."""
    run(SPEC.with_(trajectories=True), 10, tmp_path, batch_size=5)
    assert run(SPEC, 20, tmp_path, batch_size=5).played == 10
    assert load_manifest(tmp_path)["trajectories"] is True


def test_a_resume_with_only_execution_options_changed_gives_the_same_records(tmp_path):
    spec = SPEC.with_(rotate_seats=True)
    run(spec, 60, tmp_path / "whole", batch_size=60)
    run(spec, 25, tmp_path / "cut", batch_size=7)
    summary = run(spec, 60, tmp_path / "cut", batch_size=11, jobs=2)
    assert summary.played == 2 * 35 and summary.kept == 2 * 25
    assert_frame_equal(load_records(tmp_path / "cut"), load_records(tmp_path / "whole"))
    assert_frame_equal(load_events(tmp_path / "cut"), load_events(tmp_path / "whole"))


def test_a_spec_is_frozen_and_its_variants_are_new_specs():
    with pytest.raises(dataclasses.FrozenInstanceError):
        SPEC.seed = 12
    variant = SPEC.with_(seed=12)
    assert SPEC.seed == 11 and variant.seed == 12 and variant != SPEC
    assert RunSpec("toy", toy_game.load(), ["greedy", "random"], 2, 11) == SPEC  # another load of the same config
    assert SPEC.with_(trajectories=True) != SPEC


@pytest.mark.parametrize(("changes", "fragment"), [
    (dict(game="chess"), "GAME: chess: expected one of"),
    (dict(config=None), "config: NoneType: expected a config of toy"),
    (dict(bots=("greedy", "nobody")), "--bots: nobody: expected a bot or persona of toy"),
    (dict(bots=("greedy", "random", "random")), "--bots: greedy,random,random: expected 2 comma-separated bots"),
    (dict(bots="greedy"), "--bots: greedy: expected a sequence of bot labels"),
    (dict(players=4, bots=("greedy",)), "--players: 4: expected a player count of toy: 2, 3"),
    (dict(players=True), "--players: True: expected an integer"),
    (dict(seed=-1), "--seed: -1: expected an integer from 0 to"),
    (dict(seed=2**64), f"--seed: {2**64}: expected an integer from 0 to"),
    (dict(seed="11"), "--seed: 11: expected an integer"),
    (dict(rotate_seats="yes"), "--rotate-seats: yes: expected true or false"),
    (dict(trajectories=1), "--trajectories: 1: expected true or false"),
    (dict(bot_streams=3), "--bot-streams: 3: expected a stream name"),
])
def test_bad_values_are_one_config_error(changes, fragment):
    with pytest.raises(ConfigError) as error:
        SPEC.with_(**changes)
    assert str(error.value).startswith(fragment) and "\n" not in str(error.value)


def test_a_manifest_value_the_spec_refuses_names_the_manifest_key(tmp_path):
    run(SPEC, 4, tmp_path)
    manifest = load_manifest(tmp_path)
    manifest["bots"] = ["greedy", "nobody"]
    with pytest.raises(ConfigError, match=r"manifest.json: bots: expected a bot or persona of toy .*, got 'nobody'"):
        RunSpec.from_manifest(manifest, tmp_path / MANIFEST)
