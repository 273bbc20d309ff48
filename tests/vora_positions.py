"""Vora known positions drawn as text, for the reference engine's rule tests.

Meadows are drawn row 0 (side N) at the top, one symbol per cube: ``p`` pig,
``c`` crow, ``w`` wolf, ``l`` ladybug, ``d`` duck, ``m`` mole, ``s`` sheep,
``~`` water, ``g`` grass, ``.`` empty. Farms are written ``"c1 ~2"`` (symbol
and count). Seats: 2 players N,S; 3 players N,E,S (W unseated); 4 players
N,E,S,W.
"""

from __future__ import annotations

import textwrap

from sims.vora import config as vora_config
from sims.vora.reference import EMPTY, VoraGame

CONFIG = vora_config.load()


def load(*overrides: str):
    return vora_config.load(overrides=list(overrides))


# --- helpers --------------------------------------------------------------------------

def symbol_kinds(config) -> dict[str, int]:
    return {kind.letter: index for index, kind in enumerate(config.kinds)} | {".": EMPTY}


def meadow(picture: str, config=CONFIG) -> list[int]:
    rows = [line.split() for line in textwrap.dedent(picture).strip().splitlines()]
    assert len(rows) == config.size and all(len(row) == config.size for row in rows), picture
    symbols = symbol_kinds(config)
    return [symbols[s] for row in rows for s in row]


def picture(cells: list[int], config=CONFIG) -> str:
    letters = {k: s for s, k in symbol_kinds(config).items()}
    n = config.size
    return "\n".join(" ".join(letters[k] for k in cells[r * n:(r + 1) * n]) for r in range(n))


def same(cells: list[int], expected: str, config=CONFIG) -> None:
    assert picture(cells, config) == picture(meadow(expected, config), config)


def farm(text: str, config=CONFIG) -> list[int]:
    counts = [0] * config.num_kinds
    symbols = symbol_kinds(config)
    for item in text.split():
        counts[symbols[item[0]]] += int(item[1:])
    return counts


def kinds(text: str, config=CONFIG) -> list[int]:
    symbols = symbol_kinds(config)
    return [symbols[s] for s in text.split()]


def K(name: str, config=CONFIG) -> int:
    return config.kind_names.index(name)


def cell(row: int, col: int, config=CONFIG) -> int:
    return row * config.size + col


def position(board: str, players: int = 2, farms: tuple[str, ...] = (), to_move: int = 0,
             bag: str = "g g g g g g g g g g", config=CONFIG) -> VoraGame:
    """A game at the start of ``to_move``'s turn with the drawn meadow, farms and bag (drawn in order)."""
    game = VoraGame(config, players, seed=1)
    game.meadow = meadow(board, config)
    farms = tuple(farms) + ("",) * (players - len(farms))
    game.farms = [farm(text, config) for text in farms]
    game.bag = kinds(bag, config)
    game.bag_pointer = 0
    game.to_move = to_move
    game.turn = 6
    return game


def run_turn(game: VoraGame, *actions: int) -> None:
    for action in actions:
        game.apply(action)
        game.decisions += 1


# A meadow without any formation.
QUIET = """
    p w d l s
    l d s p ~
    s g w ~ d
    c m c p s
    d c p m m
"""
