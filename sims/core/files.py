"""Files that survive a kill: atomic writes, a directory lock, and the one loader of state files.

Every file Glade writes goes under a temporary name in the same folder and
is then renamed, so a file on disk is always whole, whatever moment a run is
killed at; a temporary left by a kill (``.NAME.<pid>.tmp``) is removed when the
next command takes the folder's lock (:func:`remove_temporaries`).

State files (a run's ``manifest.json``, ``sweep.json``, ``tune.json``,
``ablate.json``, ``ladder.json``) are read by :func:`read_state` only: whole
JSON of the shape the writing command gives it, or one ConfigError naming the
file, the key and what was expected.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from typing import Any

import polars as pl
import pyarrow as pa

from sims.core.spec import ConfigError


def _temporary(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def is_temporary(path: Path) -> bool:
    """A leftover of a write that a kill interrupted."""
    return path.name.startswith(".") and path.name.endswith(".tmp")


def write_parquet(frame: pl.DataFrame, path: Path, descriptions: Mapping[str, str] | None = None) -> None:
    """Write ``frame`` atomically; ``descriptions`` go into the Parquet schema as each field's ``description``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = _temporary(path)
    schema = None
    if descriptions:
        fields = frame.head(0).to_arrow().schema
        schema = pa.schema([f.with_metadata({"description": descriptions[f.name]}) if f.name in descriptions
                            else f for f in fields])
    frame.write_parquet(temporary, arrow_schema=schema)
    os.replace(temporary, path)


def write_json(data: dict, path: Path) -> None:
    write_text(json.dumps(data, indent=2, default=str) + "\n", path)


def write_text(text: str, path: Path) -> None:
    """Write ``text`` to ``path`` atomically (a temporary in the same folder, then a rename)."""
    write_bytes(text.encode("utf-8"), path)


def write_bytes(data: bytes, path: Path) -> None:
    """Write ``data`` to ``path`` atomically."""
    with atomic(path) as temporary, open(temporary, "wb") as handle:
        handle.write(data)


@contextlib.contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary name beside ``path`` for the block to write; renamed to ``path`` when the block ends well,
    removed when it fails."""
    temporary = _temporary(Path(path))
    try:
        yield temporary
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    os.replace(temporary, path)


def remove_temporaries(folder: Path) -> list[Path]:
    """Remove the temporaries a killed writer left directly in ``folder`` (call it holding the folder's lock)."""
    removed = [path for path in folder.iterdir() if is_temporary(path) and path.is_file()] if folder.is_dir() else []
    for path in removed:
        path.unlink()
    return removed


LOCK = ".lock"


@contextlib.contextmanager
def exclusive(folder: Path, what: str) -> Iterator[None]:
    """Hold ``folder/.lock`` (flock) for the block; another holder gets a ConfigError naming ``what``.

    The lock file is opened without truncating it: a command refused here leaves it as it was."""
    handle = os.open(folder / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ConfigError(str(folder), "(lock)", f"a {what} no other glade command is writing to",
                              has_got=False) from None
        yield
    finally:
        os.close(handle)


def set_aside(path: Path, damaged: str = "damaged") -> Path:
    """Move a damaged file to ``FOLDER/damaged/NAME`` (``NAME.1``, ... when taken); returns where it went."""
    aside = path.parent / damaged / path.name
    number = 1
    candidate = aside
    while candidate.exists():
        candidate = aside.with_name(f"{aside.name}.{number}")
        number += 1
    candidate.parent.mkdir(parents=True, exist_ok=True)
    os.replace(path, candidate)
    return candidate


# ---------------------------------------------------------------- state files


class Maybe:
    """A shape that may also be JSON null."""

    def __init__(self, shape: Any):
        self.shape = shape


class Opt:
    """A key of an object shape that may be left out (a key that older versions did not write)."""

    def __init__(self, shape: Any):
        self.shape = shape


class Where:
    """A shape with a further test: ``test(value)`` true, else ``what`` was expected."""

    def __init__(self, shape: Any, test: Any, what: str):
        self.shape, self.test, self.what = shape, test, what


_TYPES: dict[type, str] = {str: "a string", int: "an integer", float: "a number", bool: "true or false",
                           dict: "a JSON object", list: "a list"}


def describe_shape(shape: Any) -> str:
    """What a shape expects, in words."""
    if isinstance(shape, Where):
        return shape.what
    if isinstance(shape, (Maybe, Opt)):
        return describe_shape(shape.shape) + (" or null" if isinstance(shape, Maybe) else "")
    if isinstance(shape, dict):
        return "a JSON object"
    if isinstance(shape, list):
        return f"a list, each item {describe_shape(shape[0])}"
    return _TYPES[shape]


def shape_problem(value: Any, shape: Any, key: str) -> tuple[str, str, Any] | None:
    """The first place ``value`` departs from ``shape``: (key, what was expected, what is there), or None."""
    if isinstance(shape, Maybe):
        return None if value is None else shape_problem(value, shape.shape, key)
    if isinstance(shape, Where):
        problem = shape_problem(value, shape.shape, key)
        if problem is None and not shape.test(value):
            return key, shape.what, value
        return problem
    if isinstance(shape, dict):
        if not isinstance(value, dict):
            return key, "a JSON object", value
        for name, sub in shape.items():
            where = f"{key}.{name}" if key != "(top level)" else name
            if name not in value:
                if isinstance(sub, Opt):
                    continue
                return where, describe_shape(sub), _MISSING
            problem = shape_problem(value[name], sub.shape if isinstance(sub, Opt) else sub, where)
            if problem is not None:
                return problem
        return None
    if isinstance(shape, list):
        if not isinstance(value, list):
            return key, describe_shape(shape), value
        for index, item in enumerate(value):
            problem = shape_problem(item, shape[0], f"{key}[{index}]")
            if problem is not None:
                return problem
        return None
    exact = isinstance(value, shape) and not (isinstance(value, bool) and shape is not bool)
    if shape is float:
        exact = isinstance(value, (int, float)) and not isinstance(value, bool)
    return None if exact else (key, _TYPES[shape], value)


_MISSING = object()


def state_error(path: Path, key: str, expected: str, label: str, writer: str, value: Any = _MISSING) -> ConfigError:
    """``PATH: KEY: expected EXPECTED, as in a LABEL written by glade WRITER, got ...`` (one line)."""
    got = "nothing (the key is missing)" if value is _MISSING else json.dumps(value, default=str)[:60]
    return ConfigError(str(path), key, f"{expected}, as in {_a(label)} written by glade {writer}, got {got}",
                       has_got=False)


def _a(noun: str) -> str:
    return f"{'an' if noun[:1] in 'aeiou' else 'a'} {noun}"


def read_state(path: Path, shape: Any, label: str, writer: str) -> Any:
    """The JSON state file at ``path`` checked against ``shape``; None if there is no such file.

    A file that is not whole JSON, or not of the shape (a dict of keys to shapes,
    ``[shape]`` for a list, a type, :class:`Maybe`, :class:`Opt`, :class:`Where`),
    is a ConfigError naming the file and the first key that departs from it.
    """
    path = Path(path)
    if not path.exists():
        return None
    if not path.is_file():
        raise ConfigError(str(path), "(file)", f"{_a(label)} written by glade {writer}, not a directory",
                          has_got=False)
    try:
        data = json.loads(path.read_bytes())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise ConfigError(str(path), "(syntax)", f"{_a(label)} written by glade {writer} ({error})",
                          has_got=False) from None
    problem = shape_problem(data, shape, "(top level)")
    if problem is not None:
        raise state_error(path, problem[0], problem[1], label, writer, problem[2])
    return data
