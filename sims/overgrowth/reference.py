"""Overgrowth, one game in plain Python: the rules oracle for ``glade verify``.

Cells are numbered ``row * columns + col``; the default 7x7 board::

    row 0 (seat 0's side):   0  1 [2  3  4] 5  6     [..] = shaded[0]
    row 1:                   7  8  9 10 11 12 13
    ...
    row 6 (seat 1's side):  42 43 [44 45 46] 47 48   [..] = shaded[1]

A turn, as the rulebook orders it: move the action marker clockwise, carry
out the action of the space it lands on, check for a win, pass play on.

Rules and rulings: docs/rules/overgrowth.md (section numbers cited in the code).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from sims.core.directions import KING, ORTHOGONAL
from sims.core.engine import BLOCKED, STALL, ReferenceGame
from sims.overgrowth.config import ACTION_KINDS, OvergrowthConfig

EMPTY = -1
CONNECTION = "connection"
FLOWERS = "flowers"


class OvergrowthGame(ReferenceGame):
    """One game of Overgrowth between seat 0 (moves first) and seat 1."""

    players = 2

    def __init__(self, config: OvergrowthConfig):
        self.config = config
        self.board: list[int] = [EMPTY] * config.cells  # owner of each cell, or EMPTY
        self.markers: list[int] = list(config.start)  # track space of each seat's marker
        self.supply: list[int] = [config.flowers, config.flowers]  # flower tokens left
        self.to_move = 0
        self.turn = 0
        self.done = False
        self.decisions = 0
        self.end = ""
        self.winner: int | None = None
        self.flowers_lost = [0, 0]
        self.actions_taken: dict[str, list[int]] = {kind: [0, 0] for kind in ACTION_KINDS}
        self.passes = [0, 0]
        self.place(1, config.head_start)  # the balancing variant: seat 1's flowers already on the board

    def clone(self) -> "OvergrowthGame":
        """An independent copy of the position (sharing the immutable config)."""
        other = object.__new__(OvergrowthGame)
        other.__dict__.update(self.__dict__)
        other.board = list(self.board)
        other.markers = list(self.markers)
        other.supply = list(self.supply)
        other.flowers_lost = list(self.flowers_lost)
        other.actions_taken = {kind: list(counts) for kind, counts in self.actions_taken.items()}
        other.passes = list(self.passes)
        return other

    # --- geometry -----------------------------------------------------------

    def cell(self, row: int, col: int) -> int:
        return row * self.config.columns + col

    def row_col(self, cell: int) -> tuple[int, int]:
        return divmod(cell, self.config.columns)

    def step(self, cell: int, dr: int, dc: int, distance: int = 1) -> int | None:
        """Rules §1.1: The cell ``distance`` steps from ``cell`` in direction ``(dr, dc)``; None off the board."""
        row, col = self.row_col(cell)
        row, col = row + dr * distance, col + dc * distance
        if 0 <= row < self.config.rows and 0 <= col < self.config.columns:
            return self.cell(row, col)
        return None

    def neighbours(self, cell: int, directions=KING) -> list[int]:
        """Rules §1.1: Cells one step from ``cell`` in ``directions`` that lie on the board."""
        found = (self.step(cell, dr, dc) for dr, dc in directions)
        return [n for n in found if n is not None]

    def flowers_of(self, seat: int) -> list[int]:
        return [c for c, owner in enumerate(self.board) if owner == seat]

    def flower_count(self, seat: int) -> int:
        return sum(1 for owner in self.board if owner == seat)

    def flowers_placed(self, seat: int) -> int:
        """Rules §1.3."""
        return self.config.flowers - self.supply[seat]

    # --- the action track ---------------------------------------------------

    def landing(self, seat: int, steps: int) -> int | None:
        """Rules §1.4, §3.2: The space ``steps`` clockwise from the seat's marker; None if the other marker is there."""
        space = (self.markers[seat] + steps) % len(self.config.track)
        return None if space == self.markers[1 - seat] else space

    def pass_landing(self, seat: int) -> int:
        """Rules §3.3: Where a passing marker goes: the shortest allowed move, or nowhere."""
        for steps in self.config.moves:
            space = self.landing(seat, steps)
            if space is not None:
                return space
        return self.markers[seat]

    def action_kind(self, action: int) -> str | None:
        """Rules §1.4: The action space ``action`` lands on in this position (None for first turn and pass)."""
        slot, _ = self.config.decode(action)
        if slot < 1:
            return None
        space = self.landing(self.to_move, self.config.moves[slot - 1])
        return None if space is None else self.config.track[space]

    # --- placement rules ----------------------------------------------------

    def is_first_turn(self) -> bool:
        """Rules §3.1: Each player's first turn is the game's turn 0 (seat 0) or turn 1 (seat 1)."""
        return self.turn < self.players

    def first_turn_cells(self, seat: int) -> list[int]:
        """Rules §1.2, §3.1: First turn: any empty cell of the seat's own shaded area."""
        return [c for c in self.config.shaded[seat] if self.board[c] == EMPTY]

    def overgrow_targets(self, seat: int) -> list[int]:
        """Rules §4.1: Opponent flowers with at least ``overgrow_sides`` orthogonal neighbours of ``seat``."""
        opponent = 1 - seat
        return [
            c for c in range(self.config.cells)
            if self.board[c] == opponent
            and sum(self.board[n] == seat for n in self.neighbours(c, ORTHOGONAL)) >= self.config.overgrow_sides
        ]

    def grow_cells(self, seat: int) -> list[int]:
        """Rules §4.2: Empty cells among the 8 neighbours of a flower of ``seat``."""
        return sorted({n for c in self.flowers_of(seat) for n in self.neighbours(c, KING)
                       if self.board[n] == EMPTY})

    def cast_cells(self, seat: int) -> list[int]:
        """Rules §4.3: Empty cells exactly ``cast_distance`` away along a row, column or diagonal from a flower."""
        targets = set()
        for c in self.flowers_of(seat):
            for dr, dc in KING:
                target = self.step(c, dr, dc, self.config.cast_distance)
                if target is not None and self.board[target] == EMPTY:
                    targets.add(target)
        return sorted(targets)

    def touches_orthogonally(self, seat: int, cell: int) -> bool:
        """Rules §4.4: Is ``cell`` orthogonally next to a flower of ``seat`` already on the board?"""
        return any(self.board[n] == seat for n in self.neighbours(cell, ORTHOGONAL))

    def spread_placements(self, seat: int) -> list[int]:
        """Rules §4.4: Spread: one empty cell, or two side by side in a row, touching an earlier flower orthogonally.

        The board is read before the action, so the partner of a pair never
        counts as the flower it touches.
        """
        config = self.config
        singles = [c for c in range(config.cells)
                   if self.board[c] == EMPTY and self.touches_orthogonally(seat, c)]
        pairs = []
        for row in range(config.rows):
            for col in range(config.columns - 1):
                left, right = self.cell(row, col), self.cell(row, col + 1)
                if self.board[left] == EMPTY and self.board[right] == EMPTY and (
                        self.touches_orthogonally(seat, left) or self.touches_orthogonally(seat, right)):
                    pairs.append(config.pair_placement(row, col))
        return singles + pairs

    def breaks_shaded_rule(self, seat: int, cells: tuple[int, ...]) -> bool:
        """Rules §5: Would placing ``cells`` leave ``seat`` with two flowers in one shaded area?"""
        for area in self.config.shaded:
            already = sum(1 for c in area if self.board[c] == seat)
            placed = sum(1 for c in cells if c in area)
            if placed and already + placed > 1:
                return True
        return False

    def kind_placements(self, seat: int, kind: str) -> list[int]:
        """Placements the action ``kind`` itself allows, before supply and shaded-area checks."""
        if kind == "overgrow":
            return self.overgrow_targets(seat)
        if kind == "grow":
            return self.grow_cells(seat)
        if kind == "cast":
            return self.cast_cells(seat)
        if kind == "spread":
            return self.spread_placements(seat)
        raise ValueError(f"unknown action kind {kind!r}")

    def legal_placements(self, seat: int, kind: str) -> list[int]:
        """Rules §5: Placements of ``kind`` the seat can afford and that keep the shaded-area rule."""
        legal = []
        for placement in self.kind_placements(seat, kind):
            cells = self.config.placement_cells(placement)
            if len(cells) <= self.supply[seat] and not self.breaks_shaded_rule(seat, cells):
                legal.append(placement)
        return sorted(legal)

    # --- the turn -----------------------------------------------------------

    def legal_actions(self) -> list[int]:
        """Rules §3.3."""
        if self.done:
            return []
        config, me = self.config, self.to_move
        if self.is_first_turn():
            return [config.encode(0, c) for c in self.first_turn_cells(me)]
        actions = []
        for slot, steps in enumerate(config.moves, start=1):
            space = self.landing(me, steps)
            if space is None:
                continue
            kind = config.track[space]
            actions.extend(config.encode(slot, p) for p in self.legal_placements(me, kind))
        if not actions:
            return [config.pass_action]
        return sorted(actions)

    def apply(self, action: int) -> None:
        """Rules §3.4, §6.3."""
        if action not in self.legal_actions():
            raise ValueError(f"action {action} is not legal (turn {self.turn}, seat {self.to_move})")
        config, me = self.config, self.to_move
        if action == config.pass_action:
            self.markers[me] = self.pass_landing(me)
            self.passes[me] += 1
        else:
            slot, placement = config.decode(action)
            cells = config.placement_cells(placement)
            if slot == 0:
                self.place(me, cells)
            else:
                self.markers[me] = self.landing(me, config.moves[slot - 1])
                kind = config.track[self.markers[me]]
                if kind == "overgrow":
                    self.overgrow(me, cells[0])
                else:
                    self.place(me, cells)
                self.actions_taken[kind][me] += 1
            self.check_end(me)
        self.turn += 1
        self.to_move = 1 - me
        if not self.done and self.blocked():
            self.finish(BLOCKED, self.most_flowers())

    def place(self, seat: int, cells: tuple[int, ...]) -> None:
        """Rules §1.3: Put flowers of ``seat`` on ``cells``, taking them from its supply."""
        for c in cells:
            self.board[c] = seat
        self.supply[seat] -= len(cells)

    def overgrow(self, seat: int, cell: int) -> None:
        """Rules §4.1: Discard the opponent flower on ``cell`` from the game and put one of ``seat``'s there."""
        self.flowers_lost[1 - seat] += 1
        self.place(seat, (cell,))

    def connects(self, seat: int) -> bool:
        """Rules §6.1: Do the seat's flowers form a chain from shaded[0] to shaded[1]?"""
        directions = ORTHOGONAL if self.config.orthogonal_connection else KING
        start, goal = self.config.shaded
        reached = {c for c in start if self.board[c] == seat}
        frontier = deque(reached)
        while frontier:
            c = frontier.popleft()
            if c in goal:
                return True
            for n in self.neighbours(c, directions):
                if n not in reached and self.board[n] == seat:
                    reached.add(n)
                    frontier.append(n)
        return False

    def check_end(self, seat: int) -> None:
        """Rules §6.1, §6.2: After ``seat``'s action: a connection wins; else an empty supply ends on flower count."""
        if self.connects(seat):
            self.finish(CONNECTION, seat)
        elif self.supply[seat] == 0:
            self.finish(FLOWERS, self.most_flowers())

    def can_place(self) -> bool:
        """Rules §3.3: Has the player to move a placement for an action its marker can land on?"""
        me = self.to_move
        for steps in self.config.moves:
            space = self.landing(me, steps)
            if space is not None and self.legal_placements(me, self.config.track[space]):
                return True
        return False

    def blocked(self) -> bool:
        """Rules §6.3: No seat can ever place a flower again (after both first turns, which always can).

        Passing moves only the markers, so this plays the forced passes on a
        copy until a marker position (with the seat to move) comes back; a
        seat that can place a flower on the way means the game goes on.
        """
        if self.is_first_turn():
            return False
        game, seen = self, set()
        while (key := (tuple(game.markers), game.to_move)) not in seen:
            if game.can_place():
                return False
            seen.add(key)
            game = game.clone() if game is self else game
            game.markers[game.to_move] = game.pass_landing(game.to_move)
            game.to_move = 1 - game.to_move
        return True

    def most_flowers(self) -> int | None:
        """Rules §6.2, §6.3: The seat with more flowers on the board; None on equal counts."""
        counts = [self.flower_count(seat) for seat in range(self.players)]
        return None if counts[0] == counts[1] else counts.index(max(counts))

    def finish(self, end: str, winner: int | None) -> None:
        self.done, self.end, self.winner = True, end, winner

    def stall(self) -> None:
        """Rules §6.4."""
        self.finish(STALL, None)

    # --- outcome ------------------------------------------------------------

    def result(self) -> dict[str, Any]:
        """Rules §6.5."""
        if self.end in (CONNECTION, FLOWERS, BLOCKED):
            rank = [1, 1] if self.winner is None else [1 if s == self.winner else 2 for s in range(2)]
        else:
            rank = [0, 0]
        seats = range(self.players)
        columns = {
            "flowers_placed": [self.flowers_placed(s) for s in seats],
            "flowers_lost": list(self.flowers_lost),
            **{kind: list(self.actions_taken[kind]) for kind in ACTION_KINDS},
            "passes": list(self.passes),
        }
        return {
            "score": [float(self.flower_count(s)) for s in seats],
            "rank": rank,
            "end": self.end,
            "turns": self.turn,
            "seat_columns": columns,
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "board": list(self.board),
            "markers": list(self.markers),
            "supply": list(self.supply),
            "turn": self.turn,
            "end": self.end,
        }
