"""Vorex end to end: reproducible records, the solo weed seat (verify and goldens: tests/test_games.py)."""

import pytest
from polars.testing import assert_frame_equal

from sims.runner import load_events, load_records, run
from sims.runspec import RunSpec
from sims.vorex import GAME


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    for batch_size in (1, 4, 10):
        run(RunSpec("vorex", config, ["random", "random", "random"], 3, 6, rotate_seats=True), 10,
            tmp_path / str(batch_size), batch_size=batch_size, progress=False)
    for batch_size in (1, 4):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "10"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "10"))
    records = load_records(tmp_path / "10")
    parts = [c for c in records.columns if c.startswith("points_")]
    assert (records.select(parts).sum_horizontal() == records["score"]).all()
    assert set(records["green"].unique()) <= {"G1", "G2", "G3", "G4", "G5", "none"}


def test_solo_records_the_weed_seat_and_the_subspecies_of_wins(tmp_path, config):
    run(RunSpec("vorex", config, ["greedy"], 1, 3), 12, tmp_path / "solo", progress=False)
    records = load_records(tmp_path / "solo")
    assert records.height == 24 and records.filter(records["seat"] == 1)["bot"].unique().to_list() == ["greedy"]
    player = records.filter(records["seat"] == 0)
    for row in player.iter_rows(named=True):
        assert (row["solo_name"] != "") == (row["end"] == "solo_win")
