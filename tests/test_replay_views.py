"""glade replay's views: the compact board (legend once, running scores) and --explain."""

from __future__ import annotations

import re

import pytest

from sims.registry import get_game
from sims.replay import replay_text
from tests.cli_helpers import glade

LINEUPS = {"overgrowth": (2, ["greedy", "random"]), "vora": (3, ["random", "greedy", "random"]),
           "vorex": (2, ["random", "greedy"]), "reforest": (2, ["greedy", "random"])}


def replay(name: str, board: str, explain: bool = False, bots: list[str] | None = None) -> str:
    players, lineup = LINEUPS[name]
    game = get_game(name)
    return replay_text(name, game.load_config(), players, 4, 1, bots or lineup, scores=True, board=board,
                       explain=explain)


def positions(text: str) -> list[list[str]]:
    """The lines after each ``turn N  seat S (bot): ...`` line, up to the next one."""
    blocks = re.split(r"\n\nturn \d+  seat \d+ \([^)]*\): [^\n]*\n", text.split("\nresult: ")[0])
    return [block.splitlines() for block in blocks[1:]]


@pytest.mark.parametrize("name", list(LINEUPS))
def test_the_compact_board_is_a_few_lines_a_turn_with_the_legend_once_and_every_seats_score(name):
    compact, full = replay(name, "compact"), replay(name, "full")
    assert compact.split("\nresult: ")[1] == full.split("\nresult: ")[1]  # the same game
    turns = positions(compact)
    assert turns and len(turns) == len(positions(full))
    players = LINEUPS[name][0]
    for lines in turns:
        assert 1 <= len(lines) <= 4, lines
        assert re.fullmatch(r"scores: " + ", ".join([r"\d+ \w+ -?[\d.]+"] * players), lines[-1]), lines[-1]
    assert sum(line.startswith("legend:") for line in compact.splitlines()) <= 1
    assert len(compact.splitlines()) < len(full.splitlines()) * 2 // 3


def test_explain_lists_the_greedy_bots_candidates_best_first_and_the_first_is_the_action_played():
    text = replay("overgrowth", "compact", explain=True)
    turns = re.findall(r"\n\nturn \d+  seat (\d) \((\w+)\): ([^\n]*)\n((?:  [^\n]*\n)*)", text)
    greedy = [(action, why) for _, bot, action, why in turns if bot == "greedy"]
    assert len(greedy) >= 5
    for action, why in greedy:
        ranked = re.findall(r"^  (?:why:|    ) +\d\. ([+-][\d.e+]+)  (.*?)(?:   \(.*)?$", why, re.M)
        if why.startswith("  why: the only legal action"):
            continue
        assert 1 <= len(ranked) <= 5 and ranked[0][1] == action, why
        scores = [float(score) for score, _ in ranked]
        assert scores == sorted(scores, reverse=True)
    randoms = [why for _, bot, _, why in turns if bot == "random"]
    assert randoms and all(re.match(r"  why: (uniform among \d+ legal actions|the only legal action)", w)
                           for w in randoms)
    assert "note:" not in text  # the reference bots agree with the batched bots that played


def test_explain_says_when_a_bot_has_nothing_to_explain():
    text = replay("overgrowth", "compact", explain=True, bots=["planner", "greedy"])
    assert "why: planner has no reference implementation to explain its choice" in text


def test_the_command_line_shows_the_compact_board_unless_told_full():
    args = ["replay", "overgrowth", "--seed", 4, "--game", 1, "--bots", "greedy,random"]
    compact, full = glade(*args), glade(*args, "--board", "full", "--explain")
    assert compact.exit_code == 0 and full.exit_code == 0
    assert "\nboard " in compact.stdout and "why:" not in compact.stdout
    assert "\n0  . . " in full.stdout and "  why: " in full.stdout
