"""Reforest end to end: reproducible records (verify and goldens: tests/test_games.py)."""

import pytest
from polars.testing import assert_frame_equal

from sims.reforest import GAME
from sims.runner import load_events, load_records, run
from sims.runspec import RunSpec


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    bots = ["greedy", "random"]
    for batch_size in (1, 5, 16):
        run(RunSpec("reforest", config, bots, 2, 6, rotate_seats=True), 16, tmp_path / str(batch_size),
            batch_size=batch_size, progress=False)
    for batch_size in (1, 5):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "16"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "16"))
    records = load_records(tmp_path / "16")
    parts = [c for c in records.columns if c.startswith("points_")]
    assert (records.select(parts).sum_horizontal() == records["score"]).all()
