"""The engine contract every game implements.

A game folder ``sims/<game>/`` provides:

* ``config.py``: its schema and a typed config built from the TOML values;
  the only code the two engines share, besides :mod:`sims.core.rng`.
* ``rules.py``: a :class:`BatchedEngine` holding N games as arrays with a
  leading game axis; finished games are masked, never removed.
* ``reference.py``: a :class:`ReferenceGame`, one game in plain Python that
  reads like the rulebook; the rules oracle for ``glade verify``.
* ``bots.py``: :class:`BatchedBot` classes that read state and never change it.
* ``reference_bots.py``: their plain one-game counterparts (:class:`ReferenceBot`),
  drawing the same random numbers, for benchmarks and bot cross-checks.
* ``render.py``: text output for ``glade replay`` and golden playthroughs.
* ``__init__.py``: a :class:`GameDefinition` named ``GAME`` tying them together.

Actions are integers in ``range(engine.num_actions)``. Both engines number
actions the same way, so a trace of batched actions replays on the reference.
"""

from __future__ import annotations

import dataclasses
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

STALL = "stall"


@dataclass
class BatchedState:
    """Fields every batched state has; games subclass it and add their arrays.

    ``decisions`` counts the actions taken in each game; the play loop
    advances it, and bots use it as their random-stream counter.
    """

    seeds: np.ndarray  # uint64 [B]
    done: np.ndarray  # bool [B]
    to_move: np.ndarray  # int8 [B], seat to act
    turn: np.ndarray  # int32 [B], turns completed (what the turn cap counts)
    end: np.ndarray  # int8 [B], index into engine.end_reasons; 0 while running
    decisions: np.ndarray  # int32 [B]

    @property
    def size(self) -> int:
        return int(self.seeds.shape[0])


@dataclass
class GameResults:
    """Per game and seat outcome arrays produced by an engine at the end.

    ``rank`` is 1 for first place (shared on ties), 0 for games without a
    result (stalls). ``seat_columns`` are game-specific ``[B, P]`` arrays and
    ``game_columns`` game-specific ``[B]`` arrays, both named as in records.
    """

    score: np.ndarray  # float64 [B, P]
    rank: np.ndarray  # int8 [B, P]
    end: np.ndarray  # int8 [B]
    turns: np.ndarray  # int32 [B]
    seat_columns: dict[str, np.ndarray] = field(default_factory=dict)
    game_columns: dict[str, np.ndarray] = field(default_factory=dict)


class BatchedEngine(ABC):
    """N games advanced together with numpy operations."""

    players: int
    num_actions: int
    end_reasons: tuple[str, ...]  # index 0 is "" (running); must contain STALL

    @abstractmethod
    def init(self, seeds: np.ndarray) -> BatchedState:
        """New games, one per seed (uint64 ``[B]``)."""

    @abstractmethod
    def legal_mask(self, state: BatchedState) -> np.ndarray:
        """bool ``[B, num_actions]``; all False for finished games."""

    @abstractmethod
    def step(self, state: BatchedState, actions: np.ndarray) -> None:
        """Apply one action per game in place; games with ``done`` are untouched."""

    @abstractmethod
    def results(self, state: BatchedState) -> GameResults:
        """Outcome of finished games."""

    def stall(self, state: BatchedState, games: np.ndarray) -> None:
        """End ``games`` (bool ``[B]``) as stalls: the turn cap was reached."""
        state.done |= games
        state.end[games] = self.end_reasons.index(STALL)

    def invariants(self, state: BatchedState) -> dict[str, np.ndarray]:
        """Named bool ``[B]`` checks that hold in every reachable position (pieces conserved, ...).

        The conformance test asserts them after every step of random play.
        """
        return {}

    def events(self, state: BatchedState, trace: "Trace") -> dict[str, np.ndarray] | None:
        """Optional long table (one row per event), columns as flat arrays with a ``game`` index."""
        return None

    @abstractmethod
    def snapshot(self, state: BatchedState, game: int) -> dict[str, Any]:
        """Plain-Python picture of one game's position, equal to the reference's ``snapshot()``."""

    def describe_action(self, action: int) -> str:
        return str(action)


class ReferenceGame(ABC):
    """One game in plain Python: the rules as the rulebook states them."""

    players: int
    to_move: int
    done: bool
    turn: int
    decisions: int = 0

    @abstractmethod
    def legal_actions(self) -> list[int]:
        """Legal action indices, ascending; empty once the game is over."""

    @abstractmethod
    def apply(self, action: int) -> None:
        """Play ``action``; raises ValueError if it is not legal."""

    @abstractmethod
    def result(self) -> dict[str, Any]:
        """``{"score": [...], "rank": [...], "end": str, "turns": int, "seat_columns": {...}}``."""

    @abstractmethod
    def stall(self) -> None:
        """End the game as a stall (turn cap)."""

    @abstractmethod
    def snapshot(self) -> dict[str, Any]:
        """Plain-Python picture of the position (compared with the batched engine's)."""


class BatchedBot(ABC):
    """Chooses one action per game for the seat it plays; never changes the state."""

    # True: act() chooses in every game it is given as the same kind of bot in the seat to move
    # there would (that seat's random stream), so the play loop asks one bot for all the seats
    # that bots of its class and weights fill, instead of one call per seat. Where it fills every
    # seat (all random, all greedy) it is given the loop's active mask itself, with no seat mask to
    # build each step: the cheapest random play. Greedy bots may set it too (Overgrowth's do).
    plays_any_seat: bool = False

    def __init__(self, engine: BatchedEngine, seat: int, weights: Mapping[str, float] | None = None):
        self.engine, self.seat = engine, seat
        self.weights = dict(weights or {})

    @abstractmethod
    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        """int ``[B]`` actions; only entries where ``active`` is True are used."""


class ReferenceBot(ABC):
    """One-game counterpart of a batched bot, used by the reference engine's loop."""

    def __init__(self, seat: int, weights: Mapping[str, float] | None = None):
        self.seat = seat
        self.weights = dict(weights or {})

    @abstractmethod
    def act(self, game: ReferenceGame, seed: int) -> int:
        """One legal action for ``game``."""


@dataclass
class Trace:
    """What the batched engine did: ``actions[B, T]`` (-1 once a game is over).

    ``legal_hashes`` (``[B, T]`` uint64, verify runs only) fingerprints the
    legal action set at each decision so the reference can compare whole sets.
    """

    actions: np.ndarray
    legal_hashes: np.ndarray | None = None

    def game_actions(self, game: int) -> list[int]:
        row = self.actions[game]
        return [int(a) for a in row[row >= 0]]


@dataclass(frozen=True)
class BotSpec:
    """A bot kind by name with its implementations and default weights."""

    name: str
    batched: Callable[..., BatchedBot]
    reference: Callable[..., ReferenceBot] | None = None
    description: str = ""


@dataclass(frozen=True)
class GameDefinition:
    """Everything the runner and command line need to know about one game."""

    name: str
    title: str
    player_counts: tuple[int, ...]
    load_config: Callable[..., Any]  # (path=None, overrides=()) -> typed config
    batched: Callable[[Any, int], BatchedEngine]  # (config, players)
    reference: Callable[[Any, int, int], ReferenceGame]  # (config, players, seed)
    bots: Mapping[str, BotSpec]
    render_reference: Callable[[ReferenceGame], str]
    describe_action: Callable[[ReferenceGame, int], str]  # the action about to be applied to that game
    max_turns: Callable[[Any], int]
    bot_weights: Callable[[Any, str], Mapping[str, float]] = lambda config, kind: {}
    personas: Callable[[Any], Mapping[str, tuple[str, Mapping[str, float]]]] = lambda config: {}
    describe: str = ""
    # The events column naming a player's choices and the values in it that are design
    # components (actions, specials, cards) for strength analysis; forced moves left out.
    # Values None: every non-empty value (content from the config, such as card names).
    components: tuple[str, tuple[str, ...] | None] | None = None
    # Seats at the table for a player count: more than the players where the game seats an
    # opponent of its own (Vorex's solo weed); those seats play ``house_bot`` unless --bots names them.
    seats: Callable[[int], int] = lambda players: players
    house_bot: str | None = None


def take_games(state: BatchedState, rows: np.ndarray) -> BatchedState:
    """A new state holding copies of games ``rows`` (any order, repeats allowed).

    Bots use it to branch hypothetical games; array fields with a leading game
    axis are indexed, list fields (logs) start empty.
    """
    size = state.size
    values = {}
    for item in dataclasses.fields(state):
        value = getattr(state, item.name)
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == size:
            values[item.name] = np.take(value, rows, axis=0)  # a copy, made once
        elif isinstance(value, list):
            values[item.name] = []
        else:
            values[item.name] = value
    return type(state)(**values)
