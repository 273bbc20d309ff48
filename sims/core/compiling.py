"""Compiling the numba kernels: said on stderr whenever a process compiles, and done once, before workers start.

numba compiles a kernel at its first call in a process and keeps the machine code on disk (``__pycache__``
beside the sources, or ``NUMBA_CACHE_DIR``); a later process loads it in a fraction of a second. The first run
on a machine, or the first after a kernel's source changed, compiles instead: tens of CPU seconds a game.

* :class:`CompileNotice` says so at the first compile of a game's kernels in a process (``compiling Vorex
  kernels ...``): a compile, never a load from the cache, is what numba reports as a compile event.
* :func:`warm_lineups` plays two deals of each bot of a run (that bot in every seat) before the run's chunks:
  a run compiles or loads everything it needs in the main process, before its progress display starts (so an
  ETA never includes a compile) and before its workers start (so ``--jobs N`` compiles once, not N times:
  the workers find the cache filled).
* :func:`warm_game` (``glade warm``) does it for every bot of a game at every player count.

What has been warmed is remembered beside numba's cache of the game's kernels (``glade-warm-<game>.json``),
with the stamps (modification time and size) of every source file holding the game's kernels and the numba,
Python and CPU they were compiled for; a changed file, or another numba, forgets it. A run whose bots are all
remembered skips its warm-up at the cost of a few file reads::

    glade warm vorex --jobs 2
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from numba.core import event

from sims.core.engine import GameConfig, GameDefinition, Lazy
from sims.core.play import BotChoice, resolve_bot, seat_labels
from sims.core.spec import ConfigError
from sims.registry import get_game

GROUPS = ("random", "greedy", "planner", "strong")  # the bots glade warm compiles (those a game has)
WARM_DEALS = 2
MARKER = "glade-warm-{game}.json"

Say = Callable[[str], None]


def say_on_stderr(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _game_of(module: str) -> str | None:
    """The shipped game whose package holds ``module`` (``sims.vorex.kernels``: vorex), else None."""
    parts = module.split(".")
    if len(parts) > 2 and parts[0] == "sims" and parts[1] != "core":
        return parts[1]
    return None


def notice(game: GameDefinition) -> str:
    """The line said when a game's kernels are compiled rather than loaded."""
    about = f", about {game.compile_seconds:.0f} s of CPU" if game.compile_seconds else ""
    return (f"compiling {game.title} kernels: first run on this machine or after a change to them (numba keeps "
            f"them on disk for the next runs){about}")


class CompileNotice(event.Listener):
    """Says :func:`notice` at the first compile of each game's kernels (a function of ``sims/<game>/``, or any
    compile while :attr:`game` is set), and counts compiles and their CPU seconds."""

    def __init__(self, say: Say = say_on_stderr) -> None:
        self.say = say
        self.told: set[str] = set()
        self.game: str | None = None  # the game being warmed: shared kernels compiled now are its
        self.compiles = 0
        self.seconds = 0.0
        self._started: list[float] = []

    def on_start(self, ev: event.Event) -> None:
        if not self._started:
            name = self.game or _game_of(ev.data["dispatcher"].py_func.__module__)
            if name is not None and name not in self.told:
                self.told.add(name)
                try:
                    self.say(notice(get_game(name)))
                except ConfigError:  # a package under sims/ that is not a game
                    pass
        self._started.append(time.process_time())

    def on_end(self, ev: event.Event) -> None:
        started = self._started.pop()
        self.compiles += 1
        if not self._started:  # callees compile inside their caller: count the outermost only
            self.seconds += time.process_time() - started


_LISTENER: CompileNotice | None = None


def listen(say: Say | None = None) -> CompileNotice:
    """The process's :class:`CompileNotice`, registered on first use (saying on stderr); ``say`` replaces where
    it says its lines (``glade --quiet``: nowhere)."""
    global _LISTENER
    if _LISTENER is None:
        _LISTENER = CompileNotice(say or say_on_stderr)
        event.register("numba:compile", _LISTENER)
    elif say is not None:
        _LISTENER.say = say
    return _LISTENER


# ---------------------------------------------------------------- what has been warmed


def kernel_dispatchers(game: GameDefinition) -> list:
    """The numba functions of the game's modules (``sims/<game>/``, every one imported) and the shared ones
    (``sims/core/``); a game registered elsewhere: those its engine and bots import."""
    import importlib
    import pkgutil

    from numba.core.registry import CPUDispatcher

    import sims.core

    packages = [sims.core] + [module for module in [sys.modules.get(f"sims.{game.name}")] if module is not None]
    for package in packages:
        for found in pkgutil.iter_modules(package.__path__, f"{package.__name__}."):
            importlib.import_module(found.name)
    for made in [game.batched] + [spec.batched for spec in game.bots.values()]:
        if isinstance(made, Lazy):
            made.resolve()
    prefixes = (f"sims.{game.name}.", "sims.core.")
    return [value for name, module in sorted(sys.modules.items()) if name.startswith(prefixes) and module is not None
            for value in vars(module).values() if isinstance(value, CPUDispatcher) and value.__module__ == name]


@dataclass
class Marker:
    """What :func:`warm_lineups` and :func:`warm_game` remember of a game: ``path`` (None: the game has no
    cached kernels), the ``stamp`` its kernels have now, and the ``warmed`` bots (``greedy/3``) under it."""

    path: Path | None
    stamp: dict
    warmed: set[str] = field(default_factory=set)

    def save(self) -> None:
        if self.path is None:
            return
        text = json.dumps({**self.stamp, "warmed": sorted(self.warmed)}, indent=1)
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        try:
            temporary.write_text(text)
            os.replace(temporary, self.path)
        except OSError:  # a cache numba could write but we cannot: warm-ups are only repeated
            temporary.unlink(missing_ok=True)


def marker(game: GameDefinition) -> Marker:
    """The game's :class:`Marker` as on disk (empty if missing, unreadable or stale)."""
    import numba
    from numba.core.caching import FunctionCache
    from numba.core.registry import cpu_target

    dispatchers = kernel_dispatchers(game)
    cached = [d for d in dispatchers if isinstance(d._cache, FunctionCache)]
    if not cached:
        return Marker(None, {})
    files = sorted({d.py_func.__code__.co_filename for d in dispatchers})
    stamp = {
        "numba": numba.__version__,
        "python": list(sys.version_info[:2]),
        "cpu": list(cpu_target.target_context.codegen().magic_tuple()),
        "sources": {path: [os.stat(path).st_mtime, os.stat(path).st_size] for path in files},
    }
    own = [d for d in cached if d.__module__.startswith(f"sims.{game.name}.")] or cached
    path = Path(own[0]._cache._cache_path) / MARKER.format(game=game.name)
    try:
        held = json.loads(path.read_text())
        warmed = set(held.pop("warmed"))
    except (OSError, ValueError, KeyError, TypeError):
        return Marker(path, stamp)
    return Marker(path, stamp, warmed if held == stamp else set())


# ---------------------------------------------------------------- warming


def _group(choice: BotChoice, players: int) -> str:
    return f"{choice.label}/{players}"


def _plain(choice: BotChoice, game: GameDefinition, config: GameConfig) -> bool:
    """A bot :func:`warm_game` warms: a built-in label with its built-in weights (a persona may take other paths)."""
    return choice.label in GROUPS and choice == resolve_bot(game, config, choice.label)


@contextmanager
def _warming(game: GameDefinition) -> Iterator[CompileNotice]:
    listener = listen()
    listener.game = game.name
    try:
        yield listener
    finally:
        listener.game = None


def warm_lineups(game_name: str, lineups: Iterable[tuple[GameConfig, int, Sequence[BotChoice]]],
                 say: Say | None = None) -> int:
    """Compile (or load from numba's cache) in this process every kernel the lineups ``(config, players,
    choices per seat)`` play: two deals with trajectories of each bot in every seat, unless remembered
    (:class:`Marker`) or done before in this process. Says (default: where :func:`listen` says) a line per bot
    that compiled; returns how many kernels compiled."""
    from sims.runner import play_chunk

    game = get_game(game_name)
    wanted: dict[tuple, tuple[GameConfig, int, BotChoice]] = {}
    for config, players, choices in lineups:
        for choice in choices:
            wanted.setdefault(_key(players, choice), (config, players, choice))
    todo = {key: value for key, value in wanted.items() if key not in _DONE}
    if not todo:
        return 0
    held = marker(game)
    if held.path is None:  # no kernel to compile
        _DONE.update(todo)
        return 0
    todo = {key: (config, players, choice) for key, (config, players, choice) in todo.items()
            if not (_plain(choice, game, config) and _group(choice, players) in held.warmed)}
    compiled = 0
    with _warming(game) as listener:
        say = say or listener.say
        for number, (key, (config, players, choice)) in enumerate(todo.items(), 1):
            before, started = listener.compiles, listener.seconds
            house = seat_labels(game, players, [choice.label] * players)[players:]
            choices = (choice,) * players + tuple(resolve_bot(game, config, label) for label in house)
            play_chunk(game.name, config, players, choices, 1, 0, 1, 0, WARM_DEALS, True)
            _DONE.add(key)
            if _plain(choice, game, config):
                held.warmed.add(_group(choice, players))
            if listener.compiles > before:
                compiled += listener.compiles - before
                say(f"  {game.name} kernels of {choice.label} at {players} player{'s' * (players > 1)}: compiled "
                    f"in {listener.seconds - started:.0f} CPU s ({number}/{len(todo)})")
    held.save()
    return compiled


def warm_runs(game_name: str, runs: Iterable[tuple[GameConfig, Sequence[str], int]], say: Say | None = None) -> int:
    """:func:`warm_lineups` of runs given as ``(config, bot labels, players)``."""
    game = get_game(game_name)
    return warm_lineups(game.name, [(config, players, [resolve_bot(game, config, label)
                                                       for label in seat_labels(game, players, labels)])
                                    for config, labels, players in runs], say)


def _key(players: int, choice: BotChoice) -> tuple:
    return players, choice.label, choice.kind, tuple(sorted(choice.weights.items()))


_DONE: set[tuple] = set()  # lineups warmed in this process


@dataclass
class Warmed:
    """What :func:`warm_game` did: kernels compiled, the CPU seconds it took, the bots at each player count
    (``greedy/3``) and numba's cache directory (None: the game has no compiled kernels)."""

    game: str
    compiled: int
    seconds: float
    groups: list[str]
    cache: Path | None


def _every_bot(game: GameDefinition) -> list[tuple[GameConfig, int, list[BotChoice]]]:
    """Each bot of :data:`GROUPS` the game has at each of its player counts, with the default config."""
    config = game.load_config(None, ())
    lineups = []
    for players in game.player_counts:
        for label in GROUPS:
            try:
                lineups.append((config, players, [resolve_bot(game, config, label)]))
            except ConfigError:  # a bot the game does not have
                continue
    return lineups


def warm_game(game_name: str, say: Say | None = None) -> Warmed:
    """Every bot of :data:`GROUPS` the game has, at each of its player counts, through :func:`warm_lineups`
    with the game's default config."""
    game = get_game(game_name)
    lineups = _every_bot(game)
    started = time.process_time()
    compiled = warm_lineups(game.name, lineups, say)
    path = marker(game).path
    return Warmed(game.name, compiled, time.process_time() - started,
                  [_group(choices[0], players) for _, players, choices in lineups], path and path.parent)


def cold_games(game_names: Sequence[str] | None = None) -> list[str]:
    """The games (default: every shipped game) whose bots :func:`warm_game` has not all remembered as compiled:
    a few file reads each."""
    from sims.registry import shipped_game_names

    cold = []
    for name in game_names or shipped_game_names():
        game = get_game(name)
        held = marker(game)
        if held.path is not None and any(_group(choices[0], players) not in held.warmed
                                         for _, players, choices in _every_bot(game)):
            cold.append(game.name)
    return cold


def warm_games(game_names: Sequence[str] | None = None, jobs: int = 1) -> Iterator[Warmed]:
    """:func:`warm_game` of each game (default: every game in ``sims/``), ``jobs`` games at once in processes of
    their own; each as it is done. Unknown names are refused before any is warmed."""
    from sims.registry import shipped_game_names

    shipped = shipped_game_names()
    names = [get_game(name).name for name in game_names] if game_names else shipped
    apart = [name for name in names if name in shipped] if jobs > 1 and len(names) > 1 else []
    for name in names:
        if name not in apart:  # a game registered in this process only (register()) is warmed here
            yield warm_game(name)
    if not apart:
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # spawned, not forked: a fresh interpreter per worker, with nothing of numba's state shared
    with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
        for done in as_completed([pool.submit(warm_game, name) for name in apart]):
            yield done.result()
