"""Dice race: a tiny game implementing the whole engine contract, for the runner tests.

Rules. Two or three runners start on space 0 of a track ``0..goal``. At the
start of every turn the player to move rolls one die (``d``), then takes one
action:

* ``ROLL``: move ``d`` spaces, if that does not pass the goal;
* ``STEP``: move 1 space;
* ``LEAP``: move ``2 d`` spaces, only when ``d`` is 1 or 2 and that does not
  pass the goal;
* ``REST``: the only action of a runner standing on the goal.

A runner that lands on a space (not 0, not the goal) where opponents stand
sends them back to 0 (``race.bump``). The game ends when the round is
complete (the last seat has moved) and some runner stands on the goal; all
runners on the goal share first place. Score = position.

The module registers the game on import, so a joblib worker that unpickles a
:class:`RaceConfig` can find it by name.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sims.core.choice import choose_best, choose_uniform
from sims.core.engine import (
    STALL,
    BatchedBot,
    BatchedEngine,
    BatchedState,
    BotSpec,
    GameDefinition,
    GameResults,
    ReferenceBot,
    ReferenceGame,
    Trace,
)
from sims.core.rng import uniform_one, uniforms
from sims.core.spec import Bool, Float, Int, LoadedConfig, Optional, Str, Table, load_config
from sims.registry import register

TOY_TOML = Path(__file__).with_name("toy.toml")

ROLL, STEP, LEAP, REST = range(4)
ACTIONS = ("roll", "step", "leap", "rest")
END_REASONS = ("", "goal", STALL)

_WEIGHTS = {"progress": Optional(Float()), "bump": Optional(Float())}
SCHEMA = {
    "race": {"goal": Int(3, 100), "die_sides": Int(2, 20), "bump": Bool()},
    "limits": {"max_turns": Int(1, 100_000)},
    "bots": {"greedy": _WEIGHTS},
    "personas": Optional(Table({"bot": Str(("greedy",)), **_WEIGHTS}), {}),
}


@dataclass(frozen=True)
class RaceConfig:
    goal: int
    die_sides: int
    bump: bool
    max_turns: int
    bot_weights: dict
    personas: dict
    loaded: LoadedConfig


def load(path: Path | None = None, overrides: Iterable[str] = ()) -> RaceConfig:
    loaded = load_config("toy", SCHEMA, path or TOY_TOML, overrides)
    values = loaded.values
    weights = {kind: {k: v for k, v in w.items() if v is not None} for kind, w in values["bots"].items()}
    personas = {
        name: (p["bot"], {k: v for k, v in p.items() if k != "bot" and v is not None})
        for name, p in values["personas"].items()
    }
    return RaceConfig(
        goal=values["race"]["goal"],
        die_sides=values["race"]["die_sides"],
        bump=values["race"]["bump"],
        max_turns=values["limits"]["max_turns"],
        bot_weights=weights,
        personas=personas,
        loaded=loaded,
    )


# ---------------------------------------------------------------- batched engine


@dataclass
class RaceState(BatchedState):
    position: np.ndarray  # int16 [B, P]
    die: np.ndarray  # int16 [B], the roll of the player to move
    bumps: np.ndarray  # int16 [B, P]
    leaps: np.ndarray  # int16 [B, P]


class RaceEngine(BatchedEngine):
    num_actions = len(ACTIONS)
    end_reasons = END_REASONS

    def __init__(self, config: RaceConfig, players: int):
        self.config, self.players = config, players

    def _roll(self, seeds: np.ndarray, turn: np.ndarray) -> np.ndarray:
        u = uniforms(seeds, "die", turn)[:, 0]
        return (1 + np.floor(u * self.config.die_sides)).astype(np.int16)

    def init(self, seeds: np.ndarray) -> RaceState:
        size = seeds.shape[0]
        zeros = np.zeros((size, self.players), np.int16)
        turn = np.zeros(size, np.int32)
        return RaceState(
            seeds=seeds, done=np.zeros(size, bool), to_move=np.zeros(size, np.int8), turn=turn,
            end=np.zeros(size, np.int8), decisions=np.zeros(size, np.int32),
            position=zeros.copy(), die=self._roll(seeds, turn), bumps=zeros.copy(), leaps=zeros.copy(),
        )

    def _moves(self, state: RaceState) -> np.ndarray:
        die = state.die.astype(np.int32)
        return np.stack([die, np.ones_like(die), 2 * die, np.zeros_like(die)], axis=1)  # [B, 4]

    def legal_mask(self, state: RaceState) -> np.ndarray:
        goal = self.config.goal
        here = state.position[np.arange(state.size), state.to_move].astype(np.int32)
        running = here < goal
        mask = np.stack([
            running & (here + state.die <= goal),
            running,
            running & (state.die <= 2) & (here + 2 * state.die <= goal),
            ~running,
        ], axis=1)
        return mask & ~state.done[:, None]

    def _bumped(self, state: RaceState, landing: np.ndarray) -> np.ndarray:
        """bool [B, A, P]: opponents sent home by each action's landing space."""
        seats = np.arange(self.players)
        opponents = seats[None, :] != state.to_move[:, None]
        hit = (state.position[:, None, :] == landing[:, :, None]) & opponents[:, None, :]
        hit &= ((landing > 0) & (landing < self.config.goal))[:, :, None]
        return hit & self.config.bump

    def step(self, state: RaceState, actions: np.ndarray) -> None:
        active = ~state.done
        rows = np.arange(state.size)
        mover = state.to_move.astype(np.int64)
        here = state.position[rows, mover].astype(np.int32)
        safe = np.where(active, actions, REST)
        move = self._moves(state)[rows, safe]
        landing = here + move
        hit = self._bumped(state, landing[:, None])[:, 0, :] & active[:, None] & (move > 0)[:, None]
        state.position[hit] = 0
        state.position[rows[active], mover[active]] = landing[active]
        state.bumps[rows[active], mover[active]] += hit.sum(axis=1).astype(np.int16)[active]
        leap = active & (actions == LEAP)
        state.leaps[rows[leap], mover[leap]] += 1
        state.turn[active] += 1
        finished = active & (mover == self.players - 1) & (state.position == self.config.goal).any(axis=1)
        state.done |= finished
        state.end[finished] = END_REASONS.index("goal")
        state.to_move = np.where(active, (mover + 1) % self.players, mover).astype(np.int8)
        state.die = np.where(active, self._roll(state.seeds, state.turn), state.die).astype(np.int16)

    def results(self, state: RaceState) -> GameResults:
        score = state.position.astype(np.float64)
        higher = (score[:, None, :] > score[:, :, None]).sum(axis=2)
        stalled = state.end == END_REASONS.index(STALL)
        rank = np.where(stalled[:, None], 0, 1 + higher).astype(np.int8)
        ordered = np.sort(score, axis=1)
        return GameResults(
            score=score, rank=rank, end=state.end.copy(), turns=state.turn.copy(),
            seat_columns={"bumps": state.bumps.copy(), "leaps": state.leaps.copy()},
            game_columns={"margin": ordered[:, -1] - ordered[:, -2]},
        )

    def events(self, state: RaceState, trace: Trace) -> dict[str, np.ndarray]:
        game, decision = np.nonzero(trace.actions >= 0)
        return {
            "game": game.astype(np.int64),
            "decision": decision.astype(np.int32),
            "seat": (decision % self.players).astype(np.int8),
            "action": trace.actions[game, decision].astype(np.int8),
        }

    def snapshot(self, state: RaceState, game: int) -> dict[str, Any]:
        return {
            "position": [int(x) for x in state.position[game]],
            "die": int(state.die[game]),
            "to_move": int(state.to_move[game]),
            "turn": int(state.turn[game]),
            "bumps": [int(x) for x in state.bumps[game]],
            "leaps": [int(x) for x in state.leaps[game]],
            "done": bool(state.done[game]),
        }


# ---------------------------------------------------------------- reference engine


class RaceGame(ReferenceGame):
    """One dice race, as the rules above read."""

    def __init__(self, config: RaceConfig, players: int, seed: int):
        self.config, self.players, self.seed = config, players, seed
        self.position = [0] * players
        self.bumps = [0] * players
        self.leaps = [0] * players
        self.to_move, self.turn, self.done, self.decisions = 0, 0, False, 0
        self.end = ""
        self.die = self.roll()

    def roll(self) -> int:
        return 1 + int(uniform_one(self.seed, "die", self.turn)[0] * self.config.die_sides)

    def landing(self, action: int) -> int:
        here = self.position[self.to_move]
        return here + {ROLL: self.die, STEP: 1, LEAP: 2 * self.die, REST: 0}[action]

    def victims(self, action: int) -> list[int]:
        space = self.landing(action)
        if not self.config.bump or action == REST or space in (0, self.config.goal):
            return []
        return [s for s in range(self.players) if s != self.to_move and self.position[s] == space]

    def legal_actions(self) -> list[int]:
        if self.done:
            return []
        goal = self.config.goal
        if self.position[self.to_move] == goal:
            return [REST]
        legal = [STEP]
        if self.landing(ROLL) <= goal:
            legal.append(ROLL)
        if self.die <= 2 and self.landing(LEAP) <= goal:
            legal.append(LEAP)
        return sorted(legal)

    def apply(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"action {action} is not legal")
        mover = self.to_move
        for victim in self.victims(action):
            self.position[victim] = 0
            self.bumps[mover] += 1
        self.position[mover] = self.landing(action)
        self.leaps[mover] += action == LEAP
        self.turn += 1
        if mover == self.players - 1 and self.config.goal in self.position:
            self.done, self.end = True, "goal"
        self.to_move = (mover + 1) % self.players
        self.die = self.roll()

    def stall(self) -> None:
        self.done, self.end = True, STALL

    def result(self) -> dict[str, Any]:
        score = [float(p) for p in self.position]
        rank = [0 if self.end == STALL else 1 + sum(o > s for o in score) for s in score]
        top = sorted(score)
        return {
            "score": score, "rank": rank, "end": self.end, "turns": self.turn,
            "seat_columns": {"bumps": list(self.bumps), "leaps": list(self.leaps)},
            "game_columns": {"margin": top[-1] - top[-2]},
        }

    def snapshot(self) -> dict[str, Any]:
        return {
            "position": list(self.position), "die": self.die, "to_move": self.to_move, "turn": self.turn,
            "bumps": list(self.bumps), "leaps": list(self.leaps), "done": self.done,
        }


# ---------------------------------------------------------------- bots


class _Streamed(BatchedBot):
    """A bot drawing from ``stream`` (default ``bot/<seat>``): a placebo run renames it."""

    def __init__(self, engine, seat: int, weights=None, stream: str | None = None):
        super().__init__(engine, seat, weights)
        self.stream = stream or f"bot/{seat}"


class RandomBot(_Streamed):
    def act(self, state: RaceState, active: np.ndarray) -> np.ndarray:
        u = uniforms(state.seeds, self.stream, state.decisions)[:, 0]
        return choose_uniform(self.engine.legal_mask(state), u)


class ReferenceRandomBot(ReferenceBot):
    def act(self, game: RaceGame, seed: int) -> int:
        legal = game.legal_actions()
        u = uniform_one(seed, f"bot/{self.seat}", game.decisions)[0]
        return legal[min(int(u * len(legal)), len(legal) - 1)]


class GreedyBot(_Streamed):
    """Furthest landing space, plus a bonus per opponent sent home."""

    def act(self, state: RaceState, active: np.ndarray) -> np.ndarray:
        engine: RaceEngine = self.engine
        here = state.position[np.arange(state.size), state.to_move].astype(np.int32)
        landing = here[:, None] + engine._moves(state)
        bumped = engine._bumped(state, landing).sum(axis=2) * (landing > here[:, None])
        value = self.weights.get("progress", 1.0) * landing + self.weights.get("bump", 0.0) * bumped
        noise = uniforms(state.seeds, self.stream, state.decisions, engine.num_actions)
        return choose_best(value, engine.legal_mask(state), noise)


class ReferenceGreedyBot(ReferenceBot):
    def act(self, game: RaceGame, seed: int) -> int:
        noise = uniform_one(seed, f"bot/{self.seat}", game.decisions, len(ACTIONS))
        values = {
            a: self.weights.get("progress", 1.0) * game.landing(a) + self.weights.get("bump", 0.0) * len(game.victims(a))
            for a in game.legal_actions()
        }
        best = max(values.values())
        return max((a for a in values if values[a] == best), key=lambda a: noise[a])


# ---------------------------------------------------------------- render


def render(game: RaceGame) -> str:
    status = "game over" if game.done else f"seat {game.to_move} to move, die {game.die}"
    lines = [f"after {game.turn} turns: {status}"]
    for seat, here in enumerate(game.position):
        track = ["."] * (game.config.goal + 1)
        track[here] = str(seat)
        lines.append(f"  seat {seat}  |{''.join(track)}|  {here}")
    return "\n".join(lines)


def describe_action(game: RaceGame, action: int) -> str:
    here, there = game.position[game.to_move], game.landing(action)
    text = {
        ROLL: f"rolls {game.die} and moves {here} -> {there}",
        STEP: f"rolls {game.die}, steps {here} -> {there}",
        LEAP: f"rolls {game.die}, leaps {here} -> {there}",
        REST: "rests on the goal",
    }[action]
    victims = game.victims(action)
    if victims:
        text += ", sending seat " + ", ".join(map(str, victims)) + " home"
    return text


GAME = GameDefinition(
    name="toy",
    title="Dice race (test game)",
    player_counts=(2, 3),
    load_config=load,
    batched=lambda cfg, players: RaceEngine(cfg, players),
    reference=lambda cfg, players, seed: RaceGame(cfg, players, seed),
    bots={
        "random": BotSpec("random", RandomBot, ReferenceRandomBot, "uniform among legal actions"),
        "greedy": BotSpec("greedy", GreedyBot, ReferenceGreedyBot, "furthest landing, bonus per bump"),
    },
    render_reference=render,
    describe_action=describe_action,
    max_turns=lambda cfg: cfg.max_turns,
    bot_weights=lambda cfg, kind: cfg.bot_weights.get(kind, {}),
    personas=lambda cfg: cfg.personas,
    describe="2-3 players; a dice race used by the tests",
)

register(GAME)

# The same race as a solo game against a house seat (like Vorex's weed): one player, two seats.
SOLO_GAME = dataclasses.replace(
    GAME,
    name="toy-solo",
    title="Dice race against the house (test game)",
    player_counts=(1, 2),
    batched=lambda cfg, players: RaceEngine(cfg, max(players, 2)),
    reference=lambda cfg, players, seed: RaceGame(cfg, max(players, 2), seed),
    seats=lambda players: max(players, 2),
    house_bot="greedy",
    describe="1-2 players; seat 1 is the house when solo",
)

register(SOLO_GAME)


class MiscountingRaceGame(RaceGame):
    """A reference with a planted bug: one point too many for seat 0 in games whose seed is a multiple of 5."""

    def result(self) -> dict[str, Any]:
        outcome = super().result()
        if self.seed % 5 == 0:
            outcome["score"] = [outcome["score"][0] + 1, *outcome["score"][1:]]
        return outcome


# verify must report exactly the games this reference gets wrong, with any number of workers.
MISCOUNTING_GAME = dataclasses.replace(
    GAME,
    name="toy-miscounting",
    title="Dice race with a wrong reference (test game)",
    reference=lambda cfg, players, seed: MiscountingRaceGame(cfg, players, seed),
)

register(MISCOUNTING_GAME)
