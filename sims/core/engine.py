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
  It names the engines and bots by module path (:class:`Lazy`), so importing a
  game package loads only its config and render; the batched modules (numpy
  kernels, numba) load on first use, and the reference side never loads them.

Actions are integers in ``range(engine.num_actions)``. Both engines number
actions the same way, so a trace of batched actions replays on the reference.
"""

from __future__ import annotations

import dataclasses
import importlib
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from sims.core.components import ComponentFamily
from sims.core.events import EventLog, disable_events

if TYPE_CHECKING:
    from sims.core.spec import LoadedConfig

STALL = "stall"
# No seat can ever again make a move that changes the position: the game ends at once and is scored as usual.
BLOCKED = "blocked"


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
        """Optional long table (one row per event), columns as flat arrays with a ``game`` index: what the runner
        writes to ``events/``. Engines log with an :class:`~sims.core.events.EventLog` in their state and build
        the table from :meth:`~sims.core.events.EventLog.decisions`."""
        return None

    def progress(self, state: BatchedState, rows: np.ndarray) -> np.ndarray | None:
        """Each seat's score now (or the game's progress measure where the score is known only at the end),
        float64 ``[len(rows), seats]`` for games ``rows``; the play loop samples it at each round end for the
        trajectories table. None (the default): the game records no trajectories."""
        return None

    @abstractmethod
    def snapshot(self, state: BatchedState, game: int) -> dict[str, Any]:
        """Plain-Python picture of one game's position, equal to the reference's ``snapshot()``."""

    def describe_action(self, action: int) -> str:
        return str(action)

    def branch(self, state: BatchedState, rows: np.ndarray) -> BatchedState:
        """Copies of games ``rows`` (any order, repeats allowed) for bots to play on, keeping no event log: a
        planner's candidates and rollouts. The default (:func:`branch_games`) copies every per-game array;
        a game overrides it only when a copy needs more."""
        return branch_games(state, rows)

    def choose_uniform(self, state: BatchedState, rows: np.ndarray, u: np.ndarray) -> np.ndarray:
        """int64 ``[len(rows)]``: in each game of ``rows`` (running), legal action number
        ``min(floor(u * n), n - 1)`` in ascending order, ``n`` its legal actions and ``u`` float64 in [0, 1)
        per row; what :class:`sims.core.bots.RandomBot` plays. The default reads :meth:`legal_mask`; a game
        overrides it with a faster choice that picks the same actions."""
        from sims.core.choice import choose_uniform  # sims.core.choice imports this module

        return choose_uniform(self.legal_mask(state)[rows], u)


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

    explains = "score"  # what the numbers of explain() are: "score", or "chance" (a random draw)

    def __init__(self, seat: int, weights: Mapping[str, float] | None = None):
        self.seat = seat
        self.weights = dict(weights or {})

    @abstractmethod
    def act(self, game: ReferenceGame, seed: int) -> int:
        """One legal action for ``game``."""

    def explain(self, game: ReferenceGame, seed: int) -> list[tuple[int, float]] | None:
        """The candidates ``act`` weighs for ``game``, best first, as ``(action, score)``; ``act`` plays the
        first. None (the default): this bot does not rank its candidates (``glade replay --explain`` says so)."""
        return None


@dataclass
class Trace:
    """What the batched engine did: ``actions[B, T]`` (-1 once a game is over).

    ``legal_hashes`` (``[B, T]`` uint64, verify runs only) fingerprints the
    legal action set at each decision so the reference can compare whole sets.
    ``progress`` (runs asking for trajectories, of games whose engine has a
    :meth:`BatchedEngine.progress`): flat arrays ``game``, ``round``, ``seat``,
    ``value``, one row per seat at each round end and at the game's end.
    """

    actions: np.ndarray
    legal_hashes: np.ndarray | None = None
    progress: dict[str, np.ndarray] | None = None

    def game_actions(self, game: int) -> list[int]:
        row = self.actions[game]
        return [int(a) for a in row[row >= 0]]


@runtime_checkable
class GameConfig(Protocol):
    """What the runner, the command line and the records read of a game's typed config.

    Each game's config (a frozen dataclass built by its ``config.load``) adds its
    own fields; these two are the ones code outside the game relies on.
    ``loaded`` gives the validated values (written into every run's manifest),
    their hash (the run's identity, checked on resume and replay) and the source
    file; ``max_turns`` is the turn cap after which a game ends as a stall.
    A config may also carry ``bot_weights`` (bot kind -> weight name -> value)
    and ``personas`` (name -> (bot kind, weights)); the game definition's
    defaults read them when present.
    """

    @property
    def loaded(self) -> LoadedConfig: ...

    @property
    def max_turns(self) -> int: ...


class Lazy:
    """A class or function named ``"package.module:name"``, imported on its first call.

    It stands where the object itself would (an engine factory in a
    :class:`GameDefinition`, a bot class in a :class:`BotSpec`), so declaring a
    game imports none of its engine modules::

        Lazy("sims.vora.rules:VoraEngine")(config, players)  # imports sims.vora.rules now
    """

    __slots__ = ("path",)

    def __init__(self, path: str):
        module, _, name = path.partition(":")
        if not module or not name:
            raise ValueError(f"a lazy path is 'package.module:name', got {path!r}")
        self.path = path

    def resolve(self) -> Any:
        """The named object (its module imported once, by Python's module cache)."""
        module, _, name = self.path.partition(":")
        return getattr(importlib.import_module(module), name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"Lazy({self.path!r})"


def lazy(target: Any) -> Any:
    """``target`` itself, or a :class:`Lazy` for a ``"module:name"`` string."""
    return Lazy(target) if isinstance(target, str) else target


@dataclass(frozen=True)
class BotSpec:
    """A bot kind by name with its implementations (classes, or ``"module:Class"`` paths loaded on first use)."""

    name: str
    batched: Callable[..., BatchedBot] | str
    reference: Callable[..., ReferenceBot] | str | None = None
    description: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "batched", lazy(self.batched))
        object.__setattr__(self, "reference", lazy(self.reference))


@dataclass(frozen=True)
class GoldenGame:
    """One seeded game kept as text in ``tests/golden/<file>``: ``glade replay`` of deal ``game`` of a run."""

    file: str
    players: int
    seed: int
    game: int
    bots: tuple[str, ...]
    rotate_seats: bool = False


@dataclass(frozen=True)
class VerifyRun:
    """A ``glade verify`` run the test suite plays for a game (every game lists one per player count at least).

    ``bots`` None: verify's default lineups (every mix of the bots with a
    reference implementation); ``overrides`` are ``--set`` values; ``slow``
    runs only in ``make test-all``; ``jobs`` worker processes (same report).
    """

    players: int
    games: int
    seed: int
    bots: tuple[str, ...] | None = None
    overrides: tuple[str, ...] = ()
    jobs: int = 1
    slow: bool = False


def _config_max_turns(config: GameConfig) -> int:
    return config.max_turns


def _config_bot_weights(config: GameConfig, kind: str) -> Mapping[str, float]:
    return getattr(config, "bot_weights", {}).get(kind, {})


def _config_personas(config: GameConfig) -> Mapping[str, tuple[str, Mapping[str, float]]]:
    return getattr(config, "personas", {})


@dataclass(frozen=True)
class GameDefinition:
    """Everything the runner and command line need to know about one game.

    ``batched`` and ``reference`` are factories ``(config, players)`` and
    ``(config, players, seed)``, or ``"module:name"`` paths of classes taking
    those arguments, imported on first use (:class:`Lazy`).
    """

    name: str
    title: str
    player_counts: tuple[int, ...]
    load_config: Callable[..., GameConfig]  # (path=None, overrides=()) -> typed config
    batched: Callable[[GameConfig, int], BatchedEngine] | str
    reference: Callable[[GameConfig, int, int], ReferenceGame] | str
    bots: Mapping[str, BotSpec]
    render_reference: Callable[[ReferenceGame], str]
    describe_action: Callable[[ReferenceGame, int], str]  # the action about to be applied to that game
    max_turns: Callable[[GameConfig], int] = _config_max_turns
    bot_weights: Callable[[GameConfig, str], Mapping[str, float]] = _config_bot_weights
    personas: Callable[[GameConfig], Mapping[str, tuple[str, Mapping[str, float]]]] = _config_personas
    describe: str = ""
    # The events column naming a player's choices and the values in it that are design
    # components (actions, specials, cards) for strength analysis; forced moves left out.
    # Values None: every non-empty value (content from the config, such as card names).
    components: tuple[str, tuple[str, ...] | None] | None = None
    # Every family of content components the events name (cards played, visitors won, tiles placed...), one
    # table each in the run report (analysis.report.content reads them).
    families: tuple[ComponentFamily, ...] = ()
    # Seats at the table for a player count: more than the players where the game seats an
    # opponent of its own (Vorex's solo weed); those seats play ``house_bot`` unless --bots names them.
    seats: Callable[[int], int] = lambda players: players
    house_bot: str | None = None
    # a few lines per position for glade replay ("legend:" lines are shown once); None: the full render
    render_compact: Callable[[ReferenceGame], str] | None = None
    # CPU seconds a cold compile of the kernels of every bot takes (make compile-profile GAME=...): the
    # "compiling ... kernels" notice says it (sims.core.compiling)
    compile_seconds: float | None = None

    # The checks every game gets in the test suite (tests/test_games.py): golden playthroughs
    # and verify runs. A shipped game must list at least one of each.
    golden: tuple[GoldenGame, ...] = ()
    verify_runs: tuple[VerifyRun, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "batched", lazy(self.batched))
        object.__setattr__(self, "reference", lazy(self.reference))


def take_games(state: BatchedState, rows: np.ndarray) -> BatchedState:
    """A new state holding copies of games ``rows`` (any order, repeats allowed).

    Bots use it to branch hypothetical games; array fields with a leading game
    axis are indexed, event logs (:class:`~sims.core.events.EventLog`, or a
    plain list in games not yet on it) start empty.
    """
    size = state.size
    values = {}
    for item in dataclasses.fields(state):
        value = getattr(state, item.name)
        if isinstance(value, np.ndarray) and value.ndim >= 1 and value.shape[0] == size:
            values[item.name] = np.take(value, rows, axis=0)  # a copy, made once
        elif isinstance(value, EventLog):
            values[item.name] = value.emptied()
        elif isinstance(value, list):
            values[item.name] = []
        else:
            values[item.name] = value
    return type(state)(**values)


def branch_games(state: BatchedState, rows: np.ndarray) -> BatchedState:
    """Copies of games ``rows`` for bots to play on, keeping no event log (:meth:`BatchedEngine.branch`)."""
    branch = take_games(state, rows)
    disable_events(branch)
    if hasattr(branch, "logging"):  # games whose log is not yet an EventLog
        branch.logging = False
    return branch
