"""Drama from trajectories (analysis.drama) on synthetic games whose answers are known."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest

from analysis import drama

# Per game: seat 0's and seat 1's score at each round end (the last is the game's end) and the ranks.
TWO_CHANGES = ([1, 1, 2, 3, 5], [0, 2, 2, 2, 2], (1, 2))  # seat 0 leads, seat 1 leads, tie, seat 0 again
WIRE = ([1, 2, 2, 4], [0, 1, 2, 2], (1, 2))  # seat 0 never behind (a tie is not behind)
COMEBACK = ([0, 0, 2, 5], [1, 3, 3, 3], (1, 2))  # seat 1 leads three rounds, seat 0 wins
SHARED = ([1, 2], [1, 2], (1, 1))  # a shared first place: no winner to judge


def _frames(games: list[tuple], deals: list[int] | None = None) -> tuple[pl.DataFrame, pl.DataFrame]:
    deals = deals if deals is not None else list(range(len(games)))
    records, rows = [], []
    for game, (seat0, seat1, ranks) in enumerate(games):
        for seat, (values, rank) in enumerate(zip((seat0, seat1), ranks)):
            records.append({"game": game, "deal": deals[game], "seat": seat, "rank": rank,
                            "score": float(values[-1])})
            rows += [{"game": game, "round": r + 1, "seat": seat, "value": float(v)} for r, v in enumerate(values)]
    return pl.DataFrame(records), pl.DataFrame(rows).sort("game", "round", "seat")


def test_lead_changes_comebacks_and_wire_to_wire_of_known_games():
    records, trajectories = _frames([TWO_CHANGES, WIRE, COMEBACK, SHARED])
    table = drama.per_game(records, trajectories)
    assert table["lead_changes"].to_list() == [2, 0, 1, 0]
    assert table["rounds"].to_list() == [5, 4, 4, 2]
    assert table["winner"].to_list() == [0, 0, 0, -1]
    # half time is round rounds // 2: round 2 (1 v 2, behind), round 2 (2 v 1), round 2 (0 v 3, behind)
    assert table["comeback"].to_list() == [True, False, True, None]
    assert table["wire_to_wire"].to_list() == [False, True, False, None]
    found = drama.course(records, trajectories)
    assert found.games == 4 and found.decided == 3
    assert found.lead_changes.mean == pytest.approx(3 / 4)
    assert found.comeback.k == 2 and found.comeback.n == 3
    assert found.wire_to_wire.k == 1 and found.with_change.k == 2


def test_a_winner_in_seat_one_is_judged_from_its_own_scores():
    records, trajectories = _frames([(COMEBACK[1], COMEBACK[0], (2, 1))])  # the comeback game, seats swapped
    table = drama.per_game(records, trajectories)
    assert table["winner"].to_list() == [1] and table["comeback"].to_list() == [True]
    assert table["lead_changes"].to_list() == [1]


def test_by_deal_intervals_are_wider_than_counting_rotated_games_as_independent():
    # 40 deals of two rotated games with the same course: 80 games but 40 independent units
    pairs = [game for deal in range(40) for game in ((COMEBACK, COMEBACK) if deal % 2 else (WIRE, WIRE))]
    records, trajectories = _frames(pairs, [g // 2 for g in range(80)])
    found = drama.course(records, trajectories)
    assert found.comeback.rate == pytest.approx(0.5) and "by deal" in found.comeback.method
    games_only = drama.course(records.with_columns(pl.col("game").alias("deal")), trajectories)
    assert games_only.comeback.method == "Wilson"
    ratio = (found.comeback.high - found.comeback.low) / (games_only.comeback.high - games_only.comeback.low)
    assert 1.25 < ratio < 1.6  # about sqrt(2): half the units
    assert "by deal" in found.lead_changes.method and found.lead_changes.n == 40


def test_score_bands_are_quartiles_of_the_games_still_running():
    records, trajectories = _frames([WIRE, COMEBACK, TWO_CHANGES])
    bands = drama.score_bands(trajectories, min_share=0.5)
    seat0 = bands.filter(pl.col("seat") == 0)
    assert seat0["round"].to_list() == [1, 2, 3, 4]  # round 5: one game of three (below half)
    row = seat0.filter(pl.col("round") == 4).row(0, named=True)
    assert row["games"] == 3 and row["median"] == 4.0
    assert row["q25"] == pytest.approx(np.quantile([4, 5, 3], 0.25))


def test_bands_per_bot_separate_what_rotated_seats_mix():
    # Seats rotate: greedy sits in seat 0 in games 0 and 2, in seat 1 in games 1 and 3.
    greedy = [[2, 4, 6], [3, 5, 7], [2, 4, 8], [3, 6, 9]]
    random = [[0, 1, 1], [1, 1, 2], [0, 0, 1], [1, 2, 2]]
    records, rows = [], []
    for game in range(4):
        lineup = [("greedy", greedy[game]), ("random", random[game])][:: 1 if game % 2 == 0 else -1]
        for seat, (bot, values) in enumerate(lineup):
            records.append({"game": game, "deal": game // 2, "seat": seat, "bot": bot, "rank": 1 + (bot == "random"),
                            "score": float(values[-1])})
            rows += [{"game": game, "round": r + 1, "seat": seat, "value": float(v)} for r, v in enumerate(values)]
    records, trajectories = pl.DataFrame(records), pl.DataFrame(rows)
    found = drama.course(records, trajectories)
    seat0 = found.bands.filter((pl.col("seat") == 0) & (pl.col("round") == 3)).row(0, named=True)
    assert seat0["median"] == pytest.approx(np.median([6, 2, 8, 2]))  # 4.0: between the two bots
    by_bot = found.bot_bands.filter(pl.col("round") == 3).sort("bot")
    assert by_bot["bot"].to_list() == ["greedy", "random"] and by_bot["games"].to_list() == [4, 4]
    assert by_bot["median"].to_list() == pytest.approx([7.5, 1.5])
    assert by_bot["q25"].to_list() == pytest.approx([6.75, 1.0]) and by_bot["q75"].to_list() == pytest.approx([8.25, 2.0])
    assert found.bot_bands["round"].to_list() == [1, 2, 3, 1, 2, 3]
    one_bot = records.with_columns(pl.lit("greedy").alias("bot"))
    assert drama.course(one_bot, trajectories).bot_bands is None  # one bot: the seat bands say it all


def test_no_trajectories_no_course():
    records, _ = _frames([WIRE])
    assert drama.course(records, None) is None


# ---------------------------------------------------------------- trajectories written by a run


def test_a_run_with_trajectories_records_each_round_and_ends_on_the_final_score(tmp_path):
    from sims.records import load_records, load_trajectories
    from sims.registry import get_game
    from sims.runner import run
    from sims.runspec import RunSpec

    config = get_game("overgrowth").load_config(None, ())
    for batch in (5, 3):
        run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 7, rotate_seats=True, trajectories=True), 5,
            tmp_path / str(batch), batch_size=batch, progress=None)
    trajectories = load_trajectories(tmp_path / "5")
    assert trajectories.equals(load_trajectories(tmp_path / "3"))  # the same on any batch size
    records = load_records(tmp_path / "5")
    last = trajectories.group_by("game", "seat").agg(pl.col("value").last(), pl.col("round").max())
    joined = records.join(last, on=["game", "seat"])
    assert joined.height == records.height == 20
    assert (joined["value"] == joined["score"]).all()  # the last round is the game's end
    # two seats: a round is two turns, the last one possibly half
    assert (joined["round"] == (joined["turns"] + 1) // 2).all()
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 7), 5, tmp_path / "plain", progress=None)
    assert load_trajectories(tmp_path / "plain") is None  # opt-in


def test_trajectories_resume_like_records(tmp_path):
    """A chunk whose records file is gone is played again with its trajectories; a resume keeps the option."""
    from sims.records import load_manifest, load_trajectories
    from sims.registry import get_game
    from sims.runner import run
    from sims.runspec import RunSpec

    config = get_game("overgrowth").load_config(None, ())
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 9, trajectories=True), 6, tmp_path / "whole",
        batch_size=3, progress=None)
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 9, trajectories=True), 6, tmp_path / "cut", batch_size=3,
        progress=None)
    (tmp_path / "cut" / "records" / "r0-000000003-000000006.parquet").unlink()  # stopped between the writes
    run(RunSpec("overgrowth", config, ["greedy", "random"], 2, 9), 6, tmp_path / "cut", batch_size=3, progress=None)
    assert load_manifest(tmp_path / "cut")["trajectories"] is True
    assert load_trajectories(tmp_path / "cut").equals(load_trajectories(tmp_path / "whole"))


def test_the_seat_gap_per_round_shows_when_seat_zero_pulls_ahead():
    """Seat 0 level with seat 1 for two rounds, then ahead by 1, 2, 3 points (plus noise that averages out): the
    gap is 0 at rounds 1-2, and round 3 is the first whose interval excludes 0. Three seats: seat 0 less the mean
    of the other two."""
    from analysis.stats.trajectory import first_clear_round, seat_gap

    rng = np.random.default_rng(4)
    records, rows = [], []
    for game in range(60):
        noise = rng.choice([-0.5, 0.5])
        for seat in range(3):
            lead = [0, 0, 1, 2, 3] if seat == 0 else [0, 0, 0, 0, 0]
            values = [10 * r + lead[r] + (noise if seat == 1 else -noise if seat == 2 else 0) for r in range(5)]
            records.append({"game": game, "deal": game, "seat": seat, "rank": 1 if seat == 0 else 2,
                            "score": values[-1]})
            rows += [{"game": game, "round": r + 1, "seat": seat, "value": float(v)} for r, v in enumerate(values)]
    gap = seat_gap(pl.DataFrame(records), pl.DataFrame(rows))
    assert gap["round"].to_list() == [1, 2, 3, 4, 5] and gap["games"].to_list() == [60] * 5
    assert gap["mean"].to_list() == pytest.approx([0, 0, 1, 2, 3])
    assert first_clear_round(gap)["round"] == 3
    found = drama.course(pl.DataFrame(records), pl.DataFrame(rows))
    assert found.gap["mean"].to_list() == pytest.approx([0, 0, 1, 2, 3])


def test_the_seat_gap_counts_deals_not_rotated_copies():
    """The same games twice as rotations of one deal: the interval is as wide as with one game a deal."""
    from analysis.stats.trajectory import seat_gap

    records, trajectories = _frames([COMEBACK, WIRE, TWO_CHANGES] * 10)
    doubled_records, doubled = _frames([COMEBACK, WIRE, TWO_CHANGES] * 10 * 2, [g % 30 for g in range(60)])
    once, twice = seat_gap(records, trajectories), seat_gap(doubled_records, doubled)
    assert twice["mean"].to_list() == pytest.approx(once["mean"].to_list())
    width = (once["high"] - once["low"]).to_numpy()
    varied = width > 0  # round 5: only one kind of game runs that long, every gap the same
    assert varied.sum() == 4
    assert ((twice["high"] - twice["low"]).to_numpy()[varied] / width[varied]) == pytest.approx(1, abs=0.1)
