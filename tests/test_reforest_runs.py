"""Reforest end to end: verify for every player count, reproducible records, golden playthroughs."""

import pytest
from polars.testing import assert_frame_equal

from sims.reforest import GAME
from sims.replay import replay_text
from sims.runner import load_events, load_records, run
from sims.verify import verify
from tests.golden_files import assert_golden


@pytest.fixture(scope="module")
def config():
    return GAME.load_config()


@pytest.mark.parametrize("players", [1, 2])
def test_verify_every_lineup_of_random_and_greedy(config, players):
    report = verify("reforest", config, players, games=300, seed=17, jobs=2)
    assert report.games == 300 and report.ok, report.format()


@pytest.mark.parametrize("players", [3, 4])
def test_verify_random_play_and_a_greedy_mix(config, players):
    report = verify("reforest", config, players, games=300, seed=19, bot_labels=["random"] * players, jobs=2)
    assert report.games == 300 and report.ok, report.format()
    mixed = ["greedy"] + ["random"] * (players - 1)
    report = verify("reforest", config, players, games=30, seed=23, bot_labels=mixed)
    assert report.ok, report.format()


def test_records_do_not_depend_on_batch_size(tmp_path, config):
    bots = ["greedy", "random"]
    for batch_size in (1, 5, 16):
        run("reforest", config, bots, 2, 6, 16, tmp_path / str(batch_size), batch_size=batch_size,
            rotate_seats=True, progress=False)
    for batch_size in (1, 5):
        assert_frame_equal(load_records(tmp_path / str(batch_size)), load_records(tmp_path / "16"))
        assert_frame_equal(load_events(tmp_path / str(batch_size)), load_events(tmp_path / "16"))
    records = load_records(tmp_path / "16")
    parts = [c for c in records.columns if c.startswith("points_")]
    assert (records.select(parts).sum_horizontal() == records["score"]).all()


def test_golden_two_player_playthrough(config):
    assert_golden("reforest-seed2-game1-greedy-random.txt",
                  replay_text("reforest", config, 2, 2, 1, ["greedy", "random"], rotate_seats=True) + "\n")


def test_golden_solitaire_playthrough(config):
    assert_golden("reforest-solitaire-seed3-game0-greedy.txt",
                  replay_text("reforest", config, 1, 3, 0, ["greedy"]) + "\n")
