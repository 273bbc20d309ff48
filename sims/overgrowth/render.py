"""Text pictures of Overgrowth positions and actions, for ``glade replay`` and golden files.

A 5x5 board with seat 0's flower on (0,2) and seat 1's on (4,1)::

       0 1 2 3 4
    0  . : x : .
    1  . . . . .
    2  . . . . .
    3  . . . . .
    4  . o : : .
    track: 0 overgrow [x] | 1 grow | 2 cast | 3 spread | 4 overgrow [o] | ...
    supply: x 24, o 24

``.`` empty, ``:`` empty shaded cell, ``x`` seat 0, ``o`` seat 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sims.overgrowth.config import OvergrowthConfig

if TYPE_CHECKING:
    from sims.overgrowth.reference import OvergrowthGame

SEAT_SYMBOLS = ("x", "o")
EMPTY_SYMBOL = "."
SHADED_SYMBOL = ":"


def _cell_symbol(config: OvergrowthConfig, board: Sequence[int], cell: int) -> str:
    owner = board[cell]
    if owner >= 0:
        return SEAT_SYMBOLS[owner]
    shaded = any(cell in area for area in config.shaded)
    return SHADED_SYMBOL if shaded else EMPTY_SYMBOL


def render_board(
    config: OvergrowthConfig, board: Sequence[int], markers: Sequence[int], supply: Sequence[int]
) -> str:
    """The board (row 0 at the top), the action track with the markers, and the supplies."""
    width = len(str(config.columns - 1))
    label = len(str(config.rows - 1))
    lines = [" " * (label + 2) + " ".join(str(c).rjust(width) for c in range(config.columns))]
    for row in range(config.rows):
        cells = (_cell_symbol(config, board, row * config.columns + col) for col in range(config.columns))
        lines.append(str(row).rjust(label) + "  " + " ".join(s.rjust(width) for s in cells))
    spaces = []
    for space, kind in enumerate(config.track):
        on_it = "".join(SEAT_SYMBOLS[seat] for seat in range(2) if markers[seat] == space)
        spaces.append(f"{space} {kind}" + (f" [{on_it}]" if on_it else ""))
    lines.append("track: " + " | ".join(spaces))
    lines.append("supply: " + ", ".join(f"{SEAT_SYMBOLS[seat]} {supply[seat]}" for seat in range(2)))
    return "\n".join(lines)


def render_game(game: "OvergrowthGame") -> str:
    """A header (turn, seat to move or the outcome) above :func:`render_board`."""
    if game.done:
        outcome = "tie" if game.winner is None else f"{SEAT_SYMBOLS[game.winner]} (seat {game.winner}) wins"
        if game.end == "stall":
            outcome = "no winner"
        header = f"turn {game.turn}: game over by {game.end}, {outcome}"
    else:
        header = f"turn {game.turn}: {SEAT_SYMBOLS[game.to_move]} (seat {game.to_move}) to move"
    return header + "\n" + render_board(game.config, game.board, game.markers, game.supply)


def describe_action(config: OvergrowthConfig, action: int, kind: str | None) -> str:
    """One action in words; ``kind`` is the action space it lands on, if known.

    On a 7x7 board, ``encode(2, 3 * 7 + 4)`` with kind ``"cast"`` reads
    ``move 2 to cast: place at (3,4)``; a pair reads ``place at (2,1)+(2,2)``.
    """
    if action == config.pass_action:
        return "pass"
    slot, placement = config.decode(action)
    cells = "+".join("({},{})".format(*divmod(cell, config.columns))
                     for cell in config.placement_cells(placement))
    if slot == 0:
        return f"first turn: place at {cells}"
    move = f"move {config.moves[slot - 1]}"
    if kind is not None:
        move += f" to {kind}"
    return f"{move}: place at {cells}"


def compact(game: "OvergrowthGame") -> str:
    """Three lines for ``glade replay``: a legend (shown once), the rows left to right, the markers and supplies.

    ``legend: . empty, : shaded, x seat 0, o seat 1; board rows 0..6 left to right``
    ``board ..:x:.. ....... ...``
    ``track x 0 overgrow, o 4 overgrow; supply x 24, o 24``
    """
    config = game.config
    rows = ("".join(_cell_symbol(config, game.board, row * config.columns + col) for col in range(config.columns))
            for row in range(config.rows))
    markers = ", ".join(f"{SEAT_SYMBOLS[seat]} {game.markers[seat]} {config.track[game.markers[seat]]}"
                        for seat in range(2))
    supply = ", ".join(f"{SEAT_SYMBOLS[seat]} {game.supply[seat]}" for seat in range(2))
    return "\n".join([
        f"legend: {EMPTY_SYMBOL} empty, {SHADED_SYMBOL} shaded, {SEAT_SYMBOLS[0]} seat 0, {SEAT_SYMBOLS[1]} seat 1; "
        f"board rows 0..{config.rows - 1} left to right",
        "board " + " ".join(rows),
        f"track {markers}; supply {supply}",
    ])
