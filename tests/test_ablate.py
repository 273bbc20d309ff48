"""``glade ablate``: items parsed against the config, the same deals in every run, known effects, resuming.

The toy dice race (tests/toy_game.py) with greedy against random: the greedy
bot's progress weight is its strength, so turning it negative must cost seat 0
most of its wins; a longer track must lengthen games; and an ablation that
changes nothing must give exactly zero change on every deal.
"""

from __future__ import annotations

import re

import numpy as np
import polars as pl
import pytest

from analysis import stats
from analysis.ablate import Users, analyse_ablate, format_ablate, make_ablations, parse_item, run_ablate
from analysis.report import Report
from analysis.report.ablate import ablation_section, ablation_title
from analysis.report.html import render_html
from analysis.sweep import load_sweep
from sims.core.spec import ConfigError
from sims.records import load_manifest, load_records
from tests import toy_game  # noqa: F401 (registers the toy game)
from tests.cli_helpers import glade, one_error_line

ITEMS = ("race.goal+=0", "bots.greedy.progress=-1", "race.goal+=12")


@pytest.fixture(scope="module")
def ablated(tmp_path_factory) -> tuple:
    out = tmp_path_factory.mktemp("ablate")
    first = run_ablate("toy", ["greedy", "random"], 2, 5, 120, out, ITEMS)
    again = run_ablate("toy", ["greedy", "random"], 2, 5, 120, out, ITEMS)
    return out, first, again, analyse_ablate(out)


def change(result, item: str, seat: int | None, metric: str) -> stats.PairedDifference:
    return next(c.paired for c in result.changes if c.ablation == item and c.seat == seat and c.metric == metric)


def test_parse_item_resolves_names_and_sugar():
    values = {"race": {"goal": 12, "bump": True}, "kinds": [{"name": "fir", "count": 4}, {"name": "oak", "count": 2}]}
    fir = parse_item("kinds[fir].count-=3", values, 1)
    assert (fir.override, fir.item, fir.id) == ("kinds[0].count=1", "fir", "a1-kinds_fir_.count-_3")
    assert parse_item("kinds[1].count=0", values, 2).item == "oak"
    assert parse_item("race.goal+=2", values, 3).override == "race.goal=14"
    assert parse_item("race.goal = 20", values, 4).item is None
    for text, fragment in (("race.nope=1", "race.nope is not one"), ("race.bump+=1", "a numeric config key"),
                           ("race.goal+=x", "a number after +="), ("kinds[elm].count=0", "fir, oak"),
                           ("kinds[5].count=0", "an index below 2"), ("race.goal", "KEY=VALUE")):
        with pytest.raises(ConfigError, match="--item") as error:
            parse_item(text, values, 1)
        assert fragment in str(error.value)
    with pytest.raises(ConfigError, match="a change the game accepts"):
        make_ablations("toy", ["race.goal=1000"])


def test_bad_item_is_one_error_line(tmp_path):
    for item, fragment in (("race.nope=1", "race.nope"), ("race.bump+=1", "numeric")):
        result = glade("ablate", "toy", "--bots", "greedy,random", "--games", 4, "--out", tmp_path / "x",
                       "--item", item)
        one_error_line(result, "--item", fragment)
    assert not (tmp_path / "x").exists()


def test_ablate_takes_quiet_as_play_and_sweep_do(tmp_path):
    result = glade("ablate", "toy", "--bots", "greedy,random", "--games", 4, "--out", tmp_path / "q",
                   "--item", "race.goal+=12", "-q")
    assert result.exit_code == 0, result.output
    assert "race.goal+=12" in result.stdout and not result.stderr


def test_every_run_plays_the_same_deals_and_resuming_plays_nothing(ablated):
    out, first, again, _ = ablated
    assert first.played == 4 * 120 and again.played == 0  # the sweep's runs; the placebo is a run of its own
    data = load_sweep(out)
    seeds = [c.records().filter(pl.col("seat") == 0).sort("deal").select("deal", "seed") for c in data.cells]
    assert all(s.equals(seeds[0]) for s in seeds[1:])
    base, same = data.cell("baseline").records(), data.cell(data.cells[1].id).records()
    assert base.drop("game").sort("deal", "seat").equals(same.drop("game").sort("deal", "seat"))
    with pytest.raises(ConfigError, match="use another --out"):
        run_ablate("toy", ["greedy", "random"], 2, 5, 120, out, ITEMS[:2])


def test_known_effects_of_the_ablations(ablated):
    result = ablated[3]
    for seat, metric in ((0, "share"), (1, "share"), (0, "score"), (None, "turns")):
        nothing = change(result, "race.goal+=0", seat, metric)
        assert nothing.difference == 0 and nothing.mean.low == nothing.mean.high == 0
    weak = change(result, "bots.greedy.progress=-1", 0, "share")
    assert weak.base_mean > 0.6 and weak.mean.high < -0.3  # greedy's strength was its progress weight
    assert change(result, "bots.greedy.progress=-1", 1, "share").difference == pytest.approx(-weak.difference)
    longer = change(result, "race.goal+=12", None, "turns")
    assert longer.mean.low > 0 and change(result, "race.goal+=12", 0, "score").mean.low > 10
    holm = {c.ablation: c.p_holm for c in result.changes if c.seat == 0 and c.metric == "score"}
    assert holm["race.goal+=0"] == 1.0 and holm["race.goal+=12"] < 0.01
    text = format_ablate(result)
    assert "bots.greedy.progress=-1" in text and "seat 0  seat share" in text
    # the share is the headline's: seat 0's share of decided games in each run
    ids, data = {a.text: a.id for a in result.ablations}, load_sweep(ablated[0])
    for item in ITEMS:
        share = stats.seat_advantage(data.cell(ids[item]).records()).seats["share"][0]
        assert change(result, item, 0, "share").other_mean == pytest.approx(share)


def test_the_report_has_the_ablation_section(ablated):
    report = Report("sweep", "toy ablations", "", [ablation_section(ablated[0])], "")
    try:
        page = render_html(report)
    finally:
        report.close()
    assert '<section id="ablation">' in page and "Ablations" in page and "No ablation names an item" in page
    assert page.count("race.goal+=12") >= 2 and "ablation-changes" in page  # the table and the figure
    title = ablation_title("Dice race", ablated[0])  # the report's title names the ablations, not the keys they set
    assert title == "Dice race ablation: race.goal+=0; bots.greedy.progress=-1; race.goal+=12"


def users(observed: float, base: list[float], ablated: list[float], placebo: list[float] | None) -> Users:
    """The users' share in the three runs, one user a deal: won (1) or lost (0)."""
    frame = pl.DataFrame({"deal": range(len(base)), "rotation": 0, "seat": 0})

    def rows(wins: list[float]) -> pl.DataFrame:
        return frame.with_columns(pl.Series("fraction", wins), pl.lit(True).alias("counted"))

    def paired(a: list[float], b: list[float]) -> stats.PairedDifference:
        return stats.seat_share_change(rows(a), rows(b), None)

    if placebo is None:
        return Users("x", "fir", "Cards played", {"difference": observed}, paired(base, ablated))
    return Users("x", "fir", "Cards played", {"difference": observed}, paired(base, ablated),
                 paired(base, placebo), paired(placebo, ablated))


def test_an_ablation_confirms_an_item_beyond_the_placebos_drift():
    rng = np.random.default_rng(2)
    base = (rng.random(400) < 0.6).astype(float)
    drift = np.where(rng.random(400) < 0.15, 0.0, base)  # a neutral change: the users fall back a little
    weaker = np.where(rng.random(400) < 0.35, 0.0, base)  # the item weakened: they fall back much further
    assert users(0.2, base, weaker, drift).verdict == "confirmed"
    assert users(0.2, base, drift, drift).verdict == "not confirmed"  # no more than the placebo's drift
    assert users(-0.2, base, weaker, drift).verdict == "not confirmed"  # the users' share moved the other way
    assert users(0.2, base, drift, weaker).verdict == "not confirmed"
    # the drift alone, read without a placebo, looks like a confirmation: with none the verdict is never confirmed
    assert users(0.2, base, drift, None).change.mean.high < 0
    assert users(0.2, base, drift, None).verdict == "undecided"
    few = users(0.2, base[:40], weaker[:40], drift[:40])  # too few deals to tell
    assert few.verdict == "undecided"
    assert Users("x", "fir", None, None, None).verdict == "not comparable"


# ---------------------------------------------------------------- --remove and the ready studies


def test_remove_sets_the_named_items_count_to_zero_or_says_why_not(tmp_path):
    from pathlib import Path

    (fir,) = make_ablations("reforest", [], ("deck.size[3]=86",), ["Douglas Fir"])
    assert fir.override == "species[24].count=0" and fir.item == "Douglas Fir"
    one_error_line(glade("ablate", "vorex", "--bots", "greedy", "--players", "2", "--remove", "l1_bar",
                         "--out", tmp_path / "v"), "--remove: l1_bar", "one of a kind")
    one_error_line(glade("ablate", "reforest", "--bots", "greedy", "--players", "2", "--remove", "Oak",
                         "--out", tmp_path / "r"), "--remove: Oak", "species (Step Moss")
    # the game's own check: without Douglas Fir the 4-player deck of 90 cards cannot be dealt; the error names
    # --remove and the --set that fits the deck
    for players in (2, 3):
        one_error_line(glade("ablate", "reforest", "--bots", "greedy", "--players", players, "--remove",
                             "Douglas Fir", "--out", tmp_path / "d"), "--remove: Douglas Fir", "deck.size[3]",
                       "--set deck.size[3]=87")
    assert not Path(tmp_path / "d").exists()
    assert make_ablations("reforest", [], ("deck.size[3]=87",), ["Douglas Fir"])[0].text == "remove Douglas Fir"


def test_swap_moves_the_count_to_the_vanilla_item_or_copies_its_values(tmp_path):
    from analysis.ablate import swap_item
    from sims.registry import get_game

    (fir,) = make_ablations("reforest", [], swap=["Douglas Fir=Bunchberry"])
    assert fir.overrides == ("species[24].count=0", "species[2].count=7") and fir.item == "Douglas Fir"
    species = get_game("reforest").load_config(None, fir.overrides).loaded.values["species"]
    assert sum(s["count"] for s in species) == 91 and species[2]["count"] == 7  # the deck keeps its 91 cards
    values = {"tiles": [{"name": "bar", "shape": "bar", "value": 3}, {"name": "bee", "shape": "bee", "value": 3}]}
    tile = swap_item("bar=bee", values, 4)  # one of a kind: it takes the vanilla item's values
    assert (tile.overrides, tile.item, tile.id) == (('tiles[0].shape="bee"',), "bar", "a4-swap_bar_for_bee")
    for text, fragment in (("bar", "NAME=VANILLA"), ("bar=bar", "NAME=VANILLA"), ("bar=elm", "bar, bee"),
                           ("elm=bar", "tiles (bar, bee)")):
        with pytest.raises(ConfigError, match="--swap") as error:
            swap_item(text, values, 1)
        assert fragment in str(error.value)
    one_error_line(glade("ablate", "reforest", "--bots", "greedy", "--players", "2", "--swap", "Douglas Fir=Oak",
                         "--out", tmp_path / "r"), "--swap: Douglas Fir=Oak", "Bunchberry")
    one_error_line(glade("ablate", "vorex", "--bots", "greedy", "--players", "2", "--swap", "l1_bar=start_b",
                         "--out", tmp_path / "v"), "--swap: l1_bar=start_b", "a change the game accepts")


@pytest.mark.parametrize("name", ["reforest-douglas-fir.toml", "vorex-actions.toml"])
def test_each_ready_study_loads_and_builds_its_runs(tmp_path, name):
    from pathlib import Path

    from analysis.ablate import read_study
    from analysis.sweep import read_sweep

    study = read_study(Path(__file__).resolve().parents[1] / "configs" / "ablate" / name)
    (tmp_path / "ablate.toml").write_text(study.sweep())
    sweep = read_sweep(tmp_path / "ablate.toml")  # every cell's config loads
    assert [c.id for c in sweep.cells][0] == "baseline"
    assert len(sweep.cells) == 1 + len(study.items) + len(study.remove) + len(study.swap)


def test_a_study_file_without_ablations_is_one_error_line(tmp_path):
    path = tmp_path / "empty.toml"
    path.write_text('game = "reforest"\nbots = ["greedy"]\nplayers = 2\n')
    one_error_line(glade("ablate", path, "--out", tmp_path / "o"), "empty.toml: items")


# ---------------------------------------------------------------- the placebo and the verdict first


def test_the_placebo_plays_the_same_deals_with_other_tie_breaks(ablated):
    out = ablated[0]
    base = load_sweep(out).cell("baseline").records().sort("deal", "seat")
    placebo = load_records(out / "placebo").sort("deal", "seat")
    assert placebo["seed"].equals(base["seed"])  # the same deals
    assert not placebo["score"].equals(base["score"])  # the random seat's choices redrawn
    assert load_manifest(out / "placebo")["bot_streams"] == "placebo"
    assert "placebo: the baseline played again on the same deals" in format_ablate(ablated[3])
    replay = glade("replay", out / "placebo", "--game", 3)
    assert replay.exit_code == 0, replay.output
    one_error_line(glade("replay", out / "placebo", "--game", 3, "--explain"), "--explain", "placebo run")


def test_no_placebo_says_so_and_a_bot_without_streams_is_named(tmp_path):
    result = glade("ablate", "toy", "--bots", "greedy,random", "--games", 8, "--out", tmp_path / "n",
                   "--item", "race.goal+=2", "--no-placebo", "--no-progress")
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "n" / "placebo").exists() and "placebo: none (glade ablate --no-placebo)" in result.stdout


@pytest.fixture(scope="module")
def fir(tmp_path_factory):
    out = tmp_path_factory.mktemp("fir") / "fir"
    result = glade("ablate", "reforest", "--bots", "greedy", "--players", 2, "--games", 40, "--seed", 1,
                   "--item", "species[Douglas Fir].cost+=1", "--out", out, "--no-progress")
    assert result.exit_code == 0, result.output
    return out, result.stdout


def test_the_answer_comes_first_with_its_interval_and_the_items_use_before_and_after(fir):
    out, text = fir
    lines = text.splitlines()
    assert lines[1].startswith("verdict: species[Douglas Fir].cost+=1: ")
    verdict = lines[1].split(": ")[2]
    assert verdict in ("confirmed", "not confirmed", "undecided")
    assert "beyond the placebo's drift" in lines[1] and re.search(r"[+-]\d+\.\d \[[+-]\d+\.\d, [+-]\d+\.\d\] points",
                                                                lines[1])
    assert re.search(r"Douglas Fir used in \d+\.\d% \[.*\] of seat-games, \d+\.\d% \[.*\] with the change", lines[1])
    result = analyse_ablate(out)
    (users,) = result.users
    assert users.use[0].rate > 0 and users.placebo is not None
    # the verdict's measure is the users' change with the ablation less their change with the placebo
    assert users.effect.difference == pytest.approx(users.change.difference - users.placebo.difference)


def test_the_ablation_report_opens_with_the_verdict_and_names_cells_by_their_change(fir, tmp_path):
    out, _ = fir
    from analysis.report import build_report

    report = build_report(out)
    try:
        assert report.headline.startswith("species[Douglas Fir].cost+=1: ")  # glade report's headline: line
        flags = report.section("summary").blocks[1].items
        assert flags[0].title.startswith("species[Douglas Fir].cost+=1: ")
        assert not any(f.title.startswith(("Most balanced cell", "Least balanced cell")) for f in flags)
        cells = next(b for b in report.section("cells").blocks if hasattr(b, "rows"))
        assert {row[1].rstrip(" *") for row in cells.rows} == {"baseline", "species[Douglas Fir].cost+=1"}
        assert "a1-species" not in render_html(report).split("Sweep manifest")[0]
    finally:
        report.close()
