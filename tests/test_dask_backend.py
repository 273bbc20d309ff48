"""The Dask backend: a two-worker LocalCluster gives the same records as the default backend."""

from __future__ import annotations

import pytest
from polars.testing import assert_frame_equal

from sims.core.spec import ConfigError
from sims.overgrowth import GAME
from sims.runner import load_events, load_records, run

pytest.importorskip("distributed")


def test_local_cluster_records_equal_the_default_backend(tmp_path):
    config = GAME.load_config()
    options = dict(batch_size=40, rotate_seats=True, progress=False)
    run("overgrowth", config, ["greedy", "random"], 2, 8, 200, tmp_path / "loky", **options)
    run("overgrowth", config, ["greedy", "random"], 2, 8, 200, tmp_path / "dask", jobs=2, backend="dask",
        **options)
    assert_frame_equal(load_records(tmp_path / "dask"), load_records(tmp_path / "loky"))
    assert_frame_equal(load_events(tmp_path / "dask"), load_events(tmp_path / "loky"))


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="--scheduler"):
        run("overgrowth", GAME.load_config(), ["random", "random"], 2, 1, 10, tmp_path, progress=False,
            backend="dask", scheduler="tcp://127.0.0.1:9")
