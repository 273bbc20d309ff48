"""The skill ladder: shares and ratings on a synthetic table with a known answer, the ladder file,
``glade ladder`` on the toy game and the strengths ``glade games`` prints."""

from __future__ import annotations

import json
import math

import polars as pl
import pytest

from analysis.ladder import (BAR, BAR_DEALS, LADDER, STRONG_BAR, STRONG_DEALS, Pair, measure, pair_lineup,
                             read_ladder, save_ladder, stacked, strength_lines)
from sims.core.play import STRONG, resolve_bot, strong_description, strong_weights
from sims.registry import get_game
from tests import toy_game  # noqa: F401  (registers the toy game)
from tests.cli_helpers import glade, one_error_line

ELO_LN3 = 400 * math.log10(3)  # a 75% share on the Elo scale


def pair_records(lower: str, upper: str, deals: int = 8) -> pl.DataFrame:
    """Two seats, two rotations a deal: the upper bot wins both games of the first half of the deals;
    in the other half one seat wins both (seat 0 on even deals, seat 1 on odd), so the upper bot wins
    75% of the games in each seat order and neither seat has an edge."""
    rows, game = [], 0
    for deal in range(deals):
        for rotation in range(2):
            seats = (lower, upper) if rotation == 0 else (upper, lower)
            if deal < deals // 2:
                winner = seats.index(upper)
            else:
                winner = deal % 2
            for seat, bot in enumerate(seats):
                rows.append({"game": game, "deal": deal, "seat": seat, "bot": bot, "rank": 1 if seat == winner else 2})
            game += 1
    return pl.DataFrame(rows)


def test_pair_lineup_splits_the_seats():
    assert pair_lineup("a", "b", 2) == ["a", "b"]
    assert pair_lineup("a", "b", 3) == ["a", "a", "b"]
    assert pair_lineup("a", "b", 4) == ["a", "a", "b", "b"]


def test_shares_and_ratings_on_a_known_table():
    records = stacked([pair_records("random", "greedy"), pair_records("greedy", "planner")])
    assert records["game"].n_unique() == 32  # the second pair's games do not reuse the first pair's ids
    ladder = measure(records, ["random", "greedy", "planner"], "toy")
    first, second = ladder.pairs
    assert (first.lower, first.upper, first.deals, first.games) == ("random", "greedy", 8, 16)
    assert first.share == pytest.approx(0.75) and second.share == pytest.approx(0.75)
    assert first.low < 0.75 < first.high <= 1.0
    assert first.meets_bar == (first.low >= BAR)
    elo = {r.bot: r.elo for r in ladder.ratings}
    assert elo["random"] == 0.0
    assert elo["greedy"] == pytest.approx(ELO_LN3, abs=0.5)
    assert elo["planner"] == pytest.approx(2 * ELO_LN3, abs=1.0)


def test_strong_has_its_own_bar_and_is_dropped_below_it():
    """random -> greedy -> planner: the interval's low end at least 60%; strong: an interval above 50%."""
    greedy = Pair("random", "greedy", 0.63, 0.605, 0.655, 200, 400)
    planner = Pair("greedy", "planner", 0.63, 0.59, 0.67, 200, 400)
    assert greedy.meets_bar and not planner.meets_bar and greedy.bar == BAR and greedy.bar_deals == BAR_DEALS
    strong = Pair("planner", "strong", 0.53, 0.505, 0.555, 400, 800)
    weak = Pair("planner", "strong", 0.53, 0.49, 0.57, 400, 800)
    assert strong.meets_bar and not weak.meets_bar and strong.bar == STRONG_BAR and strong.bar_deals == STRONG_DEALS
    entry = {"players": 2, "date": "2026-12-07", "ratings": [{"bot": b, "elo": 0.0, "low": 0.0, "high": 0.0}
                                                              for b in ("planner", "strong")],
             "pairs": [vars(weak)], "note": ""}
    assert "strong: dropped from the ladder (beats planner 53% [49, 57] of 400 deals" in "\n".join(
        strength_lines(entry))
    entry["pairs"] = [vars(strong)]
    assert "strong: 0 (beats planner 53% [50, 56])" in "\n".join(strength_lines(entry))


def test_a_pair_given_in_the_other_order_is_flipped():
    records = stacked([pair_records("greedy", "random")])  # random is the stronger one here
    ladder = measure(records, ["greedy", "random"], "toy")
    assert ladder.pairs[0].share == pytest.approx(0.75)
    ladder = measure(records, ["random", "greedy"], "toy")
    pair = ladder.pairs[0]
    assert pair.share == pytest.approx(0.25) and pair.high < 0.75 and pair.low >= 0.0
    assert ladder.ratings[1].elo == pytest.approx(-ELO_LN3, abs=0.5)


def test_the_ladder_file_keeps_one_entry_per_game_and_count(tmp_path):
    path = tmp_path / "ladder.toml"
    assert read_ladder(path) == []
    ladder = measure(stacked([pair_records("random", "greedy")]), ["random", "greedy"], "toy")
    save_ladder(ladder, 3, "glade ladder toy", path)
    save_ladder(ladder, 4, "glade ladder toy again", path)
    entries = read_ladder(path)
    assert len(entries) == 1 and entries[0]["seed"] == 4 and entries[0]["players"] == 2
    assert entries[0]["pairs"][0]["share"] == pytest.approx(0.75)


def test_the_shipped_ladder_file_pairs_adjacent_bots_with_its_command():
    """configs/ladder.toml (what ``glade games`` prints) is well formed: each entry's pairs are its ladder's
    adjacent bots, random first, then a greedy, a planner and strong (today's or the learned bots; whether each
    level wins is measured, not asserted: see docs/bots.md), each share inside its interval, the command the one
    that wrote that game, count and seed."""
    entries = read_ladder()
    measured = {(e["game"], e["players"]) for e in entries}
    assert {(game, players) for game in ("vora", "vorex", "reforest") for players in (2, 3, 4)} <= measured
    for entry in entries:
        pairs = entry["pairs"]
        bots = [r["bot"] for r in entry["ratings"]]
        assert bots[0] == "random" and bots[-1] == STRONG and len(bots) == len(LADDER)
        assert bots[1] in ("greedy", "learned") and bots[2] in ("planner", "learned_planner")
        assert [(p["lower"], p["upper"]) for p in pairs] == list(zip(bots, bots[1:]))
        assert all(p["low"] <= p["share"] <= p["high"] and p["games"] == p["deals"] * entry["players"]
                   for p in pairs)
        assert entry["ratings"][0]["elo"] == 0
        assert entry["command"].startswith(f"glade ladder {entry['game']} --players {entry['players']} "
                                           f"--games {pairs[0]['deals']} --seed {entry['seed']} ")


def fixture_ladder(tmp_path):
    path = tmp_path / "ladder.toml"
    ladder = measure(stacked([pair_records("random", "greedy")]), ["random", "greedy"], "toy")
    save_ladder(ladder, 1, "glade ladder toy --players 2 --games 8 --seed 1 --out DIR --save", path, "a note")
    return path


def test_glade_games_prints_the_ratings_of_the_ladder_file(tmp_path):
    result = glade("games", "--ladder", fixture_ladder(tmp_path))
    assert result.exit_code == 0, result.output
    toy = result.output[result.output.index("toy: Dice race"):]
    assert "strength 2 players (Elo, random = 0; 8 deals a pair" in toy
    assert f"greedy: {ELO_LN3:,.0f} (beats random 75% [" in toy
    assert "note: a note" in toy
    assert "strength not measured" in result.output[:result.output.index("toy: Dice race")]
    data = json.loads(glade("games", "--json", "--ladder", fixture_ladder(tmp_path)).output)
    toy_data = next(g for g in data if g["name"] == "toy")
    assert toy_data["ladder"][0]["ratings"][1]["bot"] == "greedy"


def test_glade_games_without_a_ladder_file_says_not_measured(tmp_path):
    result = glade("games", "--ladder", tmp_path / "missing.toml")
    assert result.exit_code == 0, result.output
    assert "strength not measured" in result.output and "Traceback" not in result.output


def test_a_malformed_ladder_file_is_one_error_line(tmp_path):
    path = tmp_path / "ladder.toml"
    path.write_text('[[ladder]]\ngame = "toy"\nplayers = "two"\n')
    one_error_line(glade("games", "--ladder", path), str(path), "ladder[0].players", "an integer")


def test_glade_ladder_on_the_toy_game(tmp_path):
    out = tmp_path / "ladder"
    args = ("ladder", "toy", "--bots", "random,greedy", "--players", 3, "--games", 12, "--seed", 2, "--out", out,
            "--no-progress", "--json", "--save", "--ladder", tmp_path / "ladder.toml")
    result = glade(*args)
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    pair = data["pairs"][0]
    assert (pair["lower"], pair["upper"], pair["deals"], pair["games"]) == ("random", "greedy", 12, 36)
    held = json.loads((out / "ladder.json").read_text())
    assert data.items() <= held.items()  # and the study it measured, which a rerun must match
    assert held["study"] == {"game": "toy", "players": 3, "bots": ["random", "greedy"], "seed": 2, "set": []}
    assert read_ladder(tmp_path / "ladder.toml")[0]["players"] == 3
    again = json.loads(glade(*args).stdout)  # resumed: the same records, the same result (up to summing order)
    assert figures(again) == pytest.approx(figures(data), rel=1e-12, abs=1e-12)


def figures(data: dict) -> list[float]:
    return ([p[k] for p in data["pairs"] for k in ("share", "low", "high", "deals", "games")]
            + [r[k] for r in data["ratings"] for k in ("elo", "low", "high")])


def test_glade_ladder_refuses_one_player(tmp_path):
    one_error_line(glade("ladder", "toy", "--players", 1, "--games", 2, "--seed", 1, "--out", tmp_path / "l"),
                   "--players")


def test_strong_is_the_planner_with_its_strong_weights():
    for name in ("overgrowth", "vora", "vorex", "reforest"):
        game = get_game(name)
        config = game.load_config()
        planner, strong = resolve_bot(game, config, "planner"), resolve_bot(game, config, STRONG)
        extra = strong_weights(game)
        searches = extra.get("samples", 1) > 1 or extra.get("iterations", 0) > 0 or extra.get("budget_2p", 0) > 0
        assert strong.kind == "planner" and searches
        assert strong.weights == dict(planner.weights) | extra
        assert "samples" not in planner.weights  # the planner itself plays one rollout per candidate
        assert all(f"{key} {value:g}" in strong_description(game) for key, value in extra.items())


@pytest.mark.parametrize("players", [2, 3, 4])
def test_reforest_planner_and_strong_roll_out_to_their_own_next_turn(players):
    """Reforest's ``depth`` counts seat turns after the candidate's own: the planner's and strong's rollouts
    reach the end of the mover's next turn (``players`` turns) at every count (``depth_3p``, ``depth_4p``)."""
    game = get_game("reforest")
    config = game.load_config()
    engine = game.batched(config, players)
    planner_class = game.bots["planner"].batched
    planner_class = planner_class.resolve() if hasattr(planner_class, "resolve") else planner_class
    strong = planner_class(engine, 0, resolve_bot(game, config, STRONG).weights)
    planner = planner_class(engine, 0, resolve_bot(game, config, "planner").weights)
    assert strong.depth == players and strong.sample_count == 4
    assert planner.depth == players and planner.sample_count == 1


def test_glade_report_on_a_ladder_directory(tmp_path):
    """glade report on a glade ladder directory said it held neither manifest.json nor sweep.json: now the pairs,
    ratings and intervals as a report, HTML and PDF like the others."""
    out, reports = tmp_path / "ladder", tmp_path / "reports"
    assert glade("ladder", "toy", "--bots", "random,greedy,bully", "--players", 2, "--games", 30, "--seed", 3,
                 "--out", out).exit_code == 0
    result = glade("report", out, "--out", reports)
    assert result.exit_code == 0, result.output
    assert (reports / "report.pdf").read_bytes().startswith(b"%PDF")
    page = (reports / "report.html").read_text()
    data = json.loads((out / "ladder.json").read_text())
    for pair in data["pairs"]:
        assert f"{pair['upper']} beats {pair['lower']} {100 * pair['share']:.1f}%" in page
    for rating in data["ratings"]:
        assert f"<td class=\"nw\">{rating['bot']}</td>" in page
    assert "Glade ladder report" in page and 'id="fig-skill-gradient"' in page and "Bradley-Terry" in page
