"""Vora end to end: verify for every player count, reproducible records, golden playthrough."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from sims.replay import replay_text
from sims.runner import load_events, load_records, run
from sims.verify import verify
from sims.vora import GAME

GOLDEN = Path(__file__).parent / "golden"


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_verify_500_games_of_mixed_bots(config, players):
    report = verify("vora", config, players, 500, seed=3, jobs=2)
    assert report.games == 500 and report.ok, report.format()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    bots = ["greedy", "random", "random"]
    for batch_size in (1, 7, 24):
        run("vora", config, bots, 3, 6, 24, tmp_path / str(batch_size), batch_size=batch_size,
            rotate_seats=True, progress=False)
    for batch_size in (1, 7):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "24"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "24"))
    records = load_records(tmp_path / "24")
    farms = [c for c in records.columns if c.startswith("farm_")]
    assert len(farms) == len(config.kinds)


def test_golden_playthrough(config):
    """A seeded 3-player game rendered turn by turn; after an intended change: GLADE_UPDATE_GOLDEN=1."""
    text = replay_text("vora", config, 3, 2, 1, ["greedy", "random", "planner"], rotate_seats=True) + "\n"
    path = GOLDEN / "vora-seed2-game1-greedy-random-planner.txt"
    if os.environ.get("GLADE_UPDATE_GOLDEN"):
        path.write_text(text)
    assert text == path.read_text()
