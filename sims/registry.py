"""Finds the games: every package ``sims/<game>/`` whose ``__init__`` defines ``GAME``.

Adding a game is adding a folder and a config; nothing here changes.
"""

from __future__ import annotations

import importlib
import pkgutil

import sims
from sims.core.engine import GameDefinition
from sims.core.spec import ConfigError

_EXTRA: dict[str, GameDefinition] = {}


def register(game: GameDefinition) -> None:
    """Add a game defined outside ``sims/`` (tests use this for toy games)."""
    _EXTRA[game.name] = game


def shipped_game_names() -> list[str]:
    """The games in ``sims/`` (packages defining ``GAME``), sorted."""
    names = [m.name for m in pkgutil.iter_modules(sims.__path__) if m.ispkg and m.name != "core"]
    return sorted(n for n in names if hasattr(importlib.import_module(f"sims.{n}"), "GAME"))


def game_names() -> list[str]:
    """Every game: those shipped in ``sims/``, then those registered by :func:`register`."""
    return shipped_game_names() + sorted(_EXTRA)


def get_game(name: str) -> GameDefinition:
    """The game called ``name``; a ConfigError naming the known games otherwise."""
    if name in _EXTRA:
        return _EXTRA[name]
    names = game_names()
    if name not in names:
        raise ConfigError("GAME", name, "one of " + ", ".join(names), has_got=False)
    return importlib.import_module(f"sims.{name}").GAME
