"""What defines a run's records: one frozen :class:`RunSpec`.

A run directory's records follow from its game, config, seat bots, player
count, seed, seat rotation and bot streams (and, for the trajectories table,
whether it is asked for); everything else :func:`sims.runner.run` takes (the
deals, the directory, batch size, workers, backend, progress) changes speed or
where the records go, never what they hold. The command line builds a spec,
the manifest records it (:meth:`RunSpec.manifest_fields`), and a resume reads
it back (:meth:`RunSpec.from_manifest`) and compares (:meth:`RunSpec.difference`)::

    spec = RunSpec("overgrowth", GAME.load_config(None, ()), ("greedy", "random"), 2, seed=4, rotate_seats=True)
    run(spec, 3000, "runs/demo", jobs=2)
    run(spec.with_(seed=5), 3000, "runs/demo-5")  # a variant: checked again

Every value is checked when a spec is made (also by :meth:`RunSpec.with_`): a
bad one is a ConfigError (one line), never a traceback.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from sims.core.engine import GameConfig
from sims.core.play import BotChoice, check_players, resolve_bot, seat_labels, without_streams
from sims.core.spec import ConfigError, RecordedValues
from sims.registry import get_game

SEEDS = 2**64  # a seed is an unsigned 64-bit integer


def check_seed(seed: Any, source: str = "--seed", key: str | None = None) -> int:
    """``seed`` as an int if it is an unsigned 64-bit integer; else a ConfigError naming ``source`` (and ``key``)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < SEEDS:
        expected = f"an integer from 0 to {SEEDS - 1} (2^64 - 1): larger seeds would play the games of seed mod 2^64"
        if key is None:
            raise ConfigError(source, str(seed), expected, has_got=False)
        raise ConfigError(source, key, expected, seed)
    return int(seed)


# What a resume compares, in the order it names the first difference: manifest keys (the config by its hash).
# ``trajectories`` is not one: a directory played with trajectories keeps them (records are the same either way).
RESUMED = ("game", "players", "config_hash", "bots", "seed", "rotate_seats", "bot_streams")


@dataclass(frozen=True, eq=False)
class RunSpec:
    """The values that define a run's records. Equal specs (the config compared by its hash) play equal records
    on any batch size, worker count, backend or machine."""

    game: str
    config: GameConfig
    bots: tuple[str, ...]  # one label per seat (made so: a single label fills the player seats, house seats added)
    players: int
    seed: int
    rotate_seats: bool = False
    trajectories: bool = False  # also write each seat's score at each round end
    bot_streams: str = ""  # empty: the usual streams; NAME: every bot draws from NAME/bot/<seat> (a placebo run)
    choices: tuple[BotChoice, ...] = field(init=False, repr=False)  # the seats' bots, resolved

    def __post_init__(self) -> None:
        definition = get_game(self.game)
        if not hasattr(self.config, "loaded") or not hasattr(self.config, "max_turns"):
            raise ConfigError("config", type(self.config).__name__,
                              f"a config of {definition.name} (GAME.load_config(path, overrides))", has_got=False)
        if isinstance(self.players, bool) or not isinstance(self.players, (int, np.integer)):
            raise ConfigError("--players", str(self.players), "an integer", has_got=False)
        check_players(definition, int(self.players))
        if isinstance(self.bots, str):
            raise ConfigError("--bots", self.bots, "a sequence of bot labels, one per seat", has_got=False)
        labels = tuple(seat_labels(definition, int(self.players), self.bots))
        for option, value in (("--rotate-seats", self.rotate_seats), ("--trajectories", self.trajectories)):
            if not isinstance(value, (bool, np.bool_)):
                raise ConfigError(option, str(value), "true or false", has_got=False)
        if not isinstance(self.bot_streams, str):
            raise ConfigError("--bot-streams", str(self.bot_streams), "a stream name (empty: the usual streams)",
                              has_got=False)
        choices = tuple(resolve_bot(definition, self.config, label) for label in labels)
        fixed = without_streams(definition, choices) if self.bot_streams else None
        if fixed is not None:
            raise ConfigError("--bots", fixed.label, f"a bot whose random stream can be renamed ({definition.name}'s "
                              f"{fixed.kind} bot takes no stream)", has_got=False)
        normal = {"game": definition.name, "bots": labels, "players": int(self.players), "seed": check_seed(self.seed),
                  "rotate_seats": bool(self.rotate_seats), "trajectories": bool(self.trajectories),
                  "choices": choices}
        for name, value in normal.items():
            object.__setattr__(self, name, value)

    def with_(self, **changes: Any) -> RunSpec:
        """This spec with ``changes`` (field names), checked again: a tune candidate's config, a ladder pair's bots."""
        return dataclasses.replace(self, **changes)

    # -- the manifest

    def manifest_fields(self) -> dict:
        """The manifest keys that record this spec (the config by hash, values, source and ``--set`` overrides);
        ``bot_streams`` only when it is set, as in manifests written before it existed."""
        loaded = self.config.loaded
        return {
            "game": self.game,
            "config_hash": loaded.hash,
            "bots": list(self.bots),
            "players": self.players,
            "seed": self.seed,
            "rotate_seats": self.rotate_seats,
            "trajectories": self.trajectories,
            **({"bot_streams": self.bot_streams} if self.bot_streams else {}),
            "config_source": loaded.source,
            "config_overrides": list(loaded.overrides),
            "config": loaded.values,
        }

    @classmethod
    def from_manifest(cls, manifest: dict, source: str | Path = "manifest.json") -> RunSpec:
        """The spec a run's manifest records (as :func:`sims.records.read_manifest` checked it), its config loaded
        from the recorded values and checked against the recorded hash; ``source`` names the manifest in errors.
        Keys an older manifest lacks take their defaults (no trajectories, the usual bot streams)."""
        source = str(source)
        game = get_game(manifest["game"])
        if not isinstance(manifest.get("config"), dict):
            raise ConfigError(source, "config", "the config values the run was played with", has_got=False)
        config = game.load_config(RecordedValues(manifest["config"], f"{source} (config)"), ())
        if config.loaded.hash != manifest["config_hash"]:
            raise ConfigError(source, "config", f"values whose hash is config_hash {manifest['config_hash']} "
                              f"(they hash to {config.loaded.hash})", has_got=False)
        try:
            return cls(game.name, config, tuple(manifest["bots"]), manifest["players"], manifest["seed"],
                       manifest["rotate_seats"], bool(manifest.get("trajectories", False)),
                       manifest.get("bot_streams", ""))
        except ConfigError as error:  # an option's error (--bots: VALUE: expected ...) as the manifest key's
            key = error.source.lstrip("-").replace("-", "_") if error.source.startswith("--") else error.source
            raise ConfigError(source, key, error.expected, error.key) from None

    def difference(self, other: RunSpec) -> tuple[str, Any, Any] | None:
        """The first manifest key of :data:`RESUMED` on which this spec and ``other`` differ, with this spec's value
        and ``other``'s; None when a run of ``other`` may resume one of this spec."""
        mine, theirs = self.manifest_fields(), other.manifest_fields()
        for key in RESUMED:
            if mine.get(key, "") != theirs.get(key, ""):
                return key, mine.get(key, ""), theirs.get(key, "")
        return None

    # -- equality: the config by its hash (two loads of one file are the same config)

    def _key(self) -> tuple:
        return (self.game, self.config.loaded.hash, self.bots, self.players, self.seed, self.rotate_seats,
                self.trajectories, self.bot_streams)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RunSpec) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())


__all__ = ["RESUMED", "RunSpec", "SEEDS", "check_seed"]
