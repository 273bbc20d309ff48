"""Output directories: what a ``--out`` holds, and whether a command may write there.

Every command that writes a directory (``play``, ``sweep``, ``tune``,
``ablate``, ``ladder``, ``report``) checks its ``--out`` here before it writes
anything, through :func:`writing`. A directory is one of these kinds, told by
the state file its writer puts there first (or, for a directory a kill left
half-written, by the folders only that writer makes):

==========  ====================================================  ===========
kind        holds                                                 written by
==========  ====================================================  ===========
new         nothing: it does not exist yet                        (anyone)
empty       no entry but a lock or a killed writer's temporaries  (anyone)
run         ``manifest.json`` (or ``records/``, ``events/``)       play
sweep       ``sweep.json`` (or ``cells/``)                         sweep
ablate      ``ablate.json``, ``ablate.toml`` (a sweep inside)      ablate
tune        ``tune.json`` (or ``candidates/``, ``confirm/``)       tune
ladder      ``ladder.json`` (or only ``A-vs-B/`` run directories)  ladder
report      ``report.html``, ``report.pdf``                        report
foreign     other files: nothing glade wrote                      (nobody)
file        not a directory at all                                (nobody)
==========  ====================================================  ===========

A command writes into a new or empty directory or into one of its own kind
(to resume it, or to write a report again); every other kind is refused with
one ``error:`` line before anything is created, so the directory stays byte
for byte as it was. Whether a directory of its own kind holds the *same*
study is the command's own check, which :func:`writing` runs before taking the
directory's lock and again under it.
"""

from __future__ import annotations

import contextlib
import fnmatch
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from sims.core.files import LOCK, exclusive, is_temporary, remove_temporaries
from sims.core.spec import ConfigError

NEW, EMPTY, FOREIGN, FILE = "new", "empty", "foreign", "file"


@dataclass(frozen=True)
class Kind:
    """A kind of directory a glade command writes."""

    name: str
    writer: str  # the command that writes it
    title: str  # how an error names it: "a glade sweep directory"
    files: tuple[str, ...]  # state files that mark it
    folders: tuple[str, ...] = ()  # folders that mark a half-written one (name patterns)
    only_folders: bool = False  # marked by folders only when every entry is such a folder
    again: str = "to resume"  # what writing into one again does


# In order of precedence: an ablate directory holds a sweep, a run directory may hold a report folder.
KINDS: tuple[Kind, ...] = (
    Kind("ablate", "ablate", "a glade ablate directory", ("ablate.json", "ablate.toml")),
    Kind("tune", "tune", "a glade tune directory", ("tune.json",), ("candidates", "confirm")),
    Kind("ladder", "ladder", "a glade ladder directory", ("ladder.json",), ("*-vs-*",),
         only_folders=True),
    Kind("sweep", "sweep", "a glade sweep directory", ("sweep.json",), ("cells",)),
    Kind("run", "play", "a glade play run directory", ("manifest.json",),
         ("records", "events", "trajectories")),
    Kind("report", "report", "a glade report directory", ("report.html", "report.pdf"),
         again="to write again"),
)
_BY_NAME = {kind.name: kind for kind in KINDS}


def _visible(path: Path) -> list[Path]:
    """The entries of a directory other than its lock and a killed writer's temporaries."""
    return sorted(p for p in path.iterdir() if p.name != LOCK and not is_temporary(p))


def kind_of(path: str | Path) -> str:
    """The kind of ``path``: ``new``, ``empty``, ``file``, ``foreign`` or the name of one of :data:`KINDS`."""
    path = Path(path)
    if not path.exists():
        return NEW
    if not path.is_dir():
        return FILE
    entries = _visible(path)
    if not entries:
        return EMPTY
    names = {p.name for p in entries}
    for kind in KINDS:
        if any(name in names for name in kind.files):
            return kind.name
    for kind in KINDS:
        marked = [p for p in entries if p.is_dir() and any(fnmatch.fnmatch(p.name, f) for f in kind.folders)]
        if kind.only_folders:
            if len(marked) == len(entries) and all((p / "manifest.json").is_file() or not _visible(p)
                                                   for p in marked):
                return kind.name
        elif marked:
            return kind.name
    return FOREIGN


def describe(path: str | Path, kind: str | None = None) -> str:
    """What ``path`` is, for an error: ``a glade sweep directory (sweep.json)``, ``a file``, ``a directory of
    other files (notes.txt)``, ..."""
    path = Path(path)
    kind = kind or kind_of(path)
    if kind in _BY_NAME:
        own = _BY_NAME[kind]
        held = [name for name in own.files if (path / name).exists()]
        return f"{own.title} ({', '.join(held or own.folders)})"
    if kind == FILE:
        return "a file"
    if kind == FOREIGN:
        names = [p.name for p in _visible(path)]
        shown = ", ".join(names[:3]) + (", ..." if len(names) > 3 else "")
        return f"a directory of other files ({shown})"
    return "an empty directory" if kind == EMPTY else "a new directory"


def allowed(command: str) -> tuple[str, ...]:
    """The kinds ``command`` may write into."""
    return (NEW, EMPTY) + tuple(kind.name for kind in KINDS if kind.writer == command)


def check_out(path: str | Path, command: str, option: str = "--out") -> str:
    """The kind of ``path`` if ``glade COMMAND`` may write there; else a ConfigError (one line) naming it."""
    path = Path(path)
    kind = kind_of(path)
    if kind in allowed(command):
        return kind
    own = [k for k in KINDS if k.writer == command]
    wanted = "a new or empty directory" + "".join(f" or {k.title} {k.again}" for k in own)
    raise ConfigError(str(path), option, f"{wanted}, not {describe(path, kind)}: use another {option}",
                      has_got=False)


def check_file(path: str | Path, command: str, option: str = "--out") -> None:
    """A ConfigError unless ``path`` is a file ``glade COMMAND`` may write (``export --out``): not a directory, not
    a state file or chunk file of a glade directory, in a folder that exists."""
    path = Path(path)
    own = {name for kind in KINDS for name in kind.files} | {LOCK}
    chunk = path.parent.name in ("records", "events", "trajectories") and kind_of(path.parent.parent) == "run"
    if path.is_dir() or path.name in own or chunk or not path.parent.is_dir():
        what = ("a directory" if path.is_dir() else "in a folder that does not exist" if not path.parent.is_dir()
                else "a file glade keeps its state or records in")
        raise ConfigError(option, str(path), f"a file for glade {command} to write, not {what}", has_got=False)


T = TypeVar("T")


@contextlib.contextmanager
def writing(path: str | Path, command: str, check: Callable[[], T] | None = None) -> Iterator[T | None]:
    """Check ``path`` for ``glade COMMAND``, then create it and hold its lock for the block.

    ``check()`` is the command's own check of what the directory holds (the same
    study? its state files whole?): read-only, a ConfigError when it refuses. It
    runs before anything is created and again under the lock (another command may
    have written in between); the block gets its value. Under the lock, the
    temporaries a killed writer left directly in ``path`` are removed.
    """
    path = Path(path)
    check = check or (lambda: None)
    check_out(path, command)
    check()
    path.mkdir(parents=True, exist_ok=True)
    with exclusive(path, _lock_name(command)):
        check_out(path, command)
        held = check()
        remove_temporaries(path)
        yield held


def held_state(read: Callable[[], T | None], same: Callable[[T], None], prove: Callable[[], None]
               ) -> tuple[T | None, ConfigError | None]:
    """A directory's state file for resuming, read-only: ``(held, None)`` once ``same(held)`` accepts it as this
    study's; ``(None, damage)`` when ``read()`` finds it damaged but ``prove()`` accepts every run directory there
    as this study's (the command then sets the file aside and writes it again); ``(None, None)`` when there is
    none. ``prove()`` runs in every case; when it refuses a directory with a damaged file, the damage is the
    error (one line naming the file)."""
    damage = None
    try:
        held = read()
    except ConfigError as error:
        held, damage = None, error
    if held is not None:
        same(held)
    try:
        prove()
    except ConfigError:
        if damage is not None:
            raise damage from None
        raise
    return held, damage


def _lock_name(command: str) -> str:
    own = [k for k in KINDS if k.writer == command]
    return f"{own[0].name} directory" if own else "directory"


__all__ = ["EMPTY", "FILE", "FOREIGN", "KINDS", "Kind", "NEW", "allowed", "check_file", "check_out", "describe",
           "held_state", "kind_of", "writing"]
