"""The game loops: bots against each other, batched and one game at a time.

These loops know no game's rules; they ask the engine for state and the bots
for actions, enforce the turn cap and record the trace.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from sims.core.choice import legal_set_hash, legal_set_hash_of
from sims.core.engine import (
    BatchedBot,
    BatchedEngine,
    BatchedState,
    GameDefinition,
    Lazy,
    ReferenceBot,
    ReferenceGame,
    Trace,
)
from sims.core.learned import (LEARNED, batched_bot, greedy_names, learned_kind, learned_labels, learned_weights,
                               reference_bot)
from sims.core.spec import ConfigError, base_weight


STRONG = "strong"  # the top of the skill ladder (docs/bots.md)


@dataclass(frozen=True)
class BotChoice:
    """A resolved bot: the name the user gave, its kind and its weights."""

    label: str
    kind: str
    weights: Mapping[str, float]


def resolve_bot(game: GameDefinition, config, label: str) -> BotChoice:
    """A bot name or a persona name from the game's config, as a :class:`BotChoice`."""
    personas = game.personas(config)
    if label in game.bots:
        return BotChoice(label, label, dict(game.bot_weights(config, label)))
    if label in personas:
        kind, weights = personas[label]
        merged = dict(game.bot_weights(config, kind))
        merged.update(weights)
        return BotChoice(label, kind, merged)
    if label == STRONG and "planner" in game.bots:
        return strong_choice(game, config)
    if label in learned_labels(game):
        return learned_choice(game, config, label)
    known = ", ".join(list(game.bots) + sorted(personas) + ([STRONG] if "planner" in game.bots else [])
                      + list(learned_labels(game)))
    raise ConfigError("--bots", label, f"a bot or persona of {game.name} ({known})", has_got=False)


def strong_choice(game: GameDefinition, config) -> BotChoice:
    """The built-in ``strong`` bot of a game with a planner (a config's ``[personas.strong]`` replaces it):
    the planner's weights with its class's ``strong_weights`` set (:class:`sims.core.planner.RolloutPlanner`)."""
    return BotChoice(STRONG, "planner", dict(game.bot_weights(config, "planner")) | strong_weights(game))


def learned_choice(game: GameDefinition, config, label: str = LEARNED) -> BotChoice:
    """A learned bot (:mod:`sims.core.learned`): the kind's weights with every learned file of the game's greedy
    weights (``configs/learned/<game>-<P>p.toml``) set on top, by phase and player count."""
    kind = learned_kind(label)
    names = greedy_names(game.bot_weights(config, "greedy"))
    return BotChoice(label, kind, dict(game.bot_weights(config, kind)) | learned_weights(game.name, names))


def strong_weights(game: GameDefinition) -> dict[str, float]:
    """The planner weights that make a game's planner its ``strong`` bot."""
    planner = game.bots["planner"].batched
    planner = planner.resolve() if isinstance(planner, Lazy) else planner
    return dict(planner.strong_weights)


def strong_description(game: GameDefinition) -> str:
    """What ``glade games`` says of a game's built-in ``strong`` bot."""
    weights = strong_weights(game)
    shown = ", ".join(f"{key} {value:g}" for key, value in weights.items())
    used = {base_weight(key) for key in weights}
    glossed = "; ".join(f"{name}: {gloss}" for name, gloss in _STRONG_GLOSSES.items() if name in used)
    return f"the planner with {shown}" + (f" ({glossed})" if glossed else "")


_STRONG_GLOSSES = {
    "iterations": "determinizations of an information-set tree search",
    "budget": "rollouts shared among the candidates by UCB",
    "samples": "rollouts per candidate, each with its own shuffle and noise",
    "candidates": "greedy's best actions considered",
}


def check_players(game: GameDefinition, players: int) -> None:
    """A ConfigError unless ``players`` is a player count of ``game``."""
    if players not in game.player_counts:
        raise ConfigError("--players", str(players), f"a player count of {game.name}: "
                          + ", ".join(map(str, game.player_counts)), has_got=False)


def seat_labels(game: GameDefinition, players: int, labels: Sequence[str]) -> list[str]:
    """One bot label per seat: the players' bots, then the house bot in seats beyond the players.

    A single label fills every player seat (``--bots greedy`` at 3 players is ``greedy,greedy,greedy``).
    """
    check_players(game, players)
    labels = list(labels)
    if len(labels) == 1:
        labels *= players
    seats = game.seats(players)
    if len(labels) == players and seats > players and game.house_bot is not None:
        labels += [game.house_bot] * (seats - players)
    if len(labels) != seats:
        expected = (f"{players} comma-separated bots, one per seat" if seats == players else
                    f"{players} comma-separated bots (players), or {seats} (players, then the game's own seats)")
        raise ConfigError("--bots", ",".join(labels), f"{expected} (got {len(labels)})", has_got=False)
    return labels


def batched_bots(game: GameDefinition, engine: BatchedEngine, choices: Sequence[BotChoice],
                 streams: str = "") -> list[BatchedBot]:
    """One batched bot per seat (learned weights make a phased bot, :func:`sims.core.learned.batched_bot`).
    ``streams`` (empty: the usual ``bot/<seat>``) renames every seat's random stream to
    ``<streams>/bot/<seat>``: the same deals (the rules draw from their own streams) with other tie-breaks, the
    placebo run of ``glade ablate``. A bot class without a ``stream`` argument is refused."""
    if not streams:
        return [batched_bot(game.bots[c.kind].batched, engine, seat, c.weights) for seat, c in enumerate(choices)]
    fixed = without_streams(game, choices)
    if fixed is not None:
        raise ConfigError("--bots", fixed.label, f"a bot whose random stream can be renamed ({game.name}'s "
                          f"{fixed.kind} bot takes no stream)", has_got=False)
    return [batched_bot(functools.partial(game.bots[c.kind].batched, stream=f"{streams}/bot/{seat}"), engine, seat,
                        c.weights) for seat, c in enumerate(choices)]


def without_streams(game: GameDefinition, choices: Sequence[BotChoice]) -> BotChoice | None:
    """The first bot of ``choices`` whose batched class takes no ``stream`` argument (None: all take one)."""
    for choice in choices:
        factory = game.bots[choice.kind].batched
        cls = factory.resolve() if isinstance(factory, Lazy) else factory
        if "stream" not in inspect.signature(cls).parameters:
            return choice
    return None


def reference_bots(game: GameDefinition, choices: Sequence[BotChoice]) -> list[ReferenceBot]:
    bots = []
    for seat, choice in enumerate(choices):
        factory = game.bots[choice.kind].reference
        if factory is None:
            raise ConfigError("--bots", choice.label, "a bot with a reference implementation", has_got=False)
        bots.append(reference_bot(factory, seat, choice.weights))
    return bots


def play_batch(
    engine: BatchedEngine,
    bots: Sequence[BatchedBot],
    seeds: np.ndarray,
    max_turns: int,
    record_legal: bool = False,
    trajectories: bool = False,
) -> tuple[BatchedState, Trace]:
    """Play one game per seed to the end; returns the final state and the trace.

    ``trajectories``: sample the engine's :meth:`~BatchedEngine.progress` at each round end into ``trace.progress``.
    """
    state = engine.init(np.asarray(seeds, dtype=np.uint64))
    size = state.size
    actions_log: list[np.ndarray] = []
    hash_log: list[np.ndarray] = []
    groups = seat_groups(bots)
    log = ProgressLog(engine, size) if trajectories else None
    while True:
        if size and state.turn.max() >= max_turns:
            capped = ~state.done & (state.turn >= max_turns)
            if capped.any():
                engine.stall(state, capped)
                if log is not None:
                    log.sample(state, np.flatnonzero(capped))
        active = ~state.done
        if not active.any():
            break
        actions = np.full(size, -1, dtype=np.int32)
        for group in groups:
            movers = group.movers(state, active)
            if movers is active or movers.any():
                np.copyto(actions, group.bot.act(state, movers), casting="unsafe", where=movers)
        if record_legal:
            hash_log.append(np.where(active, legal_set_hash(engine.legal_mask(state)), np.uint64(0)))
        actions_log.append(actions)
        turn_before = state.turn.copy() if log is not None else None
        engine.step(state, actions)
        state.decisions += active
        if log is not None:
            log.after_step(state, active, turn_before)
    actions = np.stack(actions_log, axis=1) if actions_log else np.zeros((size, 0), np.int32)
    hashes = np.stack(hash_log, axis=1) if record_legal and hash_log else None
    return state, Trace(actions=actions, legal_hashes=hashes, progress=log.table() if log is not None else None)


class ProgressLog:
    """Each seat's :meth:`BatchedEngine.progress` at every round end (a turn ends and seat 0 is to move) and at
    each game's end (a partial round when the game ended mid-round): the trajectories of a batch.

    Round ``r`` (from 1) is the value after ``r`` samples of that game, so a game's last round is its end.
    Values are kept in a ``[games, rounds, seats]`` array (its round axis doubled when full), so the table
    comes out in game and round order with no sort."""

    def __init__(self, engine: BatchedEngine, size: int):
        self.engine = engine
        self.rounds = np.zeros(size, dtype=np.int64)
        self.values = np.zeros((size, 16, engine.players), dtype=np.float64)
        self.supported = True

    def sample(self, state: BatchedState, rows: np.ndarray) -> None:
        """Record the progress of games ``rows`` (int indices) now, as their next round."""
        if not self.supported or rows.size == 0:
            return
        values = self.engine.progress(state, rows)
        if values is None:
            self.supported = False
            return
        rounds = self.rounds[rows]
        if rounds.max() >= self.values.shape[1]:
            self.values = np.concatenate([self.values, np.zeros_like(self.values)], axis=1)
        self.values[rows, rounds] = values
        self.rounds[rows] = rounds + 1

    def after_step(self, state: BatchedState, active: np.ndarray, turn_before: np.ndarray) -> None:
        """Sample the games of ``active`` that this step ended or brought back to seat 0 at a new turn."""
        ended = state.turn != turn_before
        ended &= state.to_move == 0
        ended |= state.done
        ended &= active
        self.sample(state, np.flatnonzero(ended))

    def table(self) -> dict[str, np.ndarray] | None:
        """Flat ``game``, ``round``, ``seat``, ``value`` arrays by game, round and seat; None if the engine
        has no progress measure."""
        if not self.supported:
            return None
        seats = self.values.shape[2]
        games, rounds = np.nonzero(np.arange(self.values.shape[1]) < self.rounds[:, None])
        return {"game": np.repeat(games, seats).astype(np.int64),
                "round": np.repeat(rounds + 1, seats).astype(np.int16),
                "seat": np.tile(np.arange(seats, dtype=np.int8), games.size),
                "value": self.values[games, rounds].reshape(-1)}


class SeatGroup(NamedTuple):
    """A bot the play loop asks and the seats it chooses for."""

    bot: BatchedBot
    seats: np.ndarray  # int8, ascending
    chooses: np.ndarray | None  # bool per seat at the table: the group's seats; None if it plays them all

    def movers(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        """bool ``[B]``: the active games whose seat to move is this group's (``active`` itself if every seat is)."""
        if self.chooses is None:
            return active
        if self.seats.size == 1:
            return active & (state.to_move == self.seats[0])
        return active & self.chooses[state.to_move]


def seat_groups(bots: Sequence[BatchedBot]) -> list[SeatGroup]:
    """The bots the play loop asks, each with the seats it chooses for: bots that play any seat
    (:attr:`BatchedBot.plays_any_seat`) of one class and weights share a call; others play their own seat."""
    groups: dict[Any, tuple[BatchedBot, list[int]]] = {}
    for seat, bot in enumerate(bots):
        key = (type(bot), tuple(sorted(bot.weights.items()))) if bot.plays_any_seat else seat
        groups.setdefault(key, (bot, []))[1].append(seat)
    return [SeatGroup(bot, np.array(seats, dtype=np.int8),
                      None if len(seats) == len(bots) else np.isin(np.arange(len(bots)), seats))
            for bot, seats in groups.values()]


def play_reference(
    game: ReferenceGame, bots: Sequence[ReferenceBot], seed: int, max_turns: int,
    stop: Callable[[], bool] | None = None,
) -> ReferenceGame:
    """Play one reference game to the end with reference bots; with ``stop``, leave it unfinished as soon as
    ``stop()`` (asked before each decision) is True."""
    while not game.done:
        if stop is not None and stop():
            break
        if game.turn >= max_turns:
            game.stall()
            break
        action = bots[game.to_move].act(game, seed)
        game.apply(action)
        game.decisions += 1
    return game


@dataclass
class Mismatch:
    """The first point where the reference disagrees with a batched game."""

    game: int
    decision: int | None
    what: str

    def __str__(self) -> str:
        where = f"decision {self.decision}" if self.decision is not None else "end of game"
        return f"game {self.game}, {where}: {self.what}"


def replay_on_reference(
    game: ReferenceGame, actions: Sequence[int], legal_hashes: Sequence[int] | None, max_turns: int
) -> tuple[ReferenceGame, str | None, int | None]:
    """Replay a batched trace on a fresh reference game; returns (game, problem, decision)."""
    for index, action in enumerate(actions):
        if game.done:
            return game, f"reference game already over, trace still has action {action}", index
        if game.turn >= max_turns:
            game.stall()
            return game, f"reference reached the turn cap, trace still has action {action}", index
        legal = game.legal_actions()
        if legal_hashes is not None and legal_set_hash_of(legal) != int(legal_hashes[index]):
            return game, f"legal action sets differ (reference has {len(legal)}: {legal[:12]}...)", index
        if action not in legal:
            return game, f"action {action} is illegal on the reference (legal: {legal[:12]}...)", index
        game.apply(action)
        game.decisions += 1
    if not game.done and game.turn >= max_turns:
        game.stall()
    if not game.done:
        return game, "trace ended but the reference game is not over", len(actions)
    return game, None, None
