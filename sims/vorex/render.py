"""Text pictures of Vorex positions and actions, for ``glade replay`` and golden files.

The forest is drawn row by row (``r`` growing downwards), each row shifted
half a hex from the one above, so the six neighbours of a hex are the two
beside it and the two above and below it on each side. Every hex is two
characters: the stump kind's letter and the seat of the flower on it::

    turn 5: seat 1 to move, phase action (2 actions left)
    -1     __  __  __
     0   __  L0  a.  __
     1     __  w.  a.  __
    ...

Kind letters: ``a`` arid, ``L`` light, ``m`` mushroom, ``w`` water, ``i``
insect, ``B`` bloom, ``D`` draw, ``E`` expand, ``1``-``9`` points (``P``
above 9), ``R`` ruin; second character the flower's seat, ``.`` for none;
``__`` an empty playable hex. Only the rows and columns around the forest are drawn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sims.vorex.config import RESOURCES, VorexConfig

if TYPE_CHECKING:
    from sims.vorex.reference import VorexGame

KIND_LETTERS = {"arid": "a", "light": "L", "mushroom": "m", "water": "w", "insect": "i", "bloom": "B",
                "draw": "D", "expand": "E"}
EMPTY_HEX = "__"


def hex_symbol(game: "VorexGame", hex_: int) -> str:
    """Two characters: what covers the hex and whose flower is on it."""
    tile = game.tile_at[hex_]
    if tile == -1:
        return EMPTY_HEX
    if tile == -2:
        letter = "R"
    else:
        stump = game.config.tiles[tile].hexes[game.part_at[hex_]]
        letter = KIND_LETTERS.get(stump.kind) or (str(stump.value) if stump.value <= 9 else "P")
    seat = game.flower_at[hex_]
    return letter + ("." if seat < 0 else str(seat))


def render_forest(game: "VorexGame") -> list[str]:
    """The covered part of the map with one hex of margin, one text line per row."""
    config = game.config
    coords = config.hex_coords
    covered = [h for h in range(config.playable) if game.tile_at[h] != -1]
    if not covered:
        return ["(no tile placed yet)"]
    shown = set(covered)
    for h in covered:
        shown.update(n for n in game.geo.neighbours[h] if n < config.playable)
    columns = {h: 2 * coords[h][0] + coords[h][1] for h in shown}  # half-hex units
    left = min(columns.values())
    lines = []
    for r in sorted({coords[h][1] for h in shown}):
        row = sorted((columns[h], h) for h in shown if coords[h][1] == r)
        text = ""
        for column, h in row:
            text = text.ljust(2 * (column - left)) + hex_symbol(game, h)
        lines.append(f"{r:>3} " + text)
    return lines


def resource_text(counts) -> str:
    return " ".join(f"{name[0]}{n}" for name, n in zip(RESOURCES, counts))


def render_game(game: "VorexGame") -> str:
    """A header (turn, seat to move and phase, or the outcome), the forest, the seats and the tiles."""
    config = game.config
    if game.done:
        result = game.result()
        scores = ", ".join(f"{s:g}" for s in result["score"])
        if game.end == "stall":
            outcome = "no ranks"
        else:
            winners = [str(s) for s, r in enumerate(result["rank"]) if r == 1]
            outcome = ("tie between seats " + ", ".join(winners)) if len(winners) > 1 else f"seat {winners[0]} wins"
        header = f"turn {game.turn}: game over by {game.end}, {outcome} (scores {scores})"
        if result["game_columns"]["solo_name"]:
            header += f", subspecies {result['game_columns']['solo_name']}"
    else:
        header = f"turn {game.turn}: seat {game.to_move} to move, phase {game.phase}"
        if game.phase != "setup":
            header += f" ({game.actions_left} actions left)"
        if game.last_flower:
            header += ", last flower placed: final round"
    lines = [header, f"objectives: green {game.green}, brown {game.brown}"]
    lines += render_forest(game)
    for seat in range(game.players):
        who = "weed" if seat == game.weed else f"seat {seat}"
        lines.append(f"{who}: flowers left {game.flowers_left[seat]}, resources {resource_text(game.resources[seat])}")
    face_up = ", ".join(config.tile_names[t] if t >= 0 else "-" for t in game.face_up)
    lines.append(f"face-up: {face_up}; pile: {len(game.pile) - game.pile_pointer} tiles; "
                 f"supply {resource_text(game.supply)}")
    if game.phase == "setup" and not game.done:
        waiting = [config.tile_names[t] for t in game.setup_tiles[game.to_move] if t >= 0]
        lines.append("setup tiles: " + (", ".join(waiting) or "-"))
    lines.append("legend: a arid, L light, m mushroom, w water, i insect, B bloom, D draw, E expand, "
                 "digit points, R ruin; then the flower's seat (. none); __ empty")
    return "\n".join(lines)


def _hex(config: VorexConfig, hex_: int) -> str:
    q, r = config.hex_coords[hex_]
    return f"hex {hex_} ({q},{r})"


def describe_action(config: VorexConfig, action: int) -> str:
    """One action in words, from the config alone.

    ``encode_bloom(84)`` reads ``bloom hex 84 (0,0)``; ``encode_place(1, 84, 2)``
    reads ``place slot 1 at hex 84 (0,0), rotation 2 (120 degrees clockwise)``.
    """
    block, fields = config.decode(action)
    if block == "bloom":
        return f"bloom {_hex(config, fields[0])}"
    if block == "place":
        slot, anchor, rotation = fields
        return f"place slot {slot} at {_hex(config, anchor)}, rotation {rotation} ({60 * rotation} degrees clockwise)"
    return block


def compact(game: "VorexGame") -> str:
    """Two or three lines for ``glade replay``: the forest in counts, then each seat's flowers and resources.

    ``forest 4 tiles, 3 flowers; face-up l1_bar, l1_wave; pile 10``
    ``seat 0 flowers 2 (11 left) l4 m0 w0 i0 | seat 1 flowers 1 (12 left) l3 m1 w0 i0``
    """
    config = game.config
    tiles = len({t for t in game.tile_at if t >= 0})
    placed = [sum(1 for f in game.flower_at if f == seat) for seat in range(game.players)]
    face_up = ", ".join(config.tile_names[t] if t >= 0 else "-" for t in game.face_up)
    seats = " | ".join(f"{'weed' if seat == game.weed else f'seat {seat}'} flowers {placed[seat]} "
                       f"({game.flowers_left[seat]} left) {resource_text(game.resources[seat])}"
                       for seat in range(game.players))
    lines = ["legend: resources l light, m mushroom, w water, i insect",
             f"forest {tiles} tiles, {sum(placed)} flowers; face-up {face_up}; pile {len(game.pile) - game.pile_pointer}",
             seats]
    return "\n".join(lines)
