"""Overgrowth end to end: reproducible records, resume, bad input (verify and goldens: tests/test_games.py)."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from click.testing import CliRunner
from polars.testing import assert_frame_equal

from analysis.cli import main
from sims.overgrowth import GAME
from sims.runner import load_events, load_records, run
from sims.runspec import RunSpec


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory, config):
    out = tmp_path_factory.mktemp("whole")
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 5, rotate_seats=True), 64, out, batch_size=64,
        progress=False)
    return out


@pytest.mark.parametrize("batch_size", [1, 7])
def test_records_do_not_depend_on_batch_size(tmp_path, config, whole_run, batch_size):
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 5, rotate_seats=True), 64, tmp_path,
        batch_size=batch_size, progress=False)
    assert_frame_equal(load_records(tmp_path), load_records(whole_run))
    assert_frame_equal(load_events(tmp_path), load_events(whole_run))


def test_resume_after_a_deleted_chunk(tmp_path, config, whole_run):
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 5, rotate_seats=True), 64, tmp_path, batch_size=16,
        progress=False)
    lost = sorted((tmp_path / "records").iterdir())[2]
    lost.unlink()
    again = run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 5, rotate_seats=True), 64, tmp_path,
                batch_size=16, progress=False)
    assert again.played == 16
    assert_frame_equal(load_records(tmp_path), load_records(whole_run))


def test_records_hold_overgrowth_columns(whole_run):
    records = load_records(whole_run)
    assert records.height == 64 * 2 * 2
    for column in ("flowers_placed", "flowers_lost", "overgrow", "grow", "cast", "spread", "passes"):
        assert column in records.columns
    placed_minus_lost = (records["flowers_placed"] - records["flowers_lost"]).to_list()
    assert placed_minus_lost == records["score"].cast(int).to_list()
    events = load_events(whole_run)
    per_game = events.group_by("game").len().sort("game")
    turns = records.filter(records["seat"] == 0).sort("game")
    assert per_game["len"].to_list() == turns["turns"].to_list()


def test_events_points_are_the_flowers_each_action_placed(whole_run):
    """An action's points are the flowers it put on the board (one a cell placed, none for a pass); a seat's
    points add up to its flowers_placed."""
    events = load_events(whole_run)
    cells = (events["cell"] >= 0).cast(pl.Int64) + (events["cell2"] >= 0).cast(pl.Int64)
    assert events["points"].cast(pl.Int64).to_list() == cells.to_list()
    per_seat = events.group_by("game", "seat").agg(pl.col("points").cast(pl.Int64).sum())
    records = load_records(whole_run).join(per_seat, on=["game", "seat"], how="left").fill_null(0)
    assert records["points"].to_list() == records["flowers_placed"].to_list()
    assert records["flowers_placed"].sum() > 0


@pytest.mark.parametrize("arguments, fragments", [
    (["--set", "board.rows=16"], ["overgrowth.toml", "board.rows", "at most 64 cells"]),
    (["--set", "track.start=[0,0]"], ["track.start", "two different start spaces"]),
    (["--set", "track.spaces=['grow','jump']"], ["track.spaces[1]", "one of overgrow, grow, cast, spread"]),
    (["--set", "rules.flowers=0"], ["rules.flowers", "an integer from 1 to 64", "got 0"]),
    (["--set", "board.shaded_cells=[[[0,9]],[[6,3]]]"], ["board.shaded_cells[0]", "inside the 7x7 board"]),
    (["--set", "personas.racer.bot=genius"], ["personas.racer.bot", "one of greedy, planner"]),
    (["--bots", "greedy,genius"], ["--bots", "genius", "random, greedy, planner"]),
])
def test_bad_overgrowth_input_is_one_clear_line(tmp_path, arguments, fragments):
    base = ["play", "overgrowth", "--games", "4", "--seed", "1", "--bots", "greedy,random", "--out", str(tmp_path)]
    result = CliRunner().invoke(main, base + arguments)
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in lines[0]


def test_a_bad_config_file_names_file_and_key(tmp_path):
    bad = tmp_path / "bad.toml"
    text = (Path(GAME.load_config().loaded.source)).read_text().replace("columns = 7", 'columns = "seven"')
    bad.write_text(text)
    result = CliRunner().invoke(main, ["verify", "overgrowth", "--games", "2", "--config", str(bad)])
    assert result.exit_code == 2
    assert f"error: {bad}: board.columns: expected an integer from 3 to 16, got 'seven'" in result.stderr
