"""Vora end to end: reproducible records (verify and goldens: tests/test_games.py)."""

from __future__ import annotations

import pytest
from polars.testing import assert_frame_equal

from sims.runner import load_events, load_records, run
from sims.runspec import RunSpec
from sims.vora import GAME


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    bots = ["greedy", "random", "random"]
    for batch_size in (1, 7, 24):
        run(RunSpec("vora", config, bots, 3, 6, rotate_seats=True), 24, tmp_path / str(batch_size),
            batch_size=batch_size, progress=False)
    for batch_size in (1, 7):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "24"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "24"))
    records = load_records(tmp_path / "24")
    farms = [c for c in records.columns if c.startswith("farm_")]
    assert len(farms) == len(config.kinds)
