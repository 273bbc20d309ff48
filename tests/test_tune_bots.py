"""glade tune --target bot-share: the search finds the weight known to play better, a challenger with the
baseline's own weights scores exactly one half, resuming, the report, and bad input as one error line.

The toy dice race's greedy bot values an action by ``progress * landing + bump * opponents sent home``: with
``progress = 1`` it runs for the goal, with ``progress = -1`` it crawls (and loses to a random bot), with
``progress = 0`` it moves at random unless it can bump.
"""

from __future__ import annotations

import json

import pytest

from analysis import tune
from tests import toy_game  # noqa: F401 (registers the toy game)
from tests.cli_helpers import glade, one_error_line


def _study(param: str, challenger: str = "greedy", baseline: str = "random", **options) -> tune.Study:
    options = {"budget": 1200, "confirm": 100, "start": 32, **options}
    return tune.make_study("toy", None, options.pop("players", None), [tune.parse_param(param)], 3,
                           target="bot-share", challenger=challenger, baseline=baseline, **options)


@pytest.fixture(scope="module")
def raced(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune-bots") / "progress"
    return out, tune.run_tune(_study("bots.greedy.progress=-1.0|0.0|1.0"), out)


def test_the_race_keeps_the_weight_that_plays_better_and_confirms_it(raced):
    _, result = raced
    data = result.data
    assert data["best"]["set"] == {"bots.greedy.progress": 1.0}
    crawler = next(c["id"] for c in data["candidates"] if c["set"] == {"bots.greedy.progress": -1.0})
    assert crawler in {d["candidate"] for d in data["dropped"]}
    c = data["confirmation"]
    assert c["verdict"] == "better" and 0.5 < c["low"] <= c["share"] <= c["high"]
    assert c["deals"] == 100 and c["games"] == 200  # both seat orders of every new deal
    assert data["games"]["search"] <= 1200
    assert data["drop_rule"]["tests"] == 3  # one sequence per candidate
    for entry in data["path"]:
        assert entry["low"] <= entry["share"] <= entry["high"]


def test_the_baseline_sits_in_the_first_seats_as_in_the_ladder():
    assert _study("bots.greedy.progress=0.0|1.0").bots == ("random", "greedy")
    assert _study("bots.greedy.progress=0.0|1.0", players=3).bots == ("random", "random", "greedy")


def test_a_challenger_with_the_baseline_weights_scores_exactly_one_half(tmp_path):
    # bully with bump 2 plays as greedy does: rotated over the seats, every deal is an even split
    study = _study("personas.bully.bump=2.0|10.0", challenger="bully", baseline="greedy", players=3, budget=300,
                   confirm=16, start=16)
    data = tune.run_tune(study, tmp_path / "same").data
    same = [e for e in data["path"] if e["candidate"] == "personas.bully.bump=2.0"]
    assert same and all(e["share"] == 0.5 for e in same)
    assert any(e["share"] != 0.5 for e in data["path"] if e["candidate"] == "personas.bully.bump=10.0")


def test_resuming_plays_nothing_and_gives_the_same_result(raced):
    out, first = raced
    again = tune.run_tune(_study("bots.greedy.progress=-1.0|0.0|1.0"), out)
    assert again.played == 0
    strip = lambda d: {k: v for k, v in d.items() if k not in ("updated", "created", "versions")}  # noqa: E731
    assert strip(again.data) == strip(first.data)
    with pytest.raises(tune.ConfigError, match="baseline"):
        tune.run_tune(_study("bots.greedy.progress=-1.0|0.0|1.0", baseline="bully"), out)


def test_printed_json_and_report(raced, tmp_path):
    out, result = raced
    text = tune.format_tune(result.data)
    assert "greedy beats random" in text and "verdict: better" in text
    data = tune.tune_json(result.data)
    assert data["best"] == {"bots.greedy.progress": 1.0} and data["verdict"] == "better"
    assert json.loads(json.dumps(data)) == data
    report = glade("report", out, "--html", "--out", tmp_path / "report")
    assert report.exit_code == 0, report.output
    html = (tmp_path / "report" / "report.html").read_text()
    assert "greedy against random" in html and "Confirmation on new deals" in html


@pytest.mark.parametrize("args, fragments", [
    (["--challenger", "greedy"], ["--baseline", "a baseline bot or persona"]),
    (["--baseline", "random"], ["--challenger", "a challenger bot"]),
    (["--challenger", "greedy", "--baseline", "greedy"], ["--baseline", "other than the challenger"]),
    (["--challenger", "greedy", "--baseline", "random", "--bots", "greedy,random"], ["--bots", "no bots"]),
    (["--challenger", "greedy", "--baseline", "random", "--turns", "5..9"], ["--turns", "bot-share"]),
    (["--challenger", "greedy", "--baseline", "bully"], ["candidate bots.greedy.progress=0.0", "bully",
                                                         "greedy_v1"]),
    (["--challenger", "greedy", "--baseline", "nobody"], ["nobody", "a bot or persona of toy"]),
])
def test_bad_bot_share_input_is_one_error_line(tmp_path, args, fragments):
    result = glade("tune", "toy", "--target", "bot-share", "--param", "bots.greedy.progress=0.0|1.0", "--seed", 1,
                   "--out", tmp_path / "t", "--no-progress", *args)
    one_error_line(result, *fragments)


def test_a_bad_bot_share_file_names_the_file_and_key(tmp_path):
    path = tmp_path / "bad.toml"
    head = 'game = "toy"\nseed = 1\n'
    params = '[params]\n"bots.greedy.progress" = [0.0, 1.0]\n'
    path.write_text(head + 'target = "bot-share"\nchallenger = "greedy"\n' + params)
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), "baseline")
    path.write_text(head + 'target = "bot-share"\nbots = ["greedy"]\nchallenger = "greedy"\nbaseline = "random"\n'
                    + params)
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), "bots", "no bots")
    path.write_text(head + 'bots = ["greedy", "greedy"]\nchallenger = "greedy"\n' + params)
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), "challenger", "seat-balance")
    path.write_text(head + 'target = "bot-strength"\n' + params)
    one_error_line(glade("tune", path, "--out", tmp_path / "t"), str(path), "target", "bot-share")


@pytest.mark.parametrize("path, baseline, production", [
    ("configs/tune/vorex-greedy-weights.toml", "greedy_v1", 1.0),
    ("configs/tune/vorex-greedy-weights-2.toml", "greedy_v2", 0.0),
])
def test_the_shipped_vorex_studies_change_one_weight_of_their_baseline(path, baseline, production):
    settings = tune.read_tune_file(path)
    study = tune.make_study(settings.pop("game"), settings.pop("bots", None), settings.pop("players", None),
                            settings.pop("params"), settings.pop("seed"), **settings)
    assert study.target == "bot-share" and study.bots == (baseline, "greedy")
    configs = tune.candidate_configs(study)  # refused if a candidate changed the baseline's weights
    base = configs[0].personas[baseline][1]
    assert base["production"] == production
    for candidate, config in zip(study.candidates, configs):
        changed = {k for k, v in config.bot_weights["greedy"].items() if v != base[k]}
        assert len(changed) == 1, (candidate.id, changed)
