"""Games that seat an opponent of their own (a solo game's house seat, like Vorex's weed)."""

import numpy as np
import pytest

from sims.core.spec import ConfigError
from sims.runner import load_records, run
from sims.runspec import RunSpec
from sims.verify import verify


def test_solo_run_fills_the_house_seat_and_records_both_seats(tmp_path, toy_config):
    summary = run(RunSpec("toy-solo", toy_config, ["random"], 1, 3, rotate_seats=True), 20, tmp_path / "solo",
                  progress=False)
    records = load_records(tmp_path / "solo")
    assert summary.rotations == 1  # nothing to rotate with one player
    assert summary.manifest["bots"] == ["random", "greedy"]
    assert records.height == 40
    assert records.filter(records["seat"] == 1)["bot"].unique().to_list() == ["greedy"]


def test_solo_run_takes_the_house_bot_from_the_command_line(tmp_path, toy_config):
    run(RunSpec("toy-solo", toy_config, ["greedy", "random"], 1, 3), 10, tmp_path / "named", progress=False)
    records = load_records(tmp_path / "named")
    assert records.filter(records["seat"] == 1)["bot"].unique().to_list() == ["random"]


def test_rotation_at_two_players_leaves_no_seat_out(tmp_path, toy_config):
    summary = run(RunSpec("toy-solo", toy_config, ["greedy", "random"], 2, 3, rotate_seats=True), 10, tmp_path / "duo",
                  progress=False)
    assert summary.manifest["lineups"] == [["greedy", "random"], ["random", "greedy"]]


def test_wrong_number_of_bots_names_both_allowed_counts(tmp_path, toy_config):
    with pytest.raises(ConfigError, match=r"1 comma-separated bots \(players\), or 2"):
        run(RunSpec("toy-solo", toy_config, ["random"] * 3, 1, 3), 10, tmp_path / "bad", progress=False)


def test_verify_plays_every_lineup_of_both_seats(toy_config):
    report = verify("toy-solo", toy_config, 1, games=40, seed=2)
    assert report.mismatches == 0
    assert len(report.lineups) == 4  # random/greedy in each of the two seats


def test_bots_that_play_any_seat_share_one_call_per_step(toy_config):
    """The play loop asks one bot for every seat that bots of its class and weights fill."""
    from sims.core.play import seat_groups
    from sims.registry import get_game
    from tests.toy_game import GreedyBot, RandomBot

    engine = get_game("toy").batched(toy_config, 3)

    class AnySeat(RandomBot):
        plays_any_seat = True

    groups = seat_groups([AnySeat(engine, 0), GreedyBot(engine, 1), AnySeat(engine, 2)])
    assert [(type(group.bot).__name__, group.seats.tolist()) for group in groups] == [("AnySeat", [0, 2]),
                                                                                      ("GreedyBot", [1])]
    state = engine.init(np.arange(3, dtype=np.uint64))
    state.to_move[:] = [0, 1, 2]
    active = np.array([True, True, False])
    assert groups[0].movers(state, active).tolist() == [True, False, False]
    assert groups[1].movers(state, active).tolist() == [False, True, False]
    different = seat_groups([AnySeat(engine, 0, {"w": 1.0}), AnySeat(engine, 1, {"w": 2.0})])
    assert [group.seats.tolist() for group in different] == [[0], [1]]
    every_seat = seat_groups([AnySeat(engine, seat) for seat in range(3)])[0]
    assert every_seat.movers(state, active) is active
