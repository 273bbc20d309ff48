"""Memory flat in the games: a report, a summary, a sweep's paired change and a tune's looks read a run a block
of deals at a time (sims.records.BLOCK_DEALS) and its events a block of games at a time, never the whole run.

The fast tests shrink the blocks, watch every table polars collects and check that none holds more than one
block's rows, while the numbers equal those of the whole table in memory. The slow test measures the peak memory
of ``glade report`` on runs of two sizes in subprocesses.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest

import analysis.stats.common as common
import sims.records as records
from analysis import stats
from analysis.report.run import analyse_run
from analysis.run_tally import tally_records
from analysis.summary import summarize, summarize_run
from sims.overgrowth import GAME
from sims.runner import load_events, load_records, load_trajectories, run
from sims.runspec import RunSpec

DEALS, BLOCK, EVENT_GAMES, DETAIL = 5000, 200, 100, 100


@pytest.fixture(scope="module")
def big_run(tmp_path_factory) -> Path:
    """5,000 Overgrowth deals of random against random with trajectories, in chunks of 250 deals."""
    out = tmp_path_factory.mktemp("big")
    run(RunSpec("overgrowth", GAME.load_config(), ["random", "random"], 2, 5, trajectories=True), DEALS, out,
        batch_size=250)
    return out


class Collected:
    """The largest table polars collects or stacks while it is watching (LazyFrame.collect, collect_all, concat)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch):
        self.largest = 0
        collect, collect_all, concat = pl.LazyFrame.collect, pl.collect_all, pl.concat

        def watched_concat(items, *args, **kwargs):
            found = concat(items, *args, **kwargs)
            if isinstance(found, pl.DataFrame):
                self.largest = max(self.largest, found.height)
            return found

        def watched(frame: pl.LazyFrame, *args, **kwargs):
            found = collect(frame, *args, **kwargs)
            self.largest = max(self.largest, found.height)
            return found

        def watched_all(frames, *args, **kwargs):
            found = collect_all(frames, *args, **kwargs)
            self.largest = max([self.largest, *(f.height for f in found)])
            return found

        monkeypatch.setattr(pl.LazyFrame, "collect", watched)
        monkeypatch.setattr(pl, "collect_all", watched_all)
        monkeypatch.setattr(pl, "concat", watched_concat)


def _largest_event_block(run_dir: Path) -> int:
    """The most events any block of EVENT_GAMES consecutive games holds."""
    per_game = load_events(run_dir).group_by("game").len().sort("game")
    blocks = per_game.group_by(pl.col("game") // EVENT_GAMES).agg(pl.col("len").sum())
    return int(blocks["len"].max())


def test_a_report_and_a_summary_never_collect_more_than_a_block(big_run, monkeypatch):
    whole = load_records(big_run)
    events = load_events(big_run).height
    # one block of records (2 seats) or of events, or the trajectories of the detail deals (bounded by them)
    bound = max(BLOCK * 2, _largest_event_block(big_run), load_trajectories(big_run, DETAIL).height)
    assert whole.height == 2 * DEALS and bound < events / 10 and bound < load_trajectories(big_run).height / 10
    monkeypatch.setattr(records, "BLOCK_DEALS", BLOCK)
    monkeypatch.setattr(common, "EVENT_BLOCK_GAMES", EVENT_GAMES)
    watch = Collected(monkeypatch)
    a = analyse_run(big_run, detail_deals=DETAIL)
    summary = summarize_run(big_run, 2)
    assert 0 < watch.largest <= bound
    # every full-run figure covers all 5,000 deals and equals the figure of the whole table in memory
    assert a.games == summary.games == DEALS and a.detail.deals == DETAIL and a.detail.of == DEALS
    assert a.records["deal"].n_unique() == DETAIL  # the detail analyses read the first deals only
    in_memory = stats.seat_advantage(whole)
    assert a.advantage.seats["share"].to_list() == pytest.approx(in_memory.seats["share"].to_list(), rel=1e-12)
    assert summary.headline == summarize(whole, 2).headline
    length = stats.game_length(whole)
    assert (a.length.mean.mean, a.length.mean.low, a.length.median) == pytest.approx(
        (length.mean.mean, length.mean.low, length.median), rel=1e-12)
    assert a.by_seat["mean_score"].to_list() == pytest.approx(
        stats.proportion_table(whole, "seat")["mean_score"].to_list(), rel=1e-12)
    assert a.tally.convergence[0][-1] == DEALS  # the convergence figure ends at the headline
    assert a.tally.convergence[1][-1] == pytest.approx(float(in_memory.seats["share"][0]), rel=1e-12)


def test_the_old_way_would_fail_the_bound(big_run, monkeypatch):
    """The check can fail: reading the run whole, as the report did, collects every row at once."""
    watch = Collected(monkeypatch)
    records.scan_records(big_run).collect()
    assert watch.largest == 2 * DEALS > BLOCK * 2 * 10


def test_tallies_do_not_depend_on_the_blocks(big_run):
    """A run read in blocks of the default size or of 173 deals gives the same numbers."""
    whole = load_records(big_run)
    one = tally_records(whole, 2, (16, 40))
    many = tally_records(whole, 2, (16, 40), block_deals=173)
    assert dict(one.outcomes.deals) == dict(many.outcomes.deals) and one.outcomes.turns == many.outcomes.turns
    assert one.seats.shares == many.seats.shares and list(one.seats.first) == list(many.seats.first)
    for f in (lambda t: stats.band_share(t.outcomes, (16, 40)), lambda t: stats.unfinished(t.outcomes)):
        assert f(one).describe() == f(many).describe()
    assert [list(x) for x in one.convergence] == [list(x) for x in many.convergence]


def test_a_tune_look_reads_only_the_deals_it_adds(big_run):
    from analysis import tune

    study = tune.make_study("overgrowth", ["random", "random"], None, [tune.parse_param("rules.flowers=20|25")], 5,
                            turns=(16.0, 40.0), means=(tune.parse_mean("score=10..30"),))
    LookTally, _Level = tune.LookTally, tune._Level
    level = _Level(study)
    whole = load_records(big_run)
    running = LookTally(study)
    for start, stop in ((0, 700), (700, 3100), (3100, DEALS)):  # three looks, each reading its new deals
        running.add(whole.filter(pl.col("deal").is_between(start, stop, closed="left")))
    at_once = LookTally(study)
    at_once.add(whole)
    assert running.look("c", DEALS, level) == at_once.look("c", DEALS, level)
    look = at_once.look("c", DEALS, level)
    seat0 = stats.seat_advantage(whole).seats["share"][0]
    assert look.share[0] == pytest.approx(seat0, rel=1e-12) and look.games == DEALS
    assert look.median_turns == float(whole.filter(pl.col("seat") == 0)["turns"].median())


@pytest.mark.slow
def test_report_memory_does_not_grow_with_the_games(tmp_path):
    """glade report's peak memory (ru_maxrss of its process) on 100,000 and 400,000 deals: within 15%."""
    peaks = {}
    for deals in (100_000, 400_000):
        out = tmp_path / str(deals)
        run(RunSpec("overgrowth", GAME.load_config(), ["random", "random"], 2, 1), deals, out)
        code = ("import json, resource, sys; from analysis.report import build_report, write_report; "
                f"write_report(build_report({str(out)!r}), {str(tmp_path / ('report-' + str(deals)))!r}); "
                "print(json.dumps(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss))")
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        peaks[deals] = json.loads(done.stdout.strip().splitlines()[-1])
    assert peaks[400_000] < 1.15 * peaks[100_000], peaks


def test_a_sweeps_paired_change_from_two_cells_read_side_by_side(big_run, tmp_path, monkeypatch):
    """Two cells on the same deals, read from disk 200 deals a block: the same paired changes as in memory."""
    from analysis.report.sweep import CellAnalysis, _paired_change
    from analysis.run_tally import tally_run

    other = tmp_path / "other"
    run(RunSpec("overgrowth", GAME.load_config(None, ("rules.flowers=20",)), ["random", "random"], 2, 5), DEALS, other,
        batch_size=500)
    monkeypatch.setattr(records, "BLOCK_DEALS", BLOCK)

    def cell(name: str, path: Path, on_disk: bool) -> CellAnalysis:
        return CellAnalysis(name, {"rule": name}, name == "base", load_records(path), {}, None, None, None,
                            float("nan"), float("nan"), float("nan"), 0, 2, path=path if on_disk else None,
                            tally=tally_run(path, 2, points=0) if on_disk else None)

    found = {}
    for on_disk in (True, False):
        base, changed = cell("base", big_run, on_disk), cell("flowers", other, on_disk)
        found[on_disk] = _paired_change(changed, base, [base, changed])
    for metric in ("win_change", "turns_change"):
        disk, memory = found[True][metric], found[False][metric]
        assert disk.pairs == memory.pairs == DEALS and disk.units == DEALS
        assert (disk.difference, disk.mean.low, disk.mean.high, disk.p_value) == pytest.approx(
            (memory.difference, memory.mean.low, memory.mean.high, memory.p_value), rel=1e-12)
    assert found[True]["win_change"].metric == "seat share" and found[True]["paired_note"] == ""
