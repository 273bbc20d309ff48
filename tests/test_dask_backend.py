"""The Dask backend: a two-worker LocalCluster gives the same records as the default backend."""

from __future__ import annotations

import socket

import pytest
from polars.testing import assert_frame_equal

from sims.core.spec import ConfigError
from sims.overgrowth import GAME
from sims.runner import load_events, load_records, run
from sims.runspec import RunSpec

pytest.importorskip("distributed")


def test_local_cluster_records_equal_the_default_backend(tmp_path):
    config = GAME.load_config()
    spec = RunSpec("overgrowth", config, ("greedy", "random"), 2, 8, rotate_seats=True)
    options = dict(batch_size=40, progress=False)
    run(spec, 200, tmp_path / "loky", **options)
    run(spec, 200, tmp_path / "dask", jobs=2, backend="dask", **options)
    assert_frame_equal(load_records(tmp_path / "dask"), load_records(tmp_path / "loky"))
    assert_frame_equal(load_events(tmp_path / "dask"), load_events(tmp_path / "loky"))


def test_a_local_cluster_starts_beside_another_one_on_port_8787(tmp_path):
    """Port 8787 (where a Dask scheduler serves HTTP by default) taken, as by another cluster or a parallel test:
    the run's cluster starts without a warning (warnings are errors in this suite) and plays its games."""
    taken = socket.socket()
    try:
        taken.bind(("", 8787))
        taken.listen()
    except OSError:  # already taken by something else: the same situation
        pass
    try:
        run(RunSpec("overgrowth", GAME.load_config(), ("random", "random"), 2, 3), 20, tmp_path, jobs=1,
            backend="dask", batch_size=10, progress=False)
    finally:
        taken.close()
    assert load_records(tmp_path).height == 40


def test_an_unreachable_scheduler_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="--scheduler"):
        run(RunSpec("overgrowth", GAME.load_config(), ["random", "random"], 2, 1), 10, tmp_path, progress=False,
            backend="dask", scheduler="tcp://127.0.0.1:9")


def test_a_sweep_on_a_local_cluster_equals_the_default_backend(tmp_path):
    from analysis.sweep import load_sweep, run_sweep

    sweep = tmp_path / "sweep.toml"
    sweep.write_text('game = "overgrowth"\nbots = ["greedy", "random"]\nseed = 4\ngames_per_cell = 60\n'
                     '[grid]\n"rules.flowers" = [12, 25]\n')
    run_sweep(sweep, tmp_path / "loky", batch_size=30, progress=False)
    run_sweep(sweep, tmp_path / "dask", jobs=2, batch_size=30, progress=False, backend="dask")
    for loky_cell, dask_cell in zip(load_sweep(tmp_path / "loky").cells, load_sweep(tmp_path / "dask").cells):
        assert_frame_equal(dask_cell.records(), loky_cell.records())
