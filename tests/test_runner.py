"""The runner: identical records whatever the chunking, resume, refusals, seat rotation."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from sims.core.rng import game_seeds
from sims.core.spec import ConfigError
from sims.runner import BASE_COLUMNS, Chunk, load_events, load_manifest, load_records, plan_chunks, run
from sims.runspec import RunSpec
from tests import toy_game

GAMES = 150


def play(out, config, bots=("greedy", "random"), games=GAMES, rotate_seats=False, **options):
    options.setdefault("progress", False)
    return run(RunSpec("toy", config, bots, len(bots), 11, rotate_seats), games, out, **options)


@pytest.fixture(scope="module")
def baseline(tmp_path_factory):
    """One uninterrupted run in one chunk: the records every other chunking must reproduce."""
    out = tmp_path_factory.mktemp("baseline")
    play(out, toy_game.load(), batch_size=4096, rotate_seats=True)
    return load_records(out), load_events(out)


@pytest.mark.parametrize(("batch_size", "games"), [(1, 30), (7, GAMES), (64, GAMES)])
def test_records_do_not_depend_on_batch_size(tmp_path, toy_config, baseline, batch_size, games):
    play(tmp_path, toy_config, batch_size=batch_size, rotate_seats=True, games=games)
    records, events = baseline
    assert_frame_equal(load_records(tmp_path), records.filter(pl.col("deal") < games))
    assert_frame_equal(load_events(tmp_path), events.filter(pl.col("game") < 2 * games))


def test_records_do_not_depend_on_jobs(tmp_path, toy_config, baseline):
    play(tmp_path, toy_config, batch_size=40, jobs=2, rotate_seats=True)
    assert_frame_equal(load_records(tmp_path), baseline[0])
    assert_frame_equal(load_events(tmp_path), baseline[1])


def test_records_columns_and_types(baseline):
    records = baseline[0]
    assert list(records.columns[: len(BASE_COLUMNS)]) == list(BASE_COLUMNS)
    assert dict(records.schema) == {**BASE_COLUMNS, "bumps": pl.Int16, "leaps": pl.Int16, "margin": pl.Float64}
    assert records.height == GAMES * 2 * 2  # deals x rotations x seats
    assert records["game"].n_unique() == GAMES * 2
    assert records.select("game", "seat").is_duplicated().sum() == 0
    # win is first place, shared or not; tie is a shared first place.
    per_game = records.group_by("game").agg(pl.col("win").sum(), pl.col("tie").sum())
    assert (per_game["win"] >= 1).all()
    assert ((per_game["tie"] == 0) | (per_game["tie"] == per_game["win"])).all()
    assert records.filter(pl.col("tie"))["win"].all()


def test_stalls_have_no_rank_and_no_win(tmp_path):
    config = toy_game.load(overrides=["limits.max_turns=6"])
    play(tmp_path, config, games=100)
    records = load_records(tmp_path)
    stalls = records.filter(pl.col("end") == "stall")
    assert stalls.height > 0
    assert stalls["rank"].is_null().all()
    assert not stalls["win"].any() and not stalls["tie"].any()
    assert records.filter(pl.col("end") != "stall")["rank"].is_not_null().all()


def test_resume_after_a_lost_chunk_gives_the_same_records(tmp_path, toy_config, baseline):
    play(tmp_path, toy_config, batch_size=32, rotate_seats=True)
    lost = tmp_path / "records" / Chunk(1, 64, 96).name
    lost.unlink()
    (tmp_path / "events" / Chunk(0, 32, 64).name).unlink()  # an events file alone is not a finished chunk
    (tmp_path / "records" / Chunk(0, 32, 64).name).unlink()
    stale = tmp_path / "records" / f".{Chunk(0, 32, 64).name}.999.tmp"  # a write cut short
    stale.write_bytes(b"PAR1")
    summary = play(tmp_path, toy_config, batch_size=10, rotate_seats=True)
    assert not stale.exists()
    assert summary.played == 64 and summary.kept == GAMES * 2 - 64
    assert_frame_equal(load_records(tmp_path), baseline[0])
    assert_frame_equal(load_events(tmp_path), baseline[1])
    manifest = load_manifest(tmp_path)
    assert sorted(manifest["chunks"]) == sorted(p.name for p in (tmp_path / "records").iterdir())


def test_resume_of_a_finished_run_plays_nothing(tmp_path, toy_config):
    play(tmp_path, toy_config, batch_size=50)
    before = load_records(tmp_path)
    summary = play(tmp_path, toy_config, batch_size=50)
    assert summary.played == 0 and summary.games_per_second is None
    assert_frame_equal(load_records(tmp_path), before)


def test_more_games_extend_the_run(tmp_path, toy_config):
    play(tmp_path, toy_config, games=60, batch_size=25)
    summary = play(tmp_path, toy_config, games=GAMES, batch_size=25)
    assert summary.played == GAMES - 60
    whole = tmp_path / "whole"
    play(whole, toy_config, games=GAMES)
    assert_frame_equal(load_records(tmp_path), load_records(whole))
    assert load_manifest(tmp_path)["games"] == GAMES


def test_a_kill_between_chunk_and_manifest_loses_nothing(tmp_path, toy_config):
    """Chunks are discovered from the files on disk, not from the manifest's list."""
    play(tmp_path, toy_config, batch_size=50)
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["chunks"] = []
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    assert play(tmp_path, toy_config, batch_size=50).played == 0


@pytest.mark.parametrize(
    ("change", "key"),
    [
        ({"config": ["race.goal=14"]}, "config_hash"),
        ({"bots": ("random", "random")}, "bots"),
        ({"seed": 12}, "seed"),
        ({"rotate_seats": True}, "rotate_seats"),
        ({"games": 10}, "games"),
    ],
)
def test_a_different_run_on_the_same_directory_is_refused(tmp_path, toy_config, change, key):
    play(tmp_path, toy_config, games=40)
    config = toy_game.load(overrides=change.get("config", ()))
    bots = list(change.get("bots", ("greedy", "random")))
    with pytest.raises(ConfigError) as error:
        run(RunSpec("toy", config, bots, 2, change.get("seed", 11), rotate_seats=change.get("rotate_seats", False)),
            change.get("games", 40), tmp_path, progress=False)
    message = str(error.value)
    assert message.startswith(f"{tmp_path / 'manifest.json'}: {key}: ")
    assert "\n" not in message and "holds" in message


def test_a_different_player_count_is_refused(tmp_path, toy_config):
    play(tmp_path, toy_config, games=20)
    with pytest.raises(ConfigError, match="manifest.json: players: "):
        play(tmp_path, toy_config, bots=("greedy", "random", "random"), games=20)


def test_rotated_seats_are_paired_games_on_the_same_seed(baseline):
    records = baseline[0]
    assert (records["game"] == records["deal"] * 2 + records["rotation"]).all()
    expected_seeds = game_seeds(11, records["deal"].to_numpy())
    assert np.array_equal(records["seed"].to_numpy(), expected_seeds)
    lineups = records.group_by("rotation", "seat").agg(pl.col("bot").unique()).sort("rotation", "seat")
    assert lineups["bot"].to_list() == [["greedy"], ["random"], ["random"], ["greedy"]]
    # Every bot sits in every seat once per deal.
    assert records.group_by("deal", "bot").len()["len"].unique().to_list() == [2]


def test_one_rotation_without_rotate_seats(tmp_path, toy_config):
    play(tmp_path, toy_config, games=30)
    records = load_records(tmp_path)
    assert (records["rotation"] == 0).all() and (records["game"] == records["deal"]).all()
    assert records.filter(pl.col("seat") == 0)["bot"].unique().to_list() == ["greedy"]


def test_personas_resolve_and_are_recorded(tmp_path, toy_config):
    play(tmp_path, toy_config, bots=("bully", "random"), games=20)
    manifest = load_manifest(tmp_path)
    assert manifest["bot_kinds"][0] == {"label": "bully", "kind": "greedy", "weights": {"progress": 1.0, "bump": 10.0}}
    assert set(load_records(tmp_path)["bot"]) == {"bully", "random"}


def test_manifest_describes_the_run(tmp_path, toy_config):
    play(tmp_path, toy_config, games=20, batch_size=8)
    manifest = load_manifest(tmp_path)
    assert manifest["config_hash"] == toy_config.loaded.hash
    assert manifest["config"]["race"]["goal"] == 12
    assert manifest["chunks"] == [Chunk(0, 0, 8).name, Chunk(0, 8, 16).name, Chunk(0, 16, 20).name]
    assert set(manifest["versions"]) == {"glade", "python", "numpy", "polars"}
    assert not [p for p in tmp_path.rglob("*") if p.name.endswith(".tmp")]


def test_bad_arguments_are_config_errors(tmp_path, toy_config):
    with pytest.raises(ConfigError, match="--bots"):
        play(tmp_path, toy_config, bots=("greedy", "nobody"))
    with pytest.raises(ConfigError, match="--bots"):
        run(RunSpec("toy", toy_config, ["greedy", "random", "random"], 2, 1), 10, tmp_path, progress=False)
    with pytest.raises(ConfigError, match="--players"):
        run(RunSpec("toy", toy_config, ["greedy"] * 4, 4, 1), 10, tmp_path, progress=False)
    with pytest.raises(ConfigError, match="--batch-size"):
        play(tmp_path, toy_config, batch_size=0)


def test_plan_chunks_fills_gaps_whatever_the_old_batch_size():
    finished = [Chunk(0, 0, 10), Chunk(0, 20, 30), Chunk(1, 0, 30)]
    todo = plan_chunks(35, 2, 4, finished)
    assert todo == [Chunk(0, 10, 14), Chunk(0, 14, 18), Chunk(0, 18, 20), Chunk(0, 30, 34), Chunk(1, 30, 34),
                    Chunk(0, 34, 35), Chunk(1, 34, 35)]


def test_overgrowth_records_do_not_depend_on_jobs(tmp_path):
    """The real game's config travels to loky workers and gives the same records."""
    from sims.overgrowth import GAME

    config = GAME.load_config(None, ())
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 3), 48, tmp_path / "one", batch_size=48, progress=False)
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 3), 48, tmp_path / "two", batch_size=16, jobs=2,
        progress=False)
    assert_frame_equal(load_records(tmp_path / "one"), load_records(tmp_path / "two"))


def test_overlapping_chunks_are_read_once(tmp_path, toy_config, baseline):
    """Workers that outlive a killed run can leave chunks overlapping the resumed run's ones."""
    play(tmp_path / "a", toy_config, batch_size=50, rotate_seats=True)
    play(tmp_path / "b", toy_config, batch_size=30, rotate_seats=True)
    for name in (Chunk(0, 30, 60).name, Chunk(1, 120, 150).name):
        for kind in ("records", "events"):
            (tmp_path / "b" / kind / name).rename(tmp_path / "a" / kind / name)
    assert_frame_equal(load_records(tmp_path / "a"), baseline[0])
    assert_frame_equal(load_events(tmp_path / "a"), baseline[1])


def test_a_directory_being_written_is_refused(tmp_path, toy_config):
    import fcntl

    tmp_path.mkdir(exist_ok=True)
    with open(tmp_path / ".lock", "w") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(ConfigError, match=r"\(lock\): expected a run directory no other glade command"):
            play(tmp_path, toy_config, games=10)
    assert play(tmp_path, toy_config, games=10).played == 10
