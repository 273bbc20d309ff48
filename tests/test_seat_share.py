"""One seat share for one run: ``glade play``'s summary, ``glade report``, ``glade report --diff``, ``glade sweep``
(its table and its report's paired table) and ``glade tune`` print the same figure, seat 0's share of decided
games (ties and stalls named beside it), as ``analysis.stats.seat_advantage`` counts it.

The run is a tune's confirmation run of the toy dice race (greedy against greedy, ties common): ``glade play``
with the tune's settings resumes that very directory, ``glade sweep`` plays the same config on the same seed into
a cell of its own (the same games, the records compared), and ``glade report --diff`` compares it with a run
with a longer track on the same deals.
"""

from __future__ import annotations

import json
import re

from analysis import stats, tune
from sims.records import load_records
from tests import toy_game  # noqa: F401 (registers the toy game)
from tests.cli_helpers import glade

SHARE = re.compile(r"(\d+\.\d)% \[(\d+\.\d), (\d+\.\d)\]")


def _seat0(line: str, after: str) -> tuple[str, ...]:
    """The first ``53.1% [52.4, 53.8]`` in ``line`` after ``after``."""
    found = SHARE.search(line, line.index(after))
    assert found is not None, line
    return found.groups()


def _line(text: str, start: str) -> str:
    return next(line for line in text.splitlines() if line.lstrip().startswith(start))


def test_play_report_diff_sweep_and_tune_print_one_seat_share_for_one_run(tmp_path):
    out = tmp_path / "tune"
    tuned = glade("tune", "toy", "--bots", "greedy,greedy", "--param", "race.goal=12|13", "--seed", 4,
                  "--budget", 600, "--confirm", 600, "--start", 64, "--out", out, "--no-progress")
    assert tuned.exit_code == 0, tuned.output
    data = tune.load_tune(out)
    best, seed = data["best"]["id"], tune.confirm_seed(4)
    goal = data["best"]["set"]["race.goal"]
    run_dir = out / "confirm" / best
    records = load_records(run_dir)
    advantage = stats.seat_advantage(records)
    assert advantage.ties > 0  # ties are left out of the share: the counts that used to differ
    row = advantage.seats.row(0, named=True)
    expected = (f"{100 * row['share']:.1f}", f"{100 * row['share_low']:.1f}", f"{100 * row['share_high']:.1f}")

    # glade tune: the confirmation's line, and tune.json
    assert _seat0(_line(tuned.stdout, "seat 0 wins"), "seat 0 wins") == expected
    assert data["confirmation"]["seats"][0]["share"] == row["share"]

    # glade play with the tune's settings: the same run directory, nothing to play, its summary
    played = glade("play", "toy", "--games", 600, "--seed", seed, "--bots", "greedy,greedy", "--rotate-seats",
                   "--set", f"race.goal={goal}", "--out", run_dir)
    assert played.exit_code == 0, played.output
    assert "nothing new to play" in played.stdout
    assert _seat0(_line(played.stdout, "headline:"), "seat 0 wins") == expected
    assert _seat0(_line(played.stdout, "seat 0  share"), "share") == expected

    # glade report: its headline
    reported = glade("report", run_dir, "--html", "--out", tmp_path / "report")
    assert reported.exit_code == 0, reported.output
    assert _seat0(_line(reported.stdout, "headline:"), "seat 0 wins") == expected

    # glade report --diff against a longer track on the same deals: run A's share
    longer = glade("play", "toy", "--games", 600, "--seed", seed, "--bots", "greedy,greedy", "--rotate-seats",
                   "--set", f"race.goal={goal + 4}", "--out", tmp_path / "longer", "--json")
    assert longer.exit_code == 0, longer.output
    diffed = glade("report", "--diff", run_dir, tmp_path / "longer", "--html", "--out", tmp_path / "diff")
    assert diffed.exit_code == 0, diffed.output
    headline = _line(diffed.stdout, "headline:")
    assert re.search(rf"seat 0 {re.escape(expected[0])}% \u2192 ", headline), headline
    other = stats.seat_advantage(load_records(tmp_path / "longer")).seats["share"][0]
    assert f"\u2192 {100 * other:.1f}%" in headline
    assert json.loads(longer.stdout)["shares"][0]["share"] == other  # glade play --json's share of the other run

    # glade sweep: the same config on the same seed in a cell; its table, and its report's paired table
    sweep_file = tmp_path / "sweep.toml"
    sweep_file.write_text(f'game = "toy"\nbots = ["greedy", "greedy"]\nrotate_seats = true\nseed = {seed}\n'
                          f'games_per_cell = 600\nbaseline = "base"\n[[cells]]\nid = "base"\n'
                          f'set = ["race.goal={goal}"]\n[[cells]]\nid = "longer"\nset = ["race.goal={goal + 4}"]\n')
    swept = glade("sweep", sweep_file, "--out", tmp_path / "sweep", "--no-progress")
    assert swept.exit_code == 0, swept.output
    cell = load_records(tmp_path / "sweep" / "cells" / "base")
    assert cell.drop("game").sort("deal", "seat").equals(records.drop("game").sort("deal", "seat"))
    assert _seat0(_line(swept.stdout, "base"), "base") == expected
    from analysis.report import build_report

    report = build_report(tmp_path / "sweep")
    try:
        paired = next(b for b in report.section("paired").blocks if hasattr(b, "rows"))
        assert paired.rows[0][2] == f"{expected[0]}% \u2192 {100 * other:.1f}%"
        ranked = next(b for b in report.section("cells").blocks if hasattr(b, "rows"))
        base_row = next(r for r in ranked.rows if r[1] == "base *")
        assert base_row[4:6] == [f"{expected[0]}%", f"[{expected[1]}, {expected[2]}]"]
    finally:
        report.close()
