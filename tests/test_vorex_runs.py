"""Vorex end to end: verify for every player count, reproducible records, golden playthroughs."""

import pytest
from polars.testing import assert_frame_equal

from sims.replay import replay_text
from sims.runner import load_events, load_records, run
from sims.verify import verify
from sims.vorex import GAME
from tests.golden_files import assert_golden


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


@pytest.mark.parametrize("games", [100, pytest.param(300, marks=pytest.mark.slow)])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_verify_random_games(config, players, games):
    report = verify("vorex", config, players, games=games, seed=5, bot_labels=["random"] * GAME.seats(players),
                    jobs=2)
    assert report.games == games and report.ok, report.format()


@pytest.mark.parametrize("players, bots", [(1, ["greedy", "greedy"]), (2, ["greedy", "random"]),
                                           (3, ["random", "greedy", "random"])])
def test_verify_games_with_greedy_seats(config, players, bots):
    report = verify("vorex", config, players, games=12, seed=9, bot_labels=bots)
    assert report.ok, report.format()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    for batch_size in (1, 4, 10):
        run("vorex", config, ["random", "random", "random"], 3, 6, 10, tmp_path / str(batch_size),
            batch_size=batch_size, rotate_seats=True, progress=False)
    for batch_size in (1, 4):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "10"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "10"))
    records = load_records(tmp_path / "10")
    parts = [c for c in records.columns if c.startswith("points_")]
    assert (records.select(parts).sum_horizontal() == records["score"]).all()
    assert set(records["green"].unique()) <= {"G1", "G2", "G3", "G4", "G5", "none"}


def test_solo_records_the_weed_seat_and_the_subspecies_of_wins(tmp_path, config):
    run("vorex", config, ["greedy"], 1, 3, 12, tmp_path / "solo", progress=False)
    records = load_records(tmp_path / "solo")
    assert records.height == 24 and records.filter(records["seat"] == 1)["bot"].unique().to_list() == ["greedy"]
    player = records.filter(records["seat"] == 0)
    for row in player.iter_rows(named=True):
        assert (row["solo_name"] != "") == (row["end"] == "solo_win")


def test_golden_two_player_playthrough(config):
    assert_golden("vorex-seed2-game1-greedy-random.txt",
                  replay_text("vorex", config, 2, 2, 1, ["greedy", "random"], rotate_seats=True) + "\n")


def test_golden_solo_playthrough(config):
    assert_golden("vorex-solo-seed4-game0-greedy-weed-random.txt",
                  replay_text("vorex", config, 1, 4, 0, ["greedy", "random"]) + "\n")
