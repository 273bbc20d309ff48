"""glade tune: parameters and tune files, bad input, the search on a game whose fair setting is known,
resuming, --json, confirmation deals, and the same result on any --jobs.

The coin game below is the toy race's config with another engine: one toss,
seat 0 wins with probability ``s / (s + 8)`` where ``s`` is ``race.die_sides``.
Seats are balanced exactly at ``s = 8``; the nearest other values are more than
2.5 points off (7/15 = 46.7%, 9/17 = 52.9%), so a tune within +-2.5 points has
exactly one right answer.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import polars as pl
import pytest

from analysis import tune
from sims.core.engine import BatchedEngine, BatchedState, GameResults
from sims.core.rng import uniforms
from sims.records import load_records
from sims.registry import register
from tests import toy_game
from tests.cli_helpers import glade, one_error_line

FAIR_SIDES = 8


class CoinEngine(BatchedEngine):
    """One decision by seat 0, then the toss: seat 0 wins with probability die_sides / (die_sides + 8)."""

    num_actions = 1
    end_reasons = ("", "toss", "stall")

    def __init__(self, config, players: int):
        self.config, self.players = config, players

    def init(self, seeds: np.ndarray) -> BatchedState:
        size = seeds.shape[0]
        return BatchedState(seeds=seeds, done=np.zeros(size, bool), to_move=np.zeros(size, np.int8),
                            turn=np.zeros(size, np.int32), end=np.zeros(size, np.int8),
                            decisions=np.zeros(size, np.int32))

    def legal_mask(self, state: BatchedState) -> np.ndarray:
        return ~state.done[:, None]

    def step(self, state: BatchedState, actions: np.ndarray) -> None:
        active = ~state.done
        state.turn[active] += 1
        state.done |= active
        state.end[active] = 1

    def results(self, state: BatchedState) -> GameResults:
        sides = self.config.die_sides
        first = uniforms(state.seeds, "coin", 0)[:, 0] < sides / (sides + FAIR_SIDES)
        rank = np.where(first[:, None], [1, 2], [2, 1]).astype(np.int8)
        return GameResults(score=(rank == 1).astype(np.float64), rank=rank, end=state.end.copy(),
                           turns=state.turn.copy(), seat_columns={}, game_columns={})

    def snapshot(self, state: BatchedState, game: int) -> dict:
        return {"done": bool(state.done[game])}


COIN = dataclasses.replace(toy_game.GAME, name="coin", title="Biased coin (test game)", player_counts=(2,),
                           batched=lambda config, players: CoinEngine(config, players))
register(COIN)


class StallCoinEngine(CoinEngine):
    """A fair toss (seat 0 wins half the decided games) that stalls in (race.goal - 3)% of games; with race.bump
    those games end ``blocked`` instead (no seat can move: ended at once and scored, a fair toss too)."""

    end_reasons = ("", "toss", "stall", "blocked")

    def results(self, state: BatchedState) -> GameResults:
        u = uniforms(state.seeds, "coin", 0, slots=2)
        first = u[:, 0] < 0.5
        rank = np.where(first[:, None], [1, 2], [2, 1]).astype(np.int8)
        unfinished = u[:, 1] < (self.config.goal - 3) / 100
        end = np.where(unfinished, 3 if self.config.bump else 2, 1).astype(np.int8)
        if not self.config.bump:
            rank[unfinished] = 0
        return GameResults(score=(rank == 1).astype(np.float64), rank=rank, end=end, turns=state.turn.copy(),
                           seat_columns={}, game_columns={})


register(dataclasses.replace(COIN, name="stallcoin", title="Fair coin that stalls (test game)",
                             batched=lambda config, players: StallCoinEngine(config, players)))


def _coin(params: str, **options) -> tune.Study:
    options = {"budget": 20_000, "confirm": 3000, "start": 128, **options}
    return tune.make_study("coin", ["random", "random"], None, [tune.parse_param(params)], 5, **options)


@pytest.fixture(scope="module")
def bisected(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "coin"
    return out, tune.run_tune(_coin("race.die_sides=2..16"), out)


# ---------------------------------------------------------------- parameters and files


def test_parameters_parse_as_ranges_and_choices():
    flowers = tune.parse_param("rules.flowers=15..45:10")
    assert flowers.key == "rules.flowers" and flowers.values == (15, 25, 35, 45) and flowers.ordered
    assert tune.parse_param("race.goal=3..5").values == (3, 4, 5)
    assert tune.parse_param("a.b=0.1..0.3:0.1").values == (0.1, 0.2, 0.3)
    assert len(tune.parse_param("a.b=0.0..1.0").values) == 9  # a real range without a step: 9 values
    choice = tune.parse_param("board.rows=5|7|9")
    assert choice.values == (5, 7, 9) and not choice.ordered
    assert tune.parse_param("track.kind=short|long").values == ("short", "long")


def test_the_shipped_study_parses_into_its_candidates():
    settings = tune.read_tune_file("configs/tune/overgrowth-board-flowers.toml")
    study = tune.make_study(settings.pop("game"), settings.pop("bots"), settings.pop("players", None),
                            settings.pop("params"), settings.pop("seed"), **settings)
    assert len(study.candidates) == 3 * 2 * 3 and study.turns == (16.0, 40.0) and study.delta == 0.025
    assert study.candidates[-1].id == "rules.flowers=45,rules.overgrow_sides=2,board=9x5"
    assert study.candidates[-1].overrides == ("rules.flowers=45", "rules.overgrow_sides=2", "board.rows=9",
                                              "board.columns=5")
    assert len(tune.candidate_configs(study)) == 18


@pytest.mark.parametrize("args, fragments", [
    (["--param", "race.goal=9..3"], ["--param", "LO..HI[:STEP]", "race.goal=9..3"]),
    (["--param", "race.goal=3..9:0"], ["--param", "STEP > 0"]),
    (["--param", "race.goals=3..9"], ["race.goals", "a key of"]),
    (["--param", "race.goal=3..9", "--target", "fun"], ["--target", "seat-balance", "fun"]),
    (["--param", "race.goal=3..9", "--turns", "40..10"], ["--turns", "LO..HI"]),
    (["--param", "race.goal=1..4"], ["race.goal", "an integer from 3"]),
    ([], ["--param", "at least one"]),
])
def test_bad_input_is_one_error_line(tmp_path, args, fragments):
    result = glade("tune", "toy", "--bots", "greedy,greedy", "--seed", 1, "--out", tmp_path / "t", *args)
    one_error_line(result, *fragments)


def test_a_bad_tune_file_names_the_file_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text('game = "toy"\nbots = ["greedy", "greedy"]\nseed = 1\n[params]\n"race.goal" = "x..y"\n')
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), 'params."race.goal"')
    path.write_text('game = "toy"\nbots = ["greedy", "greedy"]\nseed = 1\nbudgets = 5\n')
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), "budgets")


# ---------------------------------------------------------------- the search


def test_bisection_finds_the_known_fair_setting_and_confirms_it(bisected):
    out, result = bisected
    data = result.data
    assert data["best"]["set"] == {"race.die_sides": FAIR_SIDES}
    assert data["bracket"]["kept"][0] != data["bracket"]["kept"][-1]
    assert result.verdict == "balanced"
    seats = data["confirmation"]["seats"]
    assert all(s["low"] < 0.5 < s["high"] for s in seats)
    # bisection looks at a handful of the 15 values, not all of them
    looked = {entry["candidate"] for entry in data["path"]}
    assert len(looked) <= 6
    assert data["games"]["search"] <= 20_000


def test_a_range_without_the_fair_value_picks_the_nearest_end_and_says_unbalanced(tmp_path):
    result = tune.run_tune(_coin("race.die_sides=2..7"), tmp_path / "low")
    assert result.data["best"]["set"] == {"race.die_sides": 7}  # 7/15 is the closest to 50% below it
    assert result.verdict == "unbalanced"
    assert "no setting in range is shown balanced" in tune.format_tune(result.data)


def test_racing_over_choices_drops_the_clearly_worse(tmp_path):
    result = tune.run_tune(_coin("race.die_sides=2|8|16", budget=6000), tmp_path / "race")
    data = result.data
    assert data["best"]["id"] == "race.die_sides=8"
    dropped = {d["candidate"] for d in data["dropped"]}
    assert dropped == {"race.die_sides=2", "race.die_sides=16"}  # 20% and 66.7%: far from 50%
    assert all(d["phase"] == "race" for d in data["dropped"])


def test_confirmation_deals_are_disjoint_from_the_search(bisected):
    out, result = bisected
    confirm = load_records(out / "confirm" / result.data["best"]["id"])
    searched = pl.concat([load_records(p).select("seed") for p in (out / "candidates").iterdir()])
    assert result.data["confirmation"]["disjoint"] is True
    assert not set(confirm["seed"].to_list()) & set(searched["seed"].to_list())
    assert confirm["deal"].n_unique() == 3000


def test_resuming_gives_the_same_result(bisected, tmp_path):
    out, first = bisected
    again = tune.run_tune(_coin("race.die_sides=2..16"), out)
    assert again.played == 0
    strip = lambda d: {k: v for k, v in d.items() if k not in ("updated", "created", "versions")}  # noqa: E731
    assert strip(again.data) == strip(first.data)
    # an interrupted search: the confirmation and the last chunk of a candidate lost
    import shutil
    shutil.rmtree(out / "confirm")
    chunks = sorted((out / "candidates" / "race.die_sides=8" / "records").iterdir())
    chunks[-1].unlink()
    resumed = tune.run_tune(_coin("race.die_sides=2..16"), out)
    assert resumed.played > 0 and strip(resumed.data) == strip(first.data)


def test_a_different_study_on_the_same_directory_is_refused(bisected):
    out, _ = bisected
    with pytest.raises(tune.ConfigError, match="delta"):
        tune.run_tune(_coin("race.die_sides=2..16", delta=0.05), out)


def test_json_shape(tmp_path):
    result = glade("tune", "coin", "--bots", "random,random", "--param", "race.die_sides=2|8", "--seed", 3,
                   "--budget", 2000, "--confirm", 500, "--start", 64, "--out", tmp_path / "j", "--json",
                   "--no-progress", "--mean", "score=0.4..0.6")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["best"] == {"race.die_sides": 8}
    assert data["verdict"] in tune.VERDICTS
    assert [s["seat"] for s in data["seats"]] == [0, 1]
    assert all(s["low"] <= s["share"] <= s["high"] for s in data["seats"])
    assert data["games"]["total"] == data["games"]["search"] + data["games"]["confirm"]
    assert data["games"]["confirm"] == 500
    stalls, mean = data["confirmation"]["targets"]
    assert stalls["target"] == "stalls and blocked games" and stalls["verdict"] == "within"
    assert mean["target"] == "mean score" and mean["estimate"] == 0.5 and mean["verdict"] == "inside"


def test_an_unknown_mean_column_is_one_error_line(tmp_path):
    result = glade("tune", "coin", "--bots", "random,random", "--param", "race.die_sides=2|8", "--seed", 3,
                   "--budget", 500, "--start", 64, "--out", tmp_path / "m", "--mean", "points=1..2", "--no-progress")
    one_error_line(result, "--mean", "points", "a numeric records column", "score")


def test_same_result_on_any_jobs_and_batch_size(tmp_path):
    common = dict(budget=600, confirm=200, start=64, turns=(3.0, 12.0))
    study = tune.make_study("toy", ["greedy", "random"], None, [tune.parse_param("race.goal=8|16")], 2, **common)
    one = tune.run_tune(study, tmp_path / "one", jobs=1, batch_size=4096)
    two = tune.run_tune(study, tmp_path / "two", jobs=2, batch_size=50)
    for key in ("path", "dropped", "best", "games"):
        assert one.data[key] == two.data[key]
    assert one.data["confirmation"]["seats"] == two.data["confirmation"]["seats"]
    assert [t["target"] for t in one.data["confirmation"]["targets"]] == ["stalls and blocked games", "turns"]


def test_three_players_have_three_seats_and_a_sequence_each(tmp_path):
    study = tune.make_study("toy", ["greedy"], 3, [tune.parse_param("race.goal=8|16")], 4, budget=800, confirm=100,
                            start=64)
    data = tune.run_tune(study, tmp_path / "three").data
    assert [s["seat"] for s in data["confirmation"]["seats"]] == [0, 1, 2]
    assert all(len(entry["share"]) == 3 and abs(sum(entry["share"]) - 1) < 1e-9 for entry in data["path"])
    assert data["drop_rule"]["tests"] == 2 * (3 + 1)  # two candidates, a sequence per seat and one for stalls


def test_report_of_a_tune_directory(bisected, tmp_path):
    out, _ = bisected
    result = glade("report", out, "--html", "--out", tmp_path / "report")
    assert result.exit_code == 0, result.output
    html = (tmp_path / "report" / "report.html").read_text()
    assert "Search path" in html and "Confirmation" in html and "balanced" in html
    assert "race.die_sides=8" in html


# ---------------------------------------------------------------- stalls, blocked games, the length band, --set


def _stall_study(params: str, **options) -> tune.Study:
    options = {"budget": 12_000, "confirm": 3000, "start": 256, "delta": 0.05, **options}
    return tune.make_study("stallcoin", ["random", "random"], None, [tune.parse_param(params)], 5, **options)


@pytest.mark.parametrize("bump, reason", [(False, "stalls"), (True, "blocked")])
def test_a_setting_that_stalls_is_never_balanced(tmp_path, bump, reason):
    """Every candidate is a fair toss; 5-6% of games stall (or end blocked): the seats are balanced, the setting
    is not, and the verdict and the printed lines say why with the rates."""
    study = _stall_study("race.goal=8|9", base=(f"race.bump={str(bump).lower()}",))
    data = tune.run_tune(study, tmp_path / reason).data
    c = data["confirmation"]
    assert c["seat_verdict"] == "balanced"
    assert c["verdict"] == "rejected"
    (stalls,) = [t for t in c["targets"] if t["target"] == "stalls and blocked games"]
    assert stalls["verdict"] == "over" and 0.04 < stalls["estimate"] < 0.08
    assert (stalls["blocked"] if bump else stalls["stalls"]) == stalls["estimate"]
    text = tune.format_tune(data)
    assert "verdict: rejected" in text and "verdict: balanced" not in text
    assert "stall or end blocked, over the 1% limit" in text
    assert f"{'blocked' if bump else 'stalls'} {100 * stalls['estimate']:.2f}%" in text


def test_the_search_drops_a_candidate_that_stalls_and_keeps_the_one_that_does_not(tmp_path):
    data = tune.run_tune(_stall_study("race.goal=3|9"), tmp_path / "drop").data
    assert data["best"]["id"] == "race.goal=3"
    (drop,) = data["dropped"]
    assert drop["candidate"] == "race.goal=9" and drop["phase"] == "stalls"
    assert "stall or end blocked" in drop["reason"]
    assert data["confirmation"]["verdict"] == "balanced"


def test_max_stalls_is_a_tune_file_key_and_an_option(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('game = "stallcoin"\nbots = ["random", "random"]\nseed = 5\nmax_stalls = 0.1\ndelta = 0.05\n'
                    'budget = 4000\nconfirm = 3000\nstart = 256\n[params]\n"race.goal" = "8|9"\n')
    settings = tune.read_tune_file(path)
    assert settings["max_stalls"] == 0.1
    result = glade("tune", path, "--out", tmp_path / "t", "--no-progress", "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["verdict"] == "balanced"  # 5-6% stalls are within a 10% limit
    result = glade("tune", path, "--max-stalls", 0.02, "--out", tmp_path / "u", "--no-progress", "--json")
    assert json.loads(result.stdout)["verdict"] == "rejected"
    one_error_line(glade("tune", path, "--max-stalls", 1.5, "--out", tmp_path / "v"), "--max-stalls", "0<x<1")


def _two_rotations(deals: int, short_both: int) -> pl.DataFrame:
    """Records of ``deals`` deals of two rotated games each: every deal has one game of 5 turns and one of 20,
    except ``short_both`` deals whose two games both last 5: a little more than half the games are short."""
    rows = []
    for deal in range(deals):
        for rotation in range(2):
            turns = 5 if rotation == 0 or deal < short_both else 20
            game = deal * 2 + rotation
            for seat in range(2):
                win = (seat + deal + rotation) % 2 == 0
                rows.append({"game": game, "deal": deal, "rotation": rotation, "seed": deal, "seat": seat,
                             "bot": "greedy", "score": float(win),
                             "rank": 1 if win else 2, "win": win, "tie": False, "turns": turns, "end": "toss"})
    return pl.DataFrame(rows)


def test_the_turns_check_counts_games_by_deal_not_deals_with_most_games_short(tmp_path):
    """52% of the games are shorter than the band, spread one per deal: the old check counted deals whose share of
    short games is above one half (none of the single short games) and said inside."""
    records = _two_rotations(400, 16)
    study = tune.make_study("toy", ["greedy", "greedy"], None, [tune.parse_param("race.goal=8|16")], 2,
                            turns=(10.0, 40.0))
    (turns,) = [t for t in tune.confirmation(records, study)["targets"] if t["target"] == "turns"]
    assert turns["verdict"] == "outside"
    assert abs(turns["estimate"] - 0.48) < 1e-9 and turns["high"] < 0.75


def test_the_best_setting_prints_as_set_values_that_glade_play_takes(tmp_path):
    path = tmp_path / "named.toml"
    path.write_text('game = "coin"\nbots = ["random", "random"]\nseed = 5\nbudget = 3000\nconfirm = 500\n'
                    'start = 128\n[params.race]\nfair = { die_sides = 8, goal = 9 }\nlow = { die_sides = 2 }\n')
    result = glade("tune", path, "--out", tmp_path / "t", "--no-progress")
    assert result.exit_code == 0, result.output
    (line,) = [x for x in result.stdout.splitlines() if x.startswith("the setting, for glade play: ")]
    assert line.endswith("--set race.die_sides=8 --set race.goal=9")
    data = tune.load_tune(tmp_path / "t")
    assert tune.tune_json(data)["best_set"] == ["race.die_sides=8", "race.goal=9"]
    args = line.removeprefix("the setting, for glade play: ").split()
    played = glade("play", "coin", "--games", 10, "--seed", 1, "--bots", "random,random", *args,
                   "--out", tmp_path / "p", "--json")
    assert played.exit_code == 0, played.output
    confirm = json.loads((tmp_path / "t" / "confirm" / "race=fair" / "manifest.json").read_text())
    assert json.loads(played.stdout)["config_hash"] == confirm["config_hash"]
    report = glade("report", tmp_path / "t", "--html", "--out", tmp_path / "r")
    assert report.exit_code == 0, report.output
    assert report.stdout.startswith("headline: verdict ")
    assert "--set race.die_sides=8 --set race.goal=9" in report.stdout
    assert "--set race.die_sides=8 --set race.goal=9" in (tmp_path / "r" / "report.html").read_text()
