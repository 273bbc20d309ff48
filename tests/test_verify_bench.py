"""verify and bench as a library, on the toy game."""

from __future__ import annotations

import numpy as np

from sims.bench import affordable_batch, bench, format_bench, median_seconds
from sims.core.rng import game_seeds
from sims.verify import default_lineups, verify
from tests import toy_game


def test_default_lineups_mix_the_reference_backed_bots():
    assert default_lineups(toy_game.GAME, 2) == [("random", "random"), ("random", "greedy"),
                                                ("greedy", "random"), ("greedy", "greedy")]


def test_verify_agrees_on_every_lineup(toy_config):
    report = verify("toy", toy_config, 3, 160, seed=4, batch_size=50)
    assert report.ok and report.games == 160 and len(report.lineups) == 8
    assert report.format().startswith("160 games, 0 mismatches")


def test_verify_reports_the_first_mismatch_in_detail(toy_config, monkeypatch):
    original = toy_game.RaceGame.legal_actions
    monkeypatch.setattr(toy_game.RaceGame, "legal_actions",
                        lambda self: [a for a in original(self) if a != toy_game.LEAP])  # the reference forbids leaps
    report = verify("toy", toy_config, 2, 200, seed=4)
    assert not report.ok and report.first is not None
    first = report.first
    assert first.game == report.mismatched_games[0] and first.decision is not None
    assert "legal action sets differ" in first.what
    assert len(first.actions) == first.decision + 1
    assert "after" in first.position


def test_verify_catches_a_wrong_result(toy_config, monkeypatch):
    original = toy_game.RaceGame.result

    def result(self):
        outcome = original(self)
        outcome["seat_columns"]["leaps"] = [0] * self.players
        return outcome

    monkeypatch.setattr(toy_game.RaceGame, "result", result)
    report = verify("toy", toy_config, 2, 100, seed=4)
    assert report.mismatches > 0 and report.first.decision is None
    assert "seat_columns.leaps" in report.first.what


BENCH_KEYS = {"batched_random_gps", "random_decisions_per_s", "batched_greedy_gps", "batched_planner_gps",
              "reference_random_gps", "reference_greedy_gps", "ratio_random", "ratio_greedy", "game", "players",
              "batch_size", "planner_batch_size", "batch_sizes", "repeats", "reference_games", "compile_seconds",
              "warm_up_seconds", "numpy", "python", "numba", "greedy_decisions_per_s", "planner_decisions_per_s",
              "reference_decisions", "budget_seconds", "clocks", "seed"}


def test_bench_reports_both_engines(toy_config):
    result = bench("toy", toy_config, 2, batch_size=32, repeats=2, reference_games=4)
    assert set(result) >= BENCH_KEYS - {"batched_planner_gps", "planner_decisions_per_s"}  # the toy has no planner
    assert result["ratio_greedy"] > 0 and result["random_decisions_per_s"] > result["batched_random_gps"]
    assert result["batch_sizes"] == {"random": 32, "greedy": 32}
    assert result["repeats"] == {"random": 2, "reference_random": 2, "greedy": 2, "reference_greedy": 2}
    assert set(result["warm_up_seconds"]) == {"random", "greedy"} and result["compile_seconds"] >= 0
    assert "decisions/s" in format_bench(result)


def test_bench_times_the_planner_on_its_own_batch():
    from sims.registry import get_game

    result = bench("overgrowth", get_game("overgrowth").load_config(None, ()), 2, batch_size=8, repeats=1, reference_games=1,
                   kinds=("planner",), planner_batch_size=2)
    assert result["batch_sizes"] == {"planner": 2} and result["repeats"] == {"planner": 1}
    assert result["batched_planner_gps"] > 0 and result["reference_planner_gps"] is None
    assert result["ratio_planner"] is None


def test_bench_without_repeats_stops_when_the_time_budget_is_spent(monkeypatch):
    import sims.bench

    clock = iter(range(0, 100))
    monkeypatch.setattr(sims.bench.time, "process_time", lambda: float(next(clock)))
    assert median_seconds(lambda: None, None, budget=2.5) == (1.0, 3)
    assert median_seconds(lambda: None, 4, budget=2.5) == (1.0, 4)


def test_a_bot_too_slow_for_the_budget_plays_the_batch_that_fits():
    """Batches grow 4x while the last run's cost per deal says the next fits the budget."""
    def timed(per_deal: float, per_run: float = 0.0):
        played = []

        def seconds_of(n: int) -> float:
            played.append(n)
            return per_run + per_deal * n
        return seconds_of, played

    seconds_of, played = timed(0.001)
    assert affordable_batch(seconds_of, 1024, 1, budget=1.5) == (1024, 1.024)
    assert played == [1, 4, 16, 64, 256, 1024]
    seconds_of, played = timed(0.001, per_run=0.1)  # a step's fixed cost makes small batches dear per deal
    assert affordable_batch(seconds_of, 1000, 1, budget=1.5) == (1000, 1.1) and played[-2:] == [256, 1000]
    seconds_of, played = timed(0.01)
    assert affordable_batch(seconds_of, 1024, 1, budget=1.5) == (64, 0.64) and played == [1, 4, 16, 64]
    seconds_of, played = timed(10.0)
    assert affordable_batch(seconds_of, 1024, 1, budget=1.5) == (1, 10.0) and played == [1]


def test_bench_within_a_budget_returns_every_key_on_tiny_sizes():
    """Every figure of every kind, on the real games' smallest budget: the reference stops inside a game
    when its budget is spent and still gives a games/s (its decisions/s over the deals' decisions)."""
    from sims.registry import get_game

    config = get_game("overgrowth").load_config(None, ())
    result = bench("overgrowth", config, 2, batch_size=4, planner_batch_size=2, budget=0.01)
    assert set(result) >= BENCH_KEYS | {"batched_planner_gps", "reference_planner_gps", "ratio_planner"}
    assert result["budget_seconds"] == 0.01 and result["clocks"]["figures"].startswith("cpu")
    for kind in ("random", "greedy", "planner"):
        assert result[f"batched_{kind}_gps"] > 0 and result[f"{kind}_decisions_per_s"] > 0
        assert 1 <= result["batch_sizes"][kind] <= (2 if kind == "planner" else 4)
    for kind in ("random", "greedy"):
        assert result[f"reference_{kind}_gps"] > 0 and result[f"ratio_{kind}"] > 0
        assert 1 <= result["reference_decisions"][kind]
    assert result["reference_planner_gps"] is None and "planner" not in result["reference_decisions"]
    assert "CPU time" in format_bench(result)


def test_reference_figure_is_games_over_seconds_when_whole_games_are_played(toy_config):
    from sims.core.play import batched_bots, play_batch, resolve_bot
    from sims.registry import get_game

    result = bench("toy", toy_config, 2, batch_size=8, repeats=1, reference_games=3, kinds=("random",))
    assert result["budget_seconds"] is None and result["repeats"]["reference_random"] == 1
    game = get_game("toy")
    engine = game.batched(toy_config, 2)
    bots = batched_bots(game, engine, [resolve_bot(game, toy_config, "random")] * 2)
    state = play_batch(engine, bots, game_seeds(0, np.arange(3)), game.max_turns(toy_config))[0]
    assert result["reference_decisions"]["random"] == int(state.decisions.sum())  # the three deals, whole


def test_bench_all_covers_every_game_and_player_count(monkeypatch):
    """Every game at every player count, each with its own config (one real bench is the toy's, above:
    a real one of every game takes minutes; ``make bench`` runs them)."""
    import json

    from click.testing import CliRunner

    import sims.bench
    from analysis.cli import main
    from sims.registry import game_names, get_game

    def fake_bench(name, config, players, *args, **sizes):
        assert sizes["batch_size"] == 8 and sizes["planner_batch_size"] == 3
        assert config.loaded.hash == get_game(name).load_config(None, ()).loaded.hash
        result = {"game": name, "players": players, "batched_games": 8, "reference_games": 1, "repeats": 1,
                  "numpy": "x"}
        for kind in ("random", "greedy", "planner"):
            result.update({f"batched_{kind}_gps": 1.0, f"reference_{kind}_gps": 0.5, f"ratio_{kind}": 2.0})
        return result

    monkeypatch.setattr(sims.bench, "bench", fake_bench)
    result = CliRunner().invoke(main, ["bench", "--all", "--json", "--batch-size", "8", "--repeats", "1",
                                       "--reference-games", "1", "--planner-batch-size", "3"])
    assert result.exit_code == 0, result.output
    runs = json.loads(result.stdout)["runs"]
    expected = {(name, players) for name in game_names() for players in get_game(name).player_counts}
    assert {(run["game"], run["players"]) for run in runs} == expected


def test_verify_with_workers_finds_the_same_mismatches(toy_config):
    one = verify("toy-miscounting", toy_config, 3, games=60, seed=4)
    two = verify("toy-miscounting", toy_config, 3, games=60, seed=4, jobs=2)
    planted = [deal for deal, seed in enumerate(game_seeds(4, np.arange(60))) if int(seed) % 5 == 0]
    assert planted and one.mismatched_games == planted
    assert (two.games, two.mismatches, two.mismatched_games, two.lineups) == (
        one.games, one.mismatches, one.mismatched_games, one.lineups)
    assert two.first == one.first and "score" in one.first.what
