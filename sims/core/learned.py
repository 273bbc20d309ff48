"""Learned evaluations: greedy weights fitted to game outcomes, one set per phase of the game.

``glade train`` (:mod:`analysis.learn`) fits, for one game and player count,
the weights of the game's own greedy evaluation (the terms its kernels
already compute, ``[bots.greedy]`` in ``configs/games/<game>.toml``) to the
outcomes of self-play, once per phase of the game: phase ``k`` starts at turn
``from_turn`` (turns are public and counted alike by the batched and the
reference engines). It writes them to ``configs/learned/<game>-<P>p.toml``::

    game = "vora"
    players = 2
    ...
    [[phases]]
    from_turn = 0
    score = 0.02
    cubes = 1.0
    ...

Two built-in bots read those files (:func:`learned_choice`):

* ``learned``: greedy, each decision valued with the weights of the phase its
  turn falls in;
* ``learned_planner``: the game's planner (``[bots.planner]``), its
  candidates, its rollouts' greedy players and its value of a rollout's end
  all by the learned weights of the phase of the decision being planned.

A bot's weights stay one flat mapping (recorded in every run's manifest):
the files of every player count go in as ``<name>@<k>_<P>p`` (weight
``name`` in phase ``k`` at ``P`` players), ``learned_turn@<k>_<P>p`` (the
phase's first turn) and ``learned_phases_<P>p`` (how many). :func:`batched_bot`
and :func:`reference_bot` turn such weights into one inner bot of the kind per
phase and ask the one whose phase the game is in; weights without them make
the kind's bot as always.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sims.core.engine import BatchedBot, BatchedEngine, BatchedState, ReferenceBot, ReferenceGame
from sims.core.spec import ConfigError, Float, Int, List, Optional, Record, Str, project_root, read_toml, validate

LEARNED = "learned"  # the learned greedy
LEARNED_PLANNER = "learned_planner"  # the planner on the learned evaluation
PHASES = "learned_phases"  # weight key: phases at a player count (``learned_phases_2p``)
TURN = "learned_turn"  # weight key: a phase's first turn (``learned_turn@1_2p``)


def learned_dir() -> Path:
    """Where the learned evaluations live: ``configs/learned/``."""
    return project_root() / "configs" / "learned"


def learned_path(game: str, players: int) -> Path:
    """``configs/learned/<game>-<P>p.toml``."""
    return learned_dir() / f"{game}-{players}p.toml"


def phase_key(name: str, phase: int, players: int) -> str:
    """The flat weight key of weight ``name`` in ``phase`` at ``players`` players: ``cubes@1_2p``."""
    return f"{name}@{phase}_{players}p"


_PHASE_FIELDS = {"from_turn": Int(0)}


HORIZON = "horizon."  # flat key prefix of a phase's learned value of a planner's rollout end (``[phases.worth]``)


def file_schema(names: Sequence[str]) -> dict:
    """The schema of a learned file whose phases weigh the greedy terms ``names`` (and, in ``[phases.worth]``,
    the same terms at a planner's horizon)."""
    terms = {name: Float(-1e6, 1e6) for name in names}
    phase = Record({**_PHASE_FIELDS, **terms, "worth": Optional(Record(terms), None)})
    return {"game": Str(), "players": Int(1), "seed": Int(), "date": Str(), "command": Str(),
            "policy": Str(), "target": Str(), "method": Str(), "phases": List(phase, 1),
            "fit": Optional(Record({}), {}), "check": Optional(Record({}), {}), "note": Optional(Str(), "")}


def read_learned(path: Path, game: str, names: Sequence[str]) -> dict:
    """A learned file, validated: its game must be ``game``, its phases must start at turn 0 and ascend, and
    every phase must set each of the greedy weights ``names``. A problem is a ConfigError naming the file and
    key."""
    raw = read_toml(path)
    for extra in ("fit", "check"):  # free-form records of the fit: kept as they are
        raw.pop(extra, None)
    values = validate(raw, file_schema(names), str(path))
    if values["game"] != game:
        raise ConfigError(str(path), "game", f"{game!r} (the file's game)", values["game"])
    starts = [phase["from_turn"] for phase in values["phases"]]
    if starts[0] != 0 or any(b <= a for a, b in zip(starts, starts[1:])):
        raise ConfigError(str(path), "phases.from_turn", "0 for the first phase, then ascending turns", starts)
    return values


def learned_weights(game: str, names: Sequence[str], directory: Path | None = None) -> dict[str, float]:
    """The flat weights (module docstring) of every learned file of ``game`` (``<game>-<P>p.toml``); empty
    if there is none."""
    directory = learned_dir() if directory is None else directory
    weights: dict[str, float] = {}
    for path in sorted(directory.glob(f"{game}-*p.toml")):
        values = read_learned(path, game, names)
        players = values["players"]
        weights[f"{PHASES}_{players}p"] = float(len(values["phases"]))
        for k, phase in enumerate(values["phases"]):
            weights[phase_key(TURN, k, players)] = float(phase["from_turn"])
            for name in names:
                weights[phase_key(name, k, players)] = float(phase[name])
                if phase["worth"] is not None:
                    weights[phase_key(HORIZON + name, k, players)] = float(phase["worth"][name])
    return weights


def greedy_names(base: Mapping[str, float]) -> tuple[str, ...]:
    """The greedy evaluation's weights: the keys of a game's ``[bots.greedy]`` (every shipped config sets each)."""
    return tuple(base)


def is_phased(weights: Mapping[str, float]) -> bool:
    """Whether ``weights`` hold learned phases (:func:`learned_weights`)."""
    return any(key.startswith(PHASES) for key in weights)


def phase_weights(weights: Mapping[str, float], players: int, label: str = LEARNED) -> list[tuple[int, dict]]:
    """``(first turn, weights)`` of each phase at ``players`` players: the weights without the learned keys,
    each phase's greedy weights set on top (and its horizon weights as ``horizon.<name>``). A ConfigError if no
    phase was learned at that count."""
    count = weights.get(f"{PHASES}_{players}p")
    if count is None:
        counts = sorted(int(key.rsplit("_", 1)[1][:-1]) for key in weights if key.startswith(PHASES))
        raise ConfigError("--bots", label, f"a learned evaluation at {players} players (learned at: "
                          f"{', '.join(map(str, counts)) or 'none'}; glade train GAME --players {players} ...)",
                          has_got=False)
    plain = {key: value for key, value in weights.items() if "@" not in key and not key.startswith(PHASES)}
    suffix = f"_{players}p"
    phases = []
    for k in range(int(count)):
        tag = f"@{k}{suffix}"
        own = {key[: -len(tag)]: value for key, value in weights.items() if key.endswith(tag)}
        start = int(own.pop(TURN))
        phases.append((start, plain | own))
    return phases


def split_horizon(own: Mapping[str, float]) -> tuple[dict, dict | None]:
    """A phase's weights without the ``horizon.`` ones, and with them in place of the greedy's (None: none)."""
    greedy = {key: value for key, value in own.items() if not key.startswith(HORIZON)}
    horizon = {key[len(HORIZON):]: value for key, value in own.items() if key.startswith(HORIZON)}
    return greedy, (greedy | horizon if horizon else None)


def phase_of(turn: np.ndarray | int, starts: Sequence[int]) -> np.ndarray | int:
    """The phase of a turn: the last phase whose first turn is at most ``turn``."""
    return np.searchsorted(np.asarray(starts), turn, side="right") - 1


class PhasedBot(BatchedBot):
    """One bot of a kind per learned phase; each game is played by the one whose phase its turn is in."""

    def __init__(self, make: Callable[[BatchedEngine, int, Mapping[str, float]], BatchedBot], engine: BatchedEngine,
                 seat: int, weights: Mapping[str, float]):
        super().__init__(engine, seat, weights)
        phases = phase_weights(weights, getattr(engine, "player_count", engine.players))
        self.starts = [start for start, _ in phases]
        self.inner = []
        for _, own in phases:
            greedy, horizon = split_horizon(own)
            bot = make(engine, seat, greedy)
            if horizon is not None and hasattr(bot, "horizon"):
                bot.horizon = make(engine, seat, horizon)
            self.inner.append(bot)
        self.plays_any_seat = all(bot.plays_any_seat for bot in self.inner)

    def act(self, state: BatchedState, active: np.ndarray) -> np.ndarray:
        phase = phase_of(state.turn, self.starts)
        chosen = np.full(state.size, -1, dtype=np.int64)
        for k, bot in enumerate(self.inner):
            part = active & (phase == k)
            if part.any():
                chosen[part] = bot.act(state, part)[part]
        return chosen

    def scored_actions(self, state: BatchedState, active: np.ndarray) -> tuple[np.ndarray, ...]:
        """The inner bots' ``games, actions, value, noise``, each game's from the bot of its phase, by game."""
        phase = phase_of(state.turn, self.starts)
        parts = [bot.scored_actions(state, active & (phase == k))[:4] for k, bot in enumerate(self.inner)]
        merged = [np.concatenate(column) for column in zip(*parts)]
        order = np.argsort(merged[0], kind="stable")
        return tuple(column[order] for column in merged)


class PhasedReferenceBot(ReferenceBot):
    """The reference counterpart of :class:`PhasedBot`: one reference bot per phase, asked by the game's turn."""

    def __init__(self, make: Callable[[int, Mapping[str, float]], ReferenceBot], seat: int,
                 weights: Mapping[str, float]):
        super().__init__(seat, weights)
        self.make = make
        self._inner: dict[int, tuple[list[int], list[ReferenceBot]]] = {}

    def bot(self, game: ReferenceGame) -> ReferenceBot:
        """The inner bot of the phase ``game`` is in (made once per player count)."""
        players = game_players(game)
        if players not in self._inner:
            phases = phase_weights(self.weights, players)
            self._inner[players] = ([s for s, _ in phases],
                                    [self.make(self.seat, split_horizon(own)[0]) for _, own in phases])
        starts, bots = self._inner[players]
        bot = bots[int(phase_of(game.turn, starts))]
        self.explains = bot.explains
        return bot

    def act(self, game: ReferenceGame, seed: int) -> int:
        return self.bot(game).act(game, seed)

    def explain(self, game: ReferenceGame, seed: int) -> list[tuple[int, float]] | None:
        return self.bot(game).explain(game, seed)


def game_players(game: ReferenceGame) -> int:
    """The player count of a reference game (Vorex's ``player_count``: its solo game seats two)."""
    return int(getattr(game, "player_count", game.players))


def batched_bot(make: Callable[..., BatchedBot], engine: BatchedEngine, seat: int,
                weights: Mapping[str, float]) -> BatchedBot:
    """``make(engine, seat, weights)``, or a :class:`PhasedBot` of it for learned weights."""
    if is_phased(weights):
        return PhasedBot(make, engine, seat, weights)
    return make(engine, seat, weights)


def reference_bot(make: Callable[..., ReferenceBot], seat: int, weights: Mapping[str, float]) -> ReferenceBot:
    """``make(seat, weights)``, or a :class:`PhasedReferenceBot` of it for learned weights."""
    if is_phased(weights):
        return PhasedReferenceBot(make, seat, weights)
    return make(seat, weights)


def learned_labels(game: Any) -> tuple[str, ...]:
    """The learned bots ``game`` has: ``learned`` (and ``learned_planner`` with a planner) once a file of it
    exists."""
    if "greedy" not in game.bots or not any(learned_dir().glob(f"{game.name}-*p.toml")):
        return ()
    return (LEARNED,) + ((LEARNED_PLANNER,) if "planner" in game.bots else ())


def learned_descriptions(game: Any) -> list[tuple[str, str]]:
    """What ``glade games`` says of a game's learned bots: their kind and the files they read."""
    labels = learned_labels(game)
    if not labels:
        return []
    counts = sorted(int(path.stem.rsplit("-", 1)[1][:-1]) for path in learned_dir().glob(f"{game.name}-*p.toml"))
    where = f"configs/learned/{game.name}-<P>p.toml at {', '.join(map(str, counts))} players; glade train"
    texts = {LEARNED: f"greedy with its weights fitted to game outcomes, by phase ({where})",
             LEARNED_PLANNER: f"the planner with those weights for its candidates, rollouts and worth ({where}; "
                              "batched only)"}
    return [(label, texts[label]) for label in labels]


def learned_kind(label: str) -> str:
    """The bot kind a learned label plays."""
    return "planner" if label == LEARNED_PLANNER else "greedy"


def rounded(value: float) -> float:
    """A fitted weight as stored: 4 significant digits."""
    if value == 0 or not math.isfinite(value):
        return float(value)
    return float(f"{value:.4g}")
