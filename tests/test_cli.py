"""The command line through click's CliRunner, on the toy game."""

from __future__ import annotations

import json
import re

import polars as pl
import pytest

from analysis.cli import main
from tests.cli_helpers import glade, one_error_line
from sims.runner import load_records
from tests import toy_game




def test_games_lists_games_bots_and_personas():
    result = glade("games")
    assert result.exit_code == 0, result.output
    assert "toy: Dice race (test game) (2, 3 players)" in result.output
    assert "bot      greedy" in result.output
    assert "persona  bully: greedy with bump=10" in result.output
    assert "overgrowth" in result.output


def test_play_prints_the_summary(tmp_path):
    result = glade("play", "toy", "--games", 200, "--seed", 1, "--bots", "greedy,random", "--rotate-seats",
                   "--batch-size", 64, "--out", tmp_path / "run", "--no-progress")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "400 games, 2 players" in out
    assert re.search(r"headline: seat (0 wins|balance between equal players).* of 400 games", out)
    assert re.search(r"seat 0  share (\d+\.\d% \[\d+\.\d, \d+\.\d\]|n/a)  ties", out)
    assert re.search(r"greedy  first places \d+\.\d% \[\d+\.\d, \d+\.\d\] \(Wilson 95%\)  n = 400", out)
    assert "turns  mean" in out and "end    goal" in out and "games/s" in out
    records = load_records(tmp_path / "run")
    assert records["game"].n_unique() == 400


def test_play_json(tmp_path):
    result = glade("play", "toy", "--games", 50, "--seed", 1, "--bots", "greedy,random,random", "--out",
                   tmp_path / "run", "--json", "--no-progress")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["games"] == 50 and data["players"] == 3
    assert [row["seat"] for row in data["by_seat"]] == [0, 1, 2]
    assert {"win_rate", "win_low", "win_high", "tie_rate", "stall_rate", "mean_score"} <= set(data["by_seat"][0])


def test_play_players_default_to_the_number_of_bots(tmp_path):
    result = glade("play", "toy", "--games", 5, "--seed", 1, "--bots", "random,random,greedy", "--out", tmp_path,
                   "--no-progress")
    assert result.exit_code == 0, result.output
    assert "3 players" in result.stdout


@pytest.mark.parametrize(
    ("arguments", "fragments"),
    [
        (["--games", 0], ["--games", "0"]),
        (["--batch-size", 0], ["--batch-size"]),
        (["--jobs", 0], ["--jobs"]),
        (["--bots", "greedy,random,random,random"], ["--bots", "2 comma-separated bots"]),
        (["--bots", "greedy,random", "--players", 3], ["--bots", "3 comma-separated bots"]),
        (["--bots", "greedy,wizard"], ["--bots", "wizard", "greedy"]),
        (["--bots", "greedy,random", "--players", 5], ["--players", "2, 3"]),
        (["--bots", "greedy,,random"], ["--bots"]),
        (["--games", "many"], ["--games", "many"]),
    ],
)
def test_play_bad_arguments_are_one_error_line(tmp_path, arguments, fragments):
    base = {"--games": 10, "--seed": 1, "--bots": "greedy,random", "--out": tmp_path / "run"}
    pairs = dict(zip(arguments[::2], arguments[1::2]))
    args = [x for key, value in {**base, **pairs}.items() for x in (key, value)]
    one_error_line(glade("play", "toy", *args, "--no-progress"), *fragments)


def test_unknown_game_and_command_are_one_error_line(tmp_path):
    one_error_line(glade("play", "chess", "--games", 1, "--seed", 1, "--bots", "a,b", "--out", tmp_path),
                          "GAME", "chess", "toy")
    one_error_line(glade("plya"), "plya")
    one_error_line(glade("play", "toy", "--seed", 1), "Missing option")


def test_a_different_run_in_the_same_directory_is_refused(tmp_path):
    common = ["--games", 20, "--seed", 1, "--out", tmp_path, "--no-progress"]
    assert glade("play", "toy", "--bots", "greedy,random", *common).exit_code == 0
    line = one_error_line(glade("play", "toy", "--bots", "random,greedy", *common), "manifest.json", "bots")
    assert "greedy,random" in line and "random,greedy" in line
    one_error_line(glade("play", "toy", "--bots", "greedy,random", "--set", "race.goal=20", *common),
                          "manifest.json", "config_hash")


def test_verify_passes_on_the_toy_game():
    result = glade("verify", "toy", "--games", 300, "--seed", 3)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("300 games, 0 mismatches")


def test_verify_fails_when_the_reference_is_broken(monkeypatch):
    monkeypatch.setattr(toy_game.RaceGame, "victims", lambda self, action: [])  # the reference forgets bumps
    result = glade("verify", "toy", "--games", 300, "--seed", 3, "--players", 3)
    assert result.exit_code == 1, result.output
    first = result.stdout.splitlines()[0]
    assert re.fullmatch(r"300 games, [1-9]\d* mismatches", first)
    assert "first mismatch: game" in result.stdout and "actions so far" in result.stdout


def test_replay_matches_the_records_of_play(tmp_path):
    options = ["--seed", 5, "--bots", "greedy,random", "--rotate-seats"]
    assert glade("play", "toy", "--games", 10, *options, "--out", tmp_path, "--no-progress").exit_code == 0
    records = load_records(tmp_path)
    for game_id in (0, 7):
        result = glade("replay", "toy", "--game", game_id, *options)
        assert result.exit_code == 0, result.output
        out = result.stdout
        rows = records.filter(pl.col("game") == game_id).sort("seat")
        assert f"result: {rows['end'][0]} after {rows['turns'][0]} turns" in out
        for row in rows.iter_rows(named=True):
            assert f"seat {row['seat']} ({row['bot']}): score {row['score']:g}, rank {row['rank']}" in out
        assert out.count("\nturn ") == rows["turns"][0]
    assert "seats: 0 random, 1 greedy" in glade("replay", "toy", "--game", 7, *options).stdout


def test_bench_json_keys():
    result = glade("bench", "toy", "--json", "--batch-size", 16, "--repeats", 1, "--reference-games", 2)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    for kind in ("random", "greedy"):
        assert data[f"batched_{kind}_gps"] > 0 and data[f"reference_{kind}_gps"] > 0
        assert data[f"ratio_{kind}"] == pytest.approx(data[f"batched_{kind}_gps"] / data[f"reference_{kind}_gps"])
    assert data["players"] == 2 and data["batch_size"] == 16 and data["reference_games"] == 2


def test_every_command_documents_a_shell_example():
    for name, command in main.commands.items():
        assert "glade " + name in command.help, name
