"""Known positions for the Overgrowth reference engine, one rule per test.

Boards are drawn row 0 at the top: ``x`` seat 0, ``o`` seat 1, ``.`` empty
and ``:`` an empty shaded cell (drawn for the reader; it is just empty).
"""

from __future__ import annotations

import textwrap

import pytest

from sims.core.play import play_reference
from sims.core.rng import uniform_one
from sims.overgrowth import config as overgrowth_config
from sims.overgrowth.reference import EMPTY, OvergrowthGame
from sims.overgrowth.reference_bots import ReferenceGreedyBot, ReferenceRandomBot, connection_distance
from sims.overgrowth.render import describe_action, render_board, render_game

SYMBOLS = {".": EMPTY, ":": EMPTY, "x": 0, "o": 1}
SMALL = ["board.rows=5", "board.columns=5", "board.shaded_width=1"]  # shaded cells (0,2) and (4,2)
GREEDY_WEIGHTS = {"own_distance": 4.0, "opponent_distance": 4.0, "flowers": 1.0}


def load(*overrides: str):
    return overgrowth_config.load(overrides=list(overrides))


def position(config, picture: str, *, to_move: int = 0, turn: int = 10,
             markers: tuple[int, int] | None = None, supply: tuple[int, int] | None = None) -> OvergrowthGame:
    """A game past both first turns with the drawn board; supply defaults to tokens not on the board."""
    rows = [line.split() for line in textwrap.dedent(picture).strip().splitlines()]
    assert len(rows) == config.rows and all(len(row) == config.columns for row in rows)
    game = OvergrowthGame(config)
    game.board = [SYMBOLS[s] for row in rows for s in row]
    game.to_move, game.turn = to_move, turn
    if markers is not None:
        game.markers = list(markers)
    if supply is None:
        supply = tuple(config.flowers - game.flower_count(seat) for seat in range(2))
    game.supply = list(supply)
    return game


def singles(game: OvergrowthGame, kind: str, seat: int = 0) -> set[tuple[int, int]]:
    """The one-cell placements of ``kind`` as (row, col)."""
    return {game.row_col(p) for p in game.legal_placements(seat, kind) if p < game.config.cells}


def pairs(game: OvergrowthGame, kind: str = "spread", seat: int = 0) -> set[tuple[tuple[int, int], tuple[int, int]]]:
    """The two-cell placements of ``kind`` as ((row, col), (row, col + 1))."""
    found = set()
    for p in game.legal_placements(seat, kind):
        if p >= game.config.cells:
            left, right = game.config.placement_cells(p)
            found.add((game.row_col(left), game.row_col(right)))
    return found


def action_slots(game: OvergrowthGame) -> set[int]:
    return {game.config.decode(a)[0] for a in game.legal_actions()}


# --- overgrow ----------------------------------------------------------------

def test_overgrow_needs_two_orthogonal_sides():
    config = load(*SMALL)
    game = position(config, """
        . . x . .
        . x o . .
        . . x o .
        . . . x .
        . . : . .
    """)
    # o at (1,2) has three x sides, o at (2,3) two: below and to the left
    assert singles(game, "overgrow") == {(1, 2), (2, 3)}
    game.board[game.cell(3, 3)] = EMPTY
    assert singles(game, "overgrow") == {(1, 2)}


def test_overgrow_diagonal_sides_do_not_count():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . x . x .
        . . o . .
        . x . x .
        . . : . .
    """)
    assert singles(game, "overgrow") == set()


def test_overgrow_sides_is_configurable():
    config = load(*SMALL, "rules.overgrow_sides=3")
    game = position(config, """
        . . : . .
        . . x . .
        . x o x .
        . . . . .
        . . : . .
    """)
    assert singles(game, "overgrow") == {(2, 2)}
    game.board[game.cell(2, 3)] = EMPTY
    assert singles(game, "overgrow") == set()


def test_overgrow_replaces_the_flower_and_discards_it():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . x . .
        . x o . .
        . . . . .
        . . : . .
    """, markers=(7, 4))
    action = config.encode(1, game.cell(2, 2))  # move 1 from space 7 to space 0, overgrow
    assert game.action_kind(action) == "overgrow"
    supply_before = list(game.supply)
    game.apply(action)
    assert game.board[game.cell(2, 2)] == 0
    assert game.flower_count(1) == 0
    assert game.supply == [supply_before[0] - 1, supply_before[1]]
    assert game.flowers_lost == [0, 1]
    assert game.result()["seat_columns"]["overgrow"] == [1, 0]


# --- grow and cast -------------------------------------------------------------

def test_grow_on_all_eight_neighbours():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . o . .
        . . x . .
        . . . . .
        . . : . .
    """)
    assert singles(game, "grow") == {(1, 1), (1, 3), (2, 1), (2, 3), (3, 1), (3, 2), (3, 3)}


def test_cast_exactly_three_away_straight_and_diagonal():
    config = load()
    game = position(config, """
        . . : : : . .
        . . . . . . .
        . . . . . . .
        . . . x . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """)
    assert singles(game, "cast") == {(0, 0), (0, 3), (0, 6), (3, 0), (3, 6), (6, 0), (6, 3), (6, 6)}


def test_cast_jumps_over_occupied_cells_but_lands_on_an_empty_one():
    config = load()
    game = position(config, """
        . . : : : . .
        . . . o . . .
        . . . o . . .
        . . . x . . .
        . . . . x . .
        . . . . . . .
        . . : : : . o
    """)
    cast = singles(game, "cast")
    assert (0, 3) in cast  # from (3,3) over two o flowers
    assert (1, 1) in cast  # from (4,4) over x at (3,3)
    assert (6, 6) not in cast  # 3 from (3,3) diagonally, but taken


def test_cast_distance_is_configurable():
    config = load(*SMALL, "rules.cast_distance=2")
    game = position(config, """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """)
    assert singles(game, "cast") == {(0, 0), (0, 2), (0, 4), (2, 0), (2, 4), (4, 0), (4, 2), (4, 4)}


# --- spread --------------------------------------------------------------------

def test_spread_single_is_orthogonal_only():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """)
    assert singles(game, "spread") == {(1, 2), (2, 1), (2, 3), (3, 2)}


def test_spread_pair_is_side_by_side_in_a_row_touching_an_earlier_flower():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """)
    assert pairs(game) == {
        ((1, 1), (1, 2)), ((1, 2), (1, 3)),
        ((2, 0), (2, 1)), ((2, 3), (2, 4)),
        ((3, 1), (3, 2)), ((3, 2), (3, 3)),
    }


def test_spread_pair_never_wraps_to_the_next_row_or_stands_upright():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . . . x
        . . . . .
        . . : . .
    """)
    assert pairs(game) == {((1, 3), (1, 4)), ((2, 2), (2, 3)), ((3, 3), (3, 4))}


def test_spread_adjacency_counts_only_flowers_on_the_board_before_this_action():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        x . . . .
        . . . . .
        . . : . .
    """)
    # (2,1)+(2,2) touches x at (2,0); (2,2)+(2,3) would only touch its own partner
    assert ((2, 1), (2, 2)) in pairs(game)
    assert ((2, 2), (2, 3)) not in pairs(game)


def test_spread_pair_places_two_flowers():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        x . . . .
        . . . . .
        . . : . .
    """, markers=(0, 4))
    action = config.encode(3, config.pair_placement(2, 1))  # move 3 to spread
    assert game.action_kind(action) == "spread"
    game.apply(action)
    assert game.board[game.cell(2, 1)] == 0 and game.board[game.cell(2, 2)] == 0
    assert game.supply[0] == config.flowers - 3
    assert game.result()["seat_columns"]["spread"] == [1, 0]


def test_spread_pair_needs_two_tokens():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        x . . . .
        . . . . .
        . . : . .
    """, supply=(1, 24))
    assert pairs(game) == set()
    assert singles(game, "spread") == {(1, 0), (2, 1), (3, 0)}


# --- shaded-area rule ----------------------------------------------------------

def test_shaded_rule_one_flower_per_colour_in_own_area():
    config = load()
    game = position(config, """
        . . : x : . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """)
    assert singles(game, "grow") == {(1, 2), (1, 3), (1, 4)}
    assert singles(game, "spread") == {(1, 3)}
    assert pairs(game) == {((1, 2), (1, 3)), ((1, 3), (1, 4))}


def test_shaded_rule_one_flower_per_colour_in_opponent_area():
    config = load()
    game = position(config, """
        . . : o : . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . o x : . .
    """)
    assert singles(game, "grow") == {(5, 2), (5, 3), (5, 4)}
    # each colour counts only its own flowers: o holds (0,3) and (6,2) beside x's (6,3)
    assert singles(game, "grow", seat=1) == {(1, 2), (1, 3), (1, 4), (5, 1), (5, 2), (5, 3), (6, 1)}


def test_shaded_rule_applies_to_overgrow():
    config = load()
    game = position(config, """
        . . : : : . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . x x . .
        . . x o o x .
    """)
    # both o flowers have two x sides, but x already holds (6,2) in that area
    assert singles(game, "overgrow") == set()
    game.board[game.cell(6, 2)] = EMPTY
    assert singles(game, "overgrow") == {(6, 4)}
    assert game.overgrow_targets(0) == [game.cell(6, 4)]


def test_shaded_rule_applies_to_a_spread_pair():
    config = load()
    game = position(config, """
        . . : : : . .
        . . . x . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """)
    spread = pairs(game)
    assert ((0, 2), (0, 3)) not in spread and ((0, 3), (0, 4)) not in spread  # both cells shaded
    assert ((1, 1), (1, 2)) in spread
    game.board[game.cell(1, 1)] = 0
    game.board[game.cell(1, 2)] = 0
    assert ((0, 1), (0, 2)) in pairs(game)  # one shaded cell is fine
    game.board[game.cell(0, 4)] = 0
    assert ((0, 1), (0, 2)) not in pairs(game)  # not with a flower already in the area


# --- the action track ----------------------------------------------------------

def test_marker_moves_one_to_three_spaces_clockwise():
    config = load()
    game = position(config, """
        . . : x : . .
        . . x o . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : o : . .
    """, markers=(6, 2))
    assert action_slots(game) == {1, 2, 3}
    kinds = [game.action_kind(config.encode(slot, 0)) for slot in (1, 2, 3)]
    assert kinds == ["spread", "overgrow", "grow"]  # spaces 7, 0, 1: wrapping past the end
    assert config.encode(2, game.cell(1, 3)) in game.legal_actions()
    game.apply(config.encode(3, game.cell(2, 2)))  # grow from space 1
    assert game.markers == [1, 2]
    assert game.result()["seat_columns"]["grow"] == [1, 0]


def test_marker_counts_the_other_markers_space_but_never_ends_on_it():
    config = load()
    game = position(config, """
        . . : x : . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : o : . .
    """, markers=(0, 2))
    assert action_slots(game) == {1, 3}
    game.apply(config.encode(3, game.cell(1, 3)))  # spread, 3 spaces past the cast space
    assert game.markers == [3, 2]


def test_first_turn_places_in_own_shaded_area_without_moving():
    config = load()
    game = OvergrowthGame(config)
    assert game.legal_actions() == [config.encode(0, c) for c in config.shaded[0]]
    game.apply(config.encode(0, game.cell(0, 3)))
    assert game.legal_actions() == [config.encode(0, c) for c in config.shaded[1]]
    game.apply(config.encode(0, game.cell(6, 2)))
    assert game.markers == list(config.start)
    assert game.supply == [config.flowers - 1] * 2
    assert game.to_move == 0 and game.turn == 2
    assert action_slots(game) == {1, 2, 3}
    columns = game.result()["seat_columns"]
    assert columns["flowers_placed"] == [1, 1]
    assert all(columns[kind] == [0, 0] for kind in ("overgrow", "grow", "cast", "spread"))


def test_pass_when_no_move_has_a_placement():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . o . .
        . . . . .
        . . o . .
    """, markers=(0, 4))  # x has been overgrown off the board: nothing to grow from
    assert game.legal_actions() == [config.pass_action]
    before = game.snapshot()
    game.apply(config.pass_action)
    assert game.markers == [1, 4]
    assert game.board == before["board"] and game.supply == before["supply"]
    assert game.turn == before["turn"] + 1 and game.to_move == 1
    assert game.result()["seat_columns"]["passes"] == [1, 0]


def test_pass_skips_the_space_holding_the_other_marker():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . o . .
        . . . . .
        . . o . .
    """, markers=(0, 1))
    assert game.legal_actions() == [config.pass_action]
    game.apply(config.pass_action)
    assert game.markers == [2, 1]


def test_no_pass_while_some_move_has_a_placement():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . o . .
        . . x . .
        . . : . .
    """, markers=(7, 3))  # spaces 0 overgrow (no target), 1 grow, 2 cast
    assert config.pass_action not in game.legal_actions()
    with pytest.raises(ValueError):
        game.apply(config.pass_action)


def test_illegal_action_raises():
    config = load()
    game = OvergrowthGame(config)
    with pytest.raises(ValueError):
        game.apply(config.encode(0, game.cell(3, 3)))


# --- the end of the game -------------------------------------------------------

LADDER = """
    . . x . .
    . x . . .
    . . x . .
    . x . . .
    . . : . .
"""


def test_connection_wins_and_may_use_diagonal_steps():
    config = load(*SMALL)
    game = position(config, LADDER, markers=(0, 4))
    game.apply(config.encode(1, game.cell(4, 2)))  # grow from (3,1)
    assert game.done and game.end == "connection" and game.winner == 0
    assert game.result()["rank"] == [1, 2]
    assert game.turn == 11 and game.to_move == 1
    assert game.legal_actions() == []


def test_advanced_variant_a_diagonal_line_does_not_win():
    config = load(*SMALL, "rules.orthogonal_connection=true")
    game = position(config, LADDER, markers=(0, 4))
    game.apply(config.encode(1, game.cell(4, 2)))
    assert not game.done and game.end == ""


def test_advanced_variant_an_orthogonal_line_wins():
    config = load(*SMALL, "rules.orthogonal_connection=true")
    game = position(config, """
        . . x . .
        . . x . .
        . . x x .
        . . . x .
        . . : . .
    """, markers=(0, 4))
    assert not game.connects(0)
    game.apply(config.encode(3, config.pair_placement(4, 2)))  # spread (4,2)+(4,3)
    assert game.end == "connection" and game.winner == 0


def test_last_flower_ends_the_game_and_more_flowers_wins():
    config = load(*SMALL)
    game = position(config, """
        . . x . .
        . . o . .
        . . . . .
        . . . . .
        . . : . .
    """, markers=(0, 4), supply=(1, 10))
    game.apply(config.encode(1, game.cell(0, 1)))  # grow: 2 flowers against 1
    assert game.end == "flowers" and game.winner == 0
    assert game.result()["rank"] == [1, 2]
    assert game.result()["score"] == [2.0, 1.0]


def test_last_flower_with_fewer_flowers_loses():
    config = load(*SMALL)
    game = position(config, """
        . . x . .
        o o o . .
        . . . . .
        . . . . .
        . . : . .
    """, markers=(0, 4), supply=(1, 10))
    game.apply(config.encode(1, game.cell(0, 1)))
    assert game.end == "flowers" and game.winner == 1
    assert game.result()["rank"] == [2, 1]


def test_last_flower_with_equal_flowers_ties():
    config = load(*SMALL)
    game = position(config, """
        . . x . .
        . o o . .
        . . . . .
        . . . . .
        . . : . .
    """, markers=(0, 4), supply=(1, 10))
    game.apply(config.encode(1, game.cell(0, 1)))
    assert game.end == "flowers" and game.winner is None
    assert game.result()["rank"] == [1, 1]


def test_connection_is_checked_before_the_last_flower():
    config = load(*SMALL)
    game = position(config, LADDER, markers=(0, 4), supply=(1, 25))
    game.apply(config.encode(1, game.cell(4, 2)))
    assert game.end == "connection" and game.winner == 0


def test_turn_cap_ends_the_game_as_a_stall():
    config = load("limits.max_turns=6")
    game = OvergrowthGame(config)
    bots = [ReferenceRandomBot(0), ReferenceRandomBot(1)]
    play_reference(game, bots, seed=5, max_turns=config.max_turns)
    assert game.done and game.end == "stall" and game.winner is None
    result = game.result()
    assert result["rank"] == [0, 0] and result["turns"] == 6 and result["end"] == "stall"


# Striped boards on which no flower has two opponent flowers beside it: once full, nobody can move.
STRIPES = {5: """
        x x x x x
        x x x x x
        o o o o o
        o o o o o
        x x x x .
    """, 4: """
        x x x x x
        o o o o o
        o o o o o
        x x x x .
    """}


@pytest.mark.parametrize("rows, ranks", [(5, [1, 2]), (4, [1, 1])])
def test_a_full_board_nobody_can_overgrow_ends_blocked_on_flower_count(rows, ranks):
    config = load(f"board.rows={rows}", "board.columns=5", "board.shaded_width=1")
    game = position(config, STRIPES[rows], markers=(4, 0))  # slot 1 lands on grow
    assert not game.blocked()
    game.apply(config.encode(1, game.cell(rows - 1, 4)))
    assert game.done and game.end == "blocked" and game.turn == 11
    assert game.winner == (0 if ranks == [1, 2] else None)
    result = game.result()
    assert result["rank"] == ranks and result["end"] == "blocked" and result["turns"] == 11
    assert result["score"] == ([15.0, 10.0] if rows == 5 else [10.0, 10.0])


CORNER = """
    o x x x x
    x x x x x
    x x x x x
    o o o o o
    o o o o .
"""  # x could overgrow the corner o; nothing else is possible once (4, 4) is filled


@pytest.mark.parametrize("moves, ends", [([2], True), ([1, 2], True), ([1, 2, 3], False)])
def test_blocked_follows_the_markers_a_pass_can_reach(moves, ends):
    # a 4-space track: with moves of 2 only, x's marker (on grow) only ever reaches grow and spread, and
    # with moves of 1 or 2 the two passing markers leapfrog so that x never lands on overgrow either: its
    # overgrow can never be played. With moves of 1 to 3 its next turn lands on overgrow
    config = load(*SMALL, 'track.spaces=["overgrow", "grow", "cast", "spread"]', "track.start=[1, 0]",
                  f"track.moves={moves}")
    game = position(config, CORNER, to_move=1, markers=(1, 0))
    assert game.overgrow_targets(0) == [game.cell(0, 0)]
    game.apply(config.encode(moves.index(2) + 1, game.cell(4, 4)))  # o casts from (4, 1) onto the last cell
    assert game.done is ends and game.blocked() is ends
    assert game.end == ("blocked" if ends else "")
    if ends:
        assert game.winner == 0 and game.result()["rank"] == [1, 2]


def test_a_pass_is_no_reason_to_end_while_the_other_seat_can_place():
    config = load(*SMALL)
    game = position(config, """
        o x x x x
        x x x x x
        x x x x x
        o o o o o
        o o o o o
    """, markers=(4, 0))  # full board: x can only overgrow the corner, and its marker reaches overgrow later
    assert game.legal_actions() == [config.pass_action] and not game.blocked()
    game.apply(config.pass_action)
    assert not game.done and not game.blocked()


# --- result and snapshot -------------------------------------------------------

def test_result_and_snapshot_shapes():
    config = load()
    game = OvergrowthGame(config)
    game.apply(config.encode(0, game.cell(0, 2)))
    snapshot = game.snapshot()
    assert snapshot == {"board": game.board, "markers": list(config.start),
                        "supply": [config.flowers - 1, config.flowers], "turn": 1, "end": ""}
    result = game.result()
    assert set(result) == {"score", "rank", "end", "turns", "seat_columns"}
    assert set(result["seat_columns"]) == {"flowers_placed", "flowers_lost", "overgrow", "grow", "cast",
                                           "spread", "passes"}
    assert result["score"] == [1.0, 0.0]


# --- bots ----------------------------------------------------------------------

def test_connection_distance_on_an_empty_board_is_the_number_of_rows():
    config = load(*SMALL)
    game = OvergrowthGame(config)
    assert connection_distance(config, game.board, 0) == config.rows
    assert connection_distance(load(), OvergrowthGame(load()).board, 1) == 7


def test_connection_distance_shrinks_with_own_flowers_on_the_path():
    config = load(*SMALL)
    game = position(config, LADDER)
    assert connection_distance(config, game.board, 0) == 1
    # x fills the 1-cell shaded[0], so o has nowhere to start
    assert connection_distance(config, game.board, 1) == config.cells + 1


def test_connection_distance_respects_the_shaded_rule():
    # shaded (0,1..3) and (4,1..3); 4-neighbour paths
    config = load(*SMALL, "board.shaded_width=3", "rules.orthogonal_connection=true")
    game = position(config, """
        . : : : .
        . . . x .
        . . . x .
        . . . x .
        . x : : .
    """)
    # (4,3) is barred by x's (4,1): (0,3) down the x column, then (3,2) and (3,1) to reach (4,1)
    assert connection_distance(config, game.board, 0) == 3
    game.board[game.cell(4, 1)] = EMPTY
    assert connection_distance(config, game.board, 0) == 2


def test_connection_distance_is_cells_plus_one_when_blocked():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        o o o o o
        . . . . .
        . . : . .
    """)
    assert connection_distance(config, game.board, 0) == config.cells + 1
    assert connection_distance(config, game.board, 1) == 4  # one empty cell in each other row


def test_random_bot_picks_floor_u_times_n():
    config = load()
    game = OvergrowthGame(config)
    legal = game.legal_actions()
    u = uniform_one(99, "bot/0", 0)[0]
    assert ReferenceRandomBot(0).act(game, 99) == legal[min(int(u * len(legal)), len(legal) - 1)]


def test_greedy_bot_takes_an_immediate_win():
    config = load(*SMALL)
    game = position(config, LADDER, markers=(0, 4))
    bot = ReferenceGreedyBot(0, GREEDY_WEIGHTS)
    for seed in range(5):
        after = game.clone()
        after.apply(bot.act(game, seed))
        assert after.end == "connection" and after.winner == 0


def test_greedy_bot_returns_the_pass_when_it_is_forced():
    config = load(*SMALL)
    game = position(config, """
        . . : . .
        . . . . .
        . . o . .
        . . . . .
        . . o . .
    """, markers=(0, 4))
    assert ReferenceGreedyBot(0, GREEDY_WEIGHTS).act(game, 1) == config.pass_action


def test_greedy_bot_does_not_change_the_game():
    config = load()
    game = OvergrowthGame(config)
    game.apply(config.encode(0, game.cell(0, 3)))
    game.apply(config.encode(0, game.cell(6, 3)))
    before = game.snapshot()
    ReferenceGreedyBot(0, GREEDY_WEIGHTS).act(game, 3)
    assert game.snapshot() == before


# --- whole games ---------------------------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_random_games_end_and_conserve_flowers(seed):
    config = load()
    game = OvergrowthGame(config)
    bots = [ReferenceRandomBot(0), ReferenceRandomBot(1)]
    while not game.done:
        legal = game.legal_actions()
        assert legal and legal == sorted(set(legal))
        game.apply(bots[game.to_move].act(game, seed))
        game.decisions += 1
        for seat in range(2):
            on_board = game.flower_count(seat)
            assert on_board == game.flowers_placed(seat) - game.flowers_lost[seat]
            for area in config.shaded:
                assert sum(game.board[c] == seat for c in area) <= 1
    assert game.end in ("connection", "flowers")


# --- rendering -----------------------------------------------------------------

def test_render_board_draws_flowers_shaded_cells_markers_and_supply():
    config = load(*SMALL)
    game = position(config, """
        . . x . .
        . . . . .
        . . . . .
        . o . . .
        . . : . .
    """, markers=(0, 4))
    text = render_board(config, game.board, game.markers, game.supply)
    lines = text.splitlines()
    assert lines[1].split()[1:] == [".", ".", "x", ".", "."]
    assert lines[5].split()[1:] == [".", ".", ":", ".", "."]
    assert "0 overgrow [x]" in text and "4 overgrow [o]" in text
    assert lines[-1] == "supply: x 24, o 24"
    assert render_game(game).startswith("turn 10: x (seat 0) to move")


def test_describe_action():
    config = load()
    assert describe_action(config, config.encode(2, 3 * 7 + 4), "cast") == "move 2 to cast: place at (3,4)"
    assert describe_action(config, config.encode(0, 3), None) == "first turn: place at (0,3)"
    assert describe_action(config, config.encode(1, config.pair_placement(2, 1)), "spread") == \
        "move 1 to spread: place at (2,1)+(2,2)"
    assert describe_action(config, config.pass_action, None) == "pass"
