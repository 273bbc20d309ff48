"""Known positions for the batched Overgrowth engine, one rule per test.

Positions are drawn as in the reference tests (row 0 on top, ``x`` seat 0,
``o`` seat 1, ``.`` empty, ``:`` empty shaded cell) and loaded into a batch
of one game, so each rule is checked on the batched engine by itself.
"""

from __future__ import annotations

import numpy as np
import pytest

from sims.core.rng import game_seeds
from sims.overgrowth import config as overgrowth_config
from sims.overgrowth.reference_bots import connection_distance as reference_distance
from sims.overgrowth.kernels import connection_distance
from sims.overgrowth.rules import END_REASONS, OvergrowthEngine
from sims.overgrowth.kernels import passes_reach
from tests.test_overgrowth_reference import CORNER, SMALL, STRIPES, position

U64 = np.uint64


def load(*overrides: str):
    return overgrowth_config.load(overrides=list(overrides))


def batched(game) -> tuple[OvergrowthEngine, object]:
    """The reference game's position as a batch of one game."""
    engine = OvergrowthEngine(game.config)
    state = engine.init(game_seeds(0, np.arange(1)))
    for cell, owner in enumerate(game.board):
        if owner >= 0:
            state.stones[0, owner] |= U64(1) << U64(cell)
    state.markers[0] = game.markers
    state.supply[0] = game.supply
    state.turn[0] = game.turn
    state.to_move[0] = game.to_move
    return engine, state


def legal(engine, state) -> set[tuple[int, tuple[tuple[int, int], ...]]]:
    """Legal actions as (slot, cells placed as (row, col)); slot -1 is the pass."""
    config = engine.config
    found = set()
    for action in np.nonzero(engine.legal_mask(state)[0])[0]:
        slot, placement = config.decode(int(action))
        cells = () if slot < 0 else tuple(divmod(c, config.columns) for c in config.placement_cells(placement))
        found.add((slot, cells))
    return found


def cells_of_slot(engine, state, slot: int) -> set[tuple[tuple[int, int], ...]]:
    return {cells for s, cells in legal(engine, state) if s == slot}


def act(engine, state, slot: int, *cells: tuple[int, int]) -> None:
    config = engine.config
    if len(cells) == 1:
        placement = cells[0][0] * config.columns + cells[0][1]
    else:
        placement = config.pair_placement(*cells[0])
    engine.step(state, np.array([config.encode(slot, placement)]))


# Markers: seat 0 on space 4 (overgrow), seat 1 on space 0; with the default
# track, slot 1 lands on grow, slot 2 on cast, slot 3 on spread.
MARKERS = (4, 0)


def test_overgrow_takes_a_flower_with_two_orthogonal_sides():
    game = position(load(*SMALL), """
        . . x . .
        . x o . .
        . . x o .
        . . . x .
        . . : . .
    """, markers=(7, 3))  # slot 1 lands on space 0: overgrow
    engine, state = batched(game)
    assert cells_of_slot(engine, state, 1) == {((1, 2),), ((2, 3),)}
    act(engine, state, 1, (2, 3))
    snapshot = engine.snapshot(state, 0)
    assert snapshot["board"][2 * 5 + 3] == 0
    assert engine.results(state).seat_columns["flowers_lost"][0].tolist() == [0, 1]


def test_overgrow_ignores_diagonal_sides():
    game = position(load(*SMALL), """
        . . : . .
        . x . x .
        . . o . .
        . x . x .
        . . : . .
    """, markers=(7, 3))
    engine, state = batched(game)
    assert cells_of_slot(engine, state, 1) == set()
    game.board[2 * 5 + 1] = game.board[2 * 5 + 3] = 0  # two orthogonal sides: now it can be overgrown
    engine, state = batched(game)
    assert cells_of_slot(engine, state, 1) == {((2, 2),)}


def test_grow_reaches_all_eight_neighbours():
    game = position(load(*SMALL), """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    expected = {((r, c),) for r in (1, 2, 3) for c in (1, 2, 3)} - {((2, 2),)}
    assert cells_of_slot(engine, state, 1) == expected


def test_cast_lands_exactly_three_away_in_eight_directions():
    game = position(load(), """
        . . : : : . .
        . . . . . . .
        . . . o . . .
        . . . x . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    # from (3,3): up to (0,3) is in seat 0's shaded area (allowed: no x there yet)
    expected = {((0, 3),), ((6, 3),), ((3, 0),), ((3, 6),), ((0, 0),), ((0, 6),), ((6, 0),), ((6, 6),)}
    assert cells_of_slot(engine, state, 2) == expected


def test_spread_places_one_or_a_row_pair_touching_an_old_flower():
    game = position(load(*SMALL), """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    spread = cells_of_slot(engine, state, 3)
    singles = {c for c in spread if len(c) == 1}
    pairs = {c for c in spread if len(c) == 2}
    assert singles == {((1, 2),), ((3, 2),), ((2, 1),), ((2, 3),)}
    assert pairs == {((1, 1), (1, 2)), ((1, 2), (1, 3)), ((3, 1), (3, 2)), ((3, 2), (3, 3)),
                     ((2, 0), (2, 1)), ((2, 3), (2, 4))}


def test_spread_pair_needs_two_flowers_left():
    game = position(load(*SMALL), """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """, markers=MARKERS, supply=(1, 20))
    engine, state = batched(game)
    assert all(len(c) == 1 for c in cells_of_slot(engine, state, 3))


def test_shaded_area_holds_one_flower_of_each_colour():
    game = position(load(), """
        . . x : : . .
        . . x . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    grow = {c[0] for c in cells_of_slot(engine, state, 1)}
    assert (0, 3) not in grow and (0, 1) in grow
    spread_pairs = {c for c in cells_of_slot(engine, state, 3) if len(c) == 2}
    assert ((0, 3), (0, 4)) not in spread_pairs


def test_spread_pair_may_not_put_two_flowers_in_one_shaded_area():
    game = position(load(), """
        . . : : : . .
        . . . x . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . : : : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    spread_pairs = {c for c in cells_of_slot(engine, state, 3) if len(c) == 2}
    assert ((0, 2), (0, 3)) not in spread_pairs and ((0, 3), (0, 4)) not in spread_pairs
    assert ((1, 1), (1, 2)) in spread_pairs


def test_marker_may_not_end_on_the_other_marker():
    game = position(load(*SMALL), """
        . . : . .
        . . . . .
        . . x . .
        . . . . .
        . . : . .
    """, markers=(4, 6))  # slot 2 would end on space 6
    engine, state = batched(game)
    slots = {slot for slot, _ in legal(engine, state)}
    assert slots == {1, 3}
    act(engine, state, 3, (2, 3))
    assert engine.snapshot(state, 0)["markers"] == [7, 6]  # counted past the other marker


def test_first_turn_places_in_own_shaded_area_only():
    engine = OvergrowthEngine(load())
    state = engine.init(game_seeds(0, np.arange(1)))
    assert legal(engine, state) == {(0, ((0, c),)) for c in (2, 3, 4)}
    engine.step(state, np.array([engine.config.encode(0, 3)]))
    assert legal(engine, state) == {(0, ((6, c),)) for c in (2, 3, 4)}
    assert engine.snapshot(state, 0)["markers"] == [0, 4]


def test_pass_when_no_move_has_a_placement_skips_the_other_marker():
    game = position(load(*SMALL), """
        x o o o o
        o o o o o
        o o o o o
        o o o o o
        o o o o o
    """, markers=(4, 5), supply=(20, 20))
    engine, state = batched(game)
    assert legal(engine, state) == {(-1, ())}
    engine.step(state, np.array([engine.config.pass_action]))
    assert engine.snapshot(state, 0)["markers"] == [6, 5]
    assert engine.results(state).seat_columns["passes"][0].tolist() == [1, 0]


def test_connection_with_diagonal_steps_wins_at_once():
    game = position(load(*SMALL), """
        . . x . .
        . x . . .
        . x . . .
        . . x . .
        . . : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    act(engine, state, 1, (4, 2))
    assert state.done[0] and END_REASONS[state.end[0]] == "connection"
    assert engine.results(state).rank[0].tolist() == [1, 2]


def test_orthogonal_variant_needs_orthogonal_line():
    game = position(load(*SMALL, "rules.orthogonal_connection=true"), """
        . . x . .
        . . x . .
        . . x . .
        . . . x .
        . . : . .
    """, markers=MARKERS)
    engine, state = batched(game)
    act(engine, state, 1, (4, 2))  # joins (3,3) only diagonally
    assert not state.done[0]
    act_seat1 = engine.config.pass_action
    engine.step(state, np.array([act_seat1]))
    act(engine, state, 1, (3, 2))
    assert state.done[0] and END_REASONS[state.end[0]] == "connection"


@pytest.mark.parametrize("x_extra, expected", [(2, [1, 2]), (0, [2, 1]), (1, [1, 1])])
def test_last_flower_ends_the_game_most_flowers_wins(x_extra, expected):
    config = load(*SMALL, "rules.flowers=6")
    game = position(config, """
        . . : . .
        . . . . .
        . . x . .
        o o o . .
        . . : . .
    """, markers=MARKERS, supply=(1, 3))
    for c in range(x_extra):
        game.board[c] = 0
    engine, state = batched(game)
    act(engine, state, 1, (1, 2))
    assert state.done[0] and END_REASONS[state.end[0]] == "flowers"
    assert engine.results(state).rank[0].tolist() == expected


@pytest.mark.parametrize("rows, ranks", [(5, [1, 2]), (4, [1, 1])])
def test_a_full_board_nobody_can_overgrow_ends_blocked_on_flower_count(rows, ranks):
    game = position(load(f"board.rows={rows}", "board.columns=5", "board.shaded_width=1"), STRIPES[rows],
                    markers=MARKERS)
    engine, state = batched(game)
    act(engine, state, 1, (rows - 1, 4))  # grow onto the last empty cell
    assert state.done[0] and END_REASONS[state.end[0]] == "blocked" and state.turn[0] == 11
    results = engine.results(state)
    assert results.rank[0].tolist() == ranks and results.score[0].tolist() == ([15, 10] if rows == 5 else [10, 10])


@pytest.mark.parametrize("moves, ends", [([2], True), ([1, 2], True), ([1, 2, 3], False)])
def test_blocked_follows_the_markers_a_pass_can_reach(moves, ends):
    config = load(*SMALL, 'track.spaces=["overgrow", "grow", "cast", "spread"]', "track.start=[1, 0]",
                  f"track.moves={moves}")
    engine, state = batched(position(config, CORNER, to_move=1, markers=(1, 0)))
    act(engine, state, moves.index(2) + 1, (4, 4))  # o casts onto the last cell; only x's overgrow is left
    assert state.done[0] is np.bool_(ends)
    assert END_REASONS[state.end[0]] == ("blocked" if ends else "")


def test_on_the_default_track_any_playable_action_is_reached_by_passing():
    # rules §6.3: with the default track (moves of 1 to 3), blocked is "no seat can play any action of the
    # track": whichever single action one seat can play, the forced passes bring its marker onto it
    engine = OvergrowthEngine(load())
    tables, track = engine.tables, len(engine.config.track)
    for playable in range(1, 1 << 8):
        for first in range(track):
            for second in range(track):
                if first != second:
                    for mover in range(2):
                        assert passes_reach(playable, first, second, mover, tables)


def test_connection_distance_matches_a_plain_search_on_random_boards():
    config = load(*SMALL)
    engine = OvergrowthEngine(config)
    rng = np.random.default_rng(11)
    boards = rng.choice([-1, -1, 0, 1], size=(400, config.cells))
    own = engine.geo.grid.from_cells(boards == 0)
    opp = engine.geo.grid.from_cells(boards == 1)
    tables = engine.tables
    fast = [connection_distance(o, p, tables.boards, tables.king, tables.far) for o, p in zip(own, opp)]
    plain = [reference_distance(config, list(board), 0) for board in boards]
    assert fast == plain


def test_invariants_hold_in_play_and_catch_a_corrupt_state():
    engine = OvergrowthEngine(load())
    state = engine.init(game_seeds(0, np.arange(2)))
    for action in (engine.config.encode(0, 3), engine.config.encode(0, 45)):
        engine.step(state, np.array([action, action]))
    assert all(holds.all() for holds in engine.invariants(state).values())
    state.stones[1, 1] |= state.stones[1, 0]  # game 1: a cell with two flowers, one conjured
    broken = {name for name, holds in engine.invariants(state).items() if not holds[1]}
    assert broken == {"one cell, one flower", "flowers conserved"}


def test_branch_copies_the_chosen_games_and_leaves_the_state_alone():
    engine = OvergrowthEngine(load())
    state = engine.init(game_seeds(5, np.arange(3)))
    engine.step(state, np.array([engine.config.encode(0, cell) for cell in (2, 3, 4)]))
    copy = engine.branch(state, np.array([2, 0, 2]))
    assert copy.size == 3 and len(copy.events) == 0 and not copy.events.enabled
    assert np.array_equal(copy.stones, state.stones[[2, 0, 2]])
    engine.step(copy, np.full(3, engine.config.pass_action))
    assert np.array_equal(state.turn, [1, 1, 1]) and np.array_equal(copy.turn, [2, 2, 2])
