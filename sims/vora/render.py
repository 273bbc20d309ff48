"""Text pictures of Vora positions and actions, for ``glade replay`` and golden files.

A 3-player game (seats at N, E and S; W unseated)::

    turn 0: seat 0 (N) to move, phase main
             N: seat 0
             0 1 2 3 4
          0  m s d m l
          1  l m g ~ d
    W: -  2  g w p c c   E: seat 1
          3  p m d l g
          4  m l d c p
             S: seat 2
    farms: seat 0 (N) c1 ~1 | seat 1 (E) l1 | seat 2 (S) d1
    bag: 79 cubes
    legend: p pig, c crow, w wolf, l ladybug, d duck, m mole, s sheep, ~ water, g grass, . empty

One symbol per kind (the config's ``letter``), ``.`` an empty cell.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sims.vora.config import DIRECTION_NAMES, SIDES, VoraConfig

if TYPE_CHECKING:
    from sims.vora.reference import VoraGame

EMPTY_SYMBOL = "."


def render_meadow(config: VoraConfig, meadow: Sequence[int]) -> list[str]:
    """The meadow, row 0 at the top, with row and column numbers."""
    lines = ["    " + " ".join(str(c) for c in range(config.size))]
    for row in range(config.size):
        cells = meadow[row * config.size:(row + 1) * config.size]
        lines.append(f"{row:>2}  " + " ".join(EMPTY_SYMBOL if k < 0 else config.kinds[k].letter for k in cells))
    return lines


def render_farm(config: VoraConfig, farm: Sequence[int]) -> str:
    """``c1 g2``: symbol and count of each kind held; ``-`` for an empty farm."""
    held = [f"{config.kinds[k].letter}{n}" for k, n in enumerate(farm) if n > 0]
    return " ".join(held) or "-"


def legend(config: VoraConfig) -> str:
    return "legend: " + ", ".join(f"{k.letter} {k.name}" for k in config.kinds) + f", {EMPTY_SYMBOL} empty"


def render_position(config: VoraConfig, meadow: Sequence[int], farms: Sequence[Sequence[int]],
                    seat_sides: Sequence[int], bag_left: int) -> str:
    """The meadow with the seats at its sides, the farms, the bag count and the legend."""
    seat_at = {side: seat for seat, side in enumerate(seat_sides)}

    def label(side: int) -> str:
        return f"{SIDES[side]}: seat {seat_at[side]}" if side in seat_at else f"{SIDES[side]}: -"

    grid = render_meadow(config, meadow)
    middle = 1 + config.size // 2  # the meadow's middle row (line 0 holds the column numbers)
    margin = len(label(3)) + 1
    lines = [" " * (margin + 4) + label(0)]
    for index, line in enumerate(grid):
        if index == middle:
            lines.append(label(3).ljust(margin) + line + "   " + label(1))
        else:
            lines.append(" " * margin + line)
    lines.append(" " * (margin + 4) + label(2))
    lines.append("farms: " + " | ".join(f"seat {seat} ({SIDES[side]}) {render_farm(config, farms[seat])}"
                                         for seat, side in enumerate(seat_sides)))
    lines.append(f"bag: {bag_left} cubes")
    lines.append(legend(config))
    return "\n".join(lines)


def render_game(game: "VoraGame") -> str:
    """A header (turn, seat to move and phase, or the outcome) above :func:`render_position`."""
    side = SIDES[game.seat_sides[game.to_move]]
    if game.done:
        result = game.result()
        if game.end == "stall":
            outcome = "no ranks"
        else:
            winners = [str(s) for s, r in enumerate(result["rank"]) if r == 1]
            outcome = ("tie between seats " if len(winners) > 1 else "seat ") + ", ".join(winners) + (
                "" if len(winners) > 1 else " wins")
        scores = ", ".join(f"{s:g}" for s in result["score"])
        header = f"turn {game.turn}: game over by {game.end}, {outcome} (scores {scores})"
    else:
        header = f"turn {game.turn}: seat {game.to_move} ({side}) to move, phase {game.phase}"
        waiting = []
        if game.recipients:
            waiting.append("fallen " + " ".join(game.config.kinds[k].letter for k in game.recipients))
        if game.extras_pending:
            waiting.append(f"{game.extras_pending} extra")
        if game.bigs_pending:
            waiting.append(f"{game.bigs_pending} big")
        if waiting:
            header += " (waiting: " + ", ".join(waiting) + ")"
    body = render_position(game.config, game.meadow, game.farms, game.seat_sides, game.bag_left())
    return header + "\n" + body


def _cell(config: VoraConfig, cell: int) -> str:
    return "({},{})".format(*divmod(cell, config.size))


def _line(side: int, line: int) -> str:
    return f"{'column' if side in (0, 2) else 'row'} {line}"


def describe_action(config: VoraConfig, action: int) -> str:
    """One action in words, from the config alone.

    ``encode_push(6, 0, 2)`` reads ``push sheep from N into column 2``;
    ``encode_dig(12, 2)`` reads ``mole at (2,2) digs NE``.
    """
    block, fields = config.decode(action)
    names = config.kind_names
    if block == "push":
        kind, side, line = fields
        return f"push {names[kind]} from {SIDES[side]} into {_line(side, line)}"
    if block == "double":
        side, line = fields
        return f"double push from {SIDES[side]} into {_line(side, line)}"
    if block == "devour":
        return f"devour the animal at {_cell(config, fields[0])}"
    if block == "wolf":
        side, line = fields
        return f"wolf from {SIDES[side]} onto {_line(side, line)}"
    if block == "pick_up":
        return f"pick up the ladybug at {_cell(config, fields[0])}"
    if block == "fly_swap":
        return f"duck at {_cell(config, fields[0])} swaps with {_cell(config, fields[1])}"
    if block == "dig":
        return f"mole at {_cell(config, fields[0])} digs {DIRECTION_NAMES[fields[1]]}"
    if block == "recipient":
        return f"fallen cube to seat {fields[0]}"
    if block == "pick":
        return f"pick the cube at {_cell(config, fields[0])}"
    if block == "decline":
        return "decline the combo"
    seat, kind = fields
    return f"steal {names[kind]} from seat {seat}"


def compact(game: "VoraGame") -> str:
    """Three lines for ``glade replay``: the legend (shown once), the meadow's rows and the bag, the farms.

    ``meadow ~wwcc pdwml wsldp mlg~g pmw~w; bag 79``
    ``farms 0 (N) d1 s1 | 1 (E) ~1 | 2 (S) p1``
    """
    config = game.config
    rows = ("".join(EMPTY_SYMBOL if k < 0 else config.kinds[k].letter
                    for k in game.meadow[row * config.size:(row + 1) * config.size]) for row in range(config.size))
    farms = " | ".join(f"{seat} ({SIDES[side]}) {render_farm(config, game.farms[seat])}"
                       for seat, side in enumerate(game.seat_sides))
    return "\n".join([legend(config) + f"; meadow rows 0..{config.size - 1} left to right",
                      "meadow " + " ".join(rows) + f"; bag {game.bag_left()}", "farms " + farms])
