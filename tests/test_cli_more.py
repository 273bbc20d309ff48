"""The command line as a new user tries it: --version, one bot for every seat, --json, export, progress, --set by name."""

from __future__ import annotations

import io
import json

import polars as pl
import pytest

from analysis.progress import Lines, eta_text
from sims.records import glade_version, load_manifest, load_records
from tests.cli_helpers import glade, one_error_line

SWEEP = """game = "toy"
bots = ["greedy", "random"]
seed = 11
games_per_cell = 12
[grid]
"race.goal" = [10, 12]
"""


def test_version_is_the_package_version():
    result = glade("--version")
    assert result.exit_code == 0 and result.output == f"glade {glade_version()}\n"
    assert glade_version() != "unknown"  # the package is installed (pip install -e .)


def test_one_bot_fills_every_seat(tmp_path):
    result = glade("play", "toy", "--players", 3, "--bots", "greedy", "--games", 6, "--seed", 2, "--no-progress",
                   "--out", tmp_path)
    assert result.exit_code == 0, result.output
    assert load_manifest(tmp_path)["bots"] == ["greedy", "greedy", "greedy"]
    assert load_records(tmp_path)["bot"].to_list() == ["greedy"] * 18


def test_games_plan_and_verify_print_json():
    games = json.loads(glade("games", "--json").output)
    toy = next(g for g in games if g["name"] == "toy")
    assert toy["player_counts"] == [2, 3] and {b["name"] for b in toy["bots"]} >= {"greedy", "random"}
    plan = json.loads(glade("plan", "--delta", 0.02, "--json").output)
    assert plan["games_one_run"] == 4903 and plan["games_per_arm"] == 9806  # n = ((1.96 + 0.84) / h)^2, h = 0.04
    verify = glade("verify", "toy", "--games", 8, "--json")
    assert verify.exit_code == 0, verify.output
    data = json.loads(verify.output)
    assert data["ok"] is True and data["mismatches"] == 0 and data["games"] == 8


def test_sweep_prints_json(tmp_path):
    sweep = tmp_path / "s.toml"
    sweep.write_text(SWEEP)
    result = glade("sweep", sweep, "--out", tmp_path / "out", "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert [c["games"] for c in data["cells"]] == [12, 12] and data["played"] == 24
    assert sum(c["baseline"] for c in data["cells"]) == 1


def test_export_writes_the_records_as_csv(tmp_path):
    run = tmp_path / "run"
    assert glade("play", "toy", "--bots", "greedy,random", "--games", 5, "--seed", 2, "--no-progress", "--out",
                 run).exit_code == 0
    result = glade("export", run, "--csv", "--out", tmp_path / "r.csv")
    assert result.exit_code == 0, result.output
    exported = pl.read_csv(tmp_path / "r.csv")
    assert exported.height == 10 and exported["score"].to_list() == load_records(run)["score"].to_list()
    assert glade("export", run, "--csv", "--events", "--out", "-").output.startswith("game,")
    one_error_line(glade("export", tmp_path / "none", "--csv"), "manifest.json")


def test_progress_lines_every_ten_seconds_with_rate_and_eta():
    now = [0.0]
    out = io.StringIO()
    lines = Lines(1000, "toy", out, clock=lambda: now[0])
    lines.start_cell("1/2 a", 400)
    for _ in range(4):
        now[0] += 4.0
        lines.update(100)  # 100 games every 4 s: a line at 12 s only
    assert out.getvalue().splitlines() == [
        "toy: 300/1,000 games (30%), 25 games/s, ETA 28 s; cell 1/2 a: 300/400 games (75%), 25 games/s, ETA 4 s"]
    assert eta_text(3725) == "1 h 02 min" and eta_text(None) == "?"


def test_quiet_hides_the_damage_warning_but_not_the_summary(tmp_path):
    args = ["play", "toy", "--bots", "greedy,random", "--games", 6, "--seed", 2, "--batch-size", 3, "--out", tmp_path]
    assert glade(*args, "--no-progress").exit_code == 0
    (tmp_path / "records" / "r0-000000003-000000006.parquet").write_bytes(b"PAR1")
    loud = glade(*args, "--no-progress")
    assert "warning: " in loud.stderr and "is damaged" in loud.stderr
    (tmp_path / "records" / "r0-000000003-000000006.parquet").write_bytes(b"PAR1")
    quiet = glade(*args, "--quiet")
    assert quiet.exit_code == 0 and quiet.stderr == "" and "toy" in quiet.stdout


@pytest.mark.parametrize(("override", "fragments"), [
    ("race.goal=0", ["race.goal", "got 0"]),
    ("personas[x].bot=greedy", ["personas[x]"]),
])
def test_set_errors_name_the_key(tmp_path, override, fragments):
    one_error_line(glade("play", "toy", "--bots", "greedy,random", "--games", 2, "--seed", 1, "--set", override,
                         "--out", tmp_path), *fragments)


def test_replay_of_a_run_directory_takes_everything_from_its_manifest(tmp_path):
    """No option retyped: the config override, the lineup and the rotations come from the manifest."""
    play = ["play", "toy", "--games", 6, "--seed", 5, "--bots", "greedy,random", "--rotate-seats", "--set",
            "race.goal=14", "--no-progress", "--out", tmp_path]
    assert glade(*play).exit_code == 0
    records = load_records(tmp_path)
    for game_id in (0, 7, 11):
        out = glade("replay", tmp_path, "--game", game_id).stdout
        rows = records.filter(pl.col("game") == game_id).sort("seat")
        assert f"result: {rows['end'][0]} after {rows['turns'][0]} turns" in out
        for row in rows.iter_rows(named=True):
            assert f"seat {row['seat']} ({row['bot']}): score {row['score']:g}, rank {row['rank']}" in out
        final = "scores: " + ", ".join(f"{r['seat']} {r['bot']} {r['score']:g}" for r in rows.iter_rows(named=True))
        assert [line for line in out.splitlines() if line.startswith("scores: ")][-1] == final
    one_error_line(glade("replay", tmp_path, "--game", 12), "--game", "0 to 11")
    one_error_line(glade("replay", tmp_path, "--game", 1, "--bots", "random"), "--bots")
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    manifest["config"]["race"]["goal"] = 15  # no longer the config the records were played with
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    one_error_line(glade("replay", tmp_path, "--game", 1), "config_hash")
