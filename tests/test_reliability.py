"""Every writing command against bad input, other commands' directories, damaged state files, a second writer
and a killed writer's temporaries: one ``error:`` line and nothing written, or a repair that ends with the records
of an undamaged run. On the toy game, through the command line (CliRunner)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from analysis.sweep import load_sweep
from sims import outdir
from sims.records import load_records
from tests.cli_helpers import glade, one_error_line

ROOT = Path(__file__).resolve().parents[1]
BIG_SEED = 2**64

SWEEP = """game = "toy"
description = "two goals"
bots = ["greedy", "random"]
seed = 11
games_per_cell = 12
grid = { "race.goal" = [10, 14] }
"""


def ok(result) -> None:
    assert result.exit_code == 0, result.output


@pytest.fixture(scope="module")
def zoo(tmp_path_factory) -> Path:
    """One directory of every kind glade writes (toy game, a few games each), a foreign one and a file."""
    root = tmp_path_factory.mktemp("zoo")
    (root / "sweep.toml").write_text(SWEEP)
    for command in COMMANDS:
        if command != "report":
            ok(glade(*args(command, root), "--out", root / KIND[command]))
    ok(glade(*args("report", root), "--out", root / "report"))
    (root / "foreign").mkdir()
    (root / "foreign" / "notes.txt").write_text("my notes\n")
    (root / "file").write_text("a file\n")
    return root


COMMANDS = ("play", "sweep", "tune", "ablate", "ladder", "report")
KIND = {"play": "run", "sweep": "sweep", "tune": "tune", "ablate": "ablate", "ladder": "ladder", "report": "report"}
KINDS = ("run", "sweep", "tune", "ablate", "ladder", "report", "foreign", "file")


def args(command: str, zoo: Path, extra: list | tuple = ()) -> list:
    """A good ``glade COMMAND ...`` on the toy game, without ``--out``; ``extra`` option pairs replace the
    options of the same name, or are added."""
    head, options, flags = {
        "play": (["play", "toy"], {"--games": 20, "--seed": 7, "--bots": "greedy,random", "--batch-size": 10},
                 ["--rotate-seats", "--no-progress"]),
        "sweep": (["sweep", zoo / "sweep.toml"], {"--batch-size": 5}, ["--no-progress"]),
        "tune": (["tune", "toy"], {"--bots": "greedy,random", "--param": "race.goal=10|14", "--seed": 3,
                                   "--budget": 300, "--confirm": 12, "--start": 8}, ["--no-progress"]),
        "ablate": (["ablate", "toy"], {"--bots": "greedy,random", "--games": 16, "--seed": 5,
                                       "--item": "race.goal+=2"}, ["--no-progress"]),
        "ladder": (["ladder", "toy"], {"--bots": "random,greedy", "--players": 2, "--games": 8, "--seed": 2},
                   ["--no-progress"]),
        "report": (["report", zoo / "run"], {}, ["--html"]),
    }[command]
    options = {**options, **dict(zip(extra[::2], extra[1::2]))}
    return [*head, *(item for pair in options.items() for item in pair), *flags]


def snapshot(path: Path) -> dict[str, bytes | None]:
    """Every entry under ``path`` (the lock included) and its bytes; a file maps to its own bytes."""
    if path.is_file():
        return {"": path.read_bytes()}
    return {str(p.relative_to(path)): (p.read_bytes() if p.is_file() else None) for p in sorted(path.rglob("*"))}


def copy(zoo: Path, kind: str, to: Path) -> Path:
    source = zoo / kind
    (shutil.copytree if source.is_dir() else shutil.copyfile)(source, to)
    return to


def records_of(out: Path, kind: str) -> list:
    """The records a directory of ``kind`` holds, run by run."""
    if kind in ("sweep", "ablate"):
        return [cell.records() for cell in load_sweep(out).cells]
    if kind == "tune":
        folders = sorted((out / "candidates").iterdir()) + sorted((out / "confirm").iterdir())
    elif kind == "ladder":
        folders = [p for p in sorted(out.iterdir()) if p.is_dir() and p.name != "damaged"]
    else:
        folders = [out]
    return [load_records(folder) for folder in folders]


def same_records(a: Path, b: Path, kind: str) -> None:
    for one, other in zip(records_of(a, kind), records_of(b, kind), strict=True):
        assert_frame_equal(one, other)


# ---------------------------------------------------------------- the kinds of directory


def test_every_directory_is_told_by_what_its_writer_put_there(zoo, tmp_path):
    assert {kind: outdir.kind_of(zoo / kind) for kind in KINDS} == {kind: kind for kind in KINDS}
    assert outdir.kind_of(tmp_path / "nothing") == "new"
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / ".lock").touch()
    (tmp_path / "empty" / ".manifest.json.12.tmp").touch()
    assert outdir.kind_of(tmp_path / "empty") == "empty"
    half = copy(zoo, "run", tmp_path / "half")
    (half / "manifest.json").unlink()  # a run killed before its manifest (or with it deleted): still a run
    assert outdir.kind_of(half) == "run"


@pytest.mark.parametrize(("command", "kind"), [(c, k) for c in COMMANDS for k in KINDS if KIND[c] != k])
def test_a_command_writes_no_directory_of_another_kind(zoo, tmp_path, command, kind):
    out = copy(zoo, kind, tmp_path / "out")
    before = snapshot(out)
    one_error_line(glade(*args(command, zoo), "--out", out), str(out), "--out", "use another --out")
    assert snapshot(out) == before


# ---------------------------------------------------------------- bad input


BAD = [
    ("play", ["--seed", BIG_SEED], ["--seed", "2^64 - 1"]),
    ("play", ["--seed", -1], ["--seed"]),
    ("play", ["--games", 10**15], ["--games", "999,999,999"]),
    ("play", ["--bots", "greedy,nosuch"], ["--bots", "nosuch"]),
    ("play", ["--players", 5], ["--players"]),
    ("play", ["--set", "race.goal=0"], ["race.goal"]),
    ("play", ["--config", "no-such.toml"], ["no-such.toml"]),
    ("play", ["--max-games", 50], ["--max-games", "--until-ci"]),
    ("play", ["--scheduler", "not-an-address"], ["--scheduler", "not-an-address"]),
    ("sweep", ["--games-per-cell", 10**15], ["--games-per-cell"]),
    ("sweep", ["--scheduler", "not-an-address"], ["--scheduler"]),
    ("sweep", ["--backend", "loky", "--scheduler", "tcp://127.0.0.1:1"], ["--scheduler", "--backend dask"]),
    ("tune", ["--seed", BIG_SEED], ["--seed", "2^64 - 1"]),
    ("tune", ["--seed", -1], ["--seed"]),
    ("tune", ["--param", "race.goal=1..x"], ["--param"]),
    ("tune", ["--param", "race.nosuch=1|2"], ["race.nosuch"]),
    ("tune", ["--bots", "greedy,nosuch"], ["nosuch"]),
    ("tune", ["--confirm", 10**15], ["--confirm"]),
    ("tune", ["--mean", "nosuch=1..2"], ["--mean", "nosuch", "a numeric records column"]),
    ("tune", ["--delta", 0.9], ["--delta"]),
    ("ablate", ["--seed", BIG_SEED], ["--seed", "2^64 - 1"]),
    ("ablate", ["--games", 10**15], ["--games"]),
    ("ablate", ["--item", "race.nosuch=1"], ["--item", "race.nosuch"]),
    ("ablate", ["--item", "race.goal=0"], ["--item", "race.goal"]),
    ("ablate", ["--bots", "greedy,nosuch"], ["--bots", "nosuch"]),
    ("ablate", ["--players", 5], ["--players"]),
    ("ladder", ["--seed", BIG_SEED], ["--seed", "2^64 - 1"]),
    ("ladder", ["--games", 10**15], ["--games"]),
    ("ladder", ["--bots", "random"], ["--bots"]),
    ("ladder", ["--bots", "random,nosuch"], ["nosuch"]),
    ("ladder", ["--players", 1], ["--players"]),
    ("ladder", ["--set", "race.goal=0"], ["race.goal"]),
]


@pytest.mark.parametrize(("command", "extra", "fragments"), BAD, ids=[f"{c}{' '.join(map(str, e))}" for c, e, _ in BAD])
def test_bad_input_is_one_line_and_writes_nothing(zoo, tmp_path, command, extra, fragments):
    new = tmp_path / "new" / "out"
    one_error_line(glade(*args(command, zoo, extra), "--out", new), *fragments)
    assert not (tmp_path / "new").exists()
    held = copy(zoo, KIND[command], tmp_path / "held")  # the same command on its own directory: left as it was
    before = snapshot(held)
    one_error_line(glade(*args(command, zoo, extra), "--out", held), *fragments)
    assert snapshot(held) == before


@pytest.mark.parametrize(("text", "fragments"), [
    (SWEEP.replace("seed = 11", f"seed = {BIG_SEED}"), ["seed", "2^64 - 1"]),
    (SWEEP.replace("seed = 11", "seed = -3"), ["seed"]),
    (SWEEP.replace("games_per_cell = 12", "games_per_cell = 1000000000000"), ["games_per_cell"]),
    (SWEEP.replace('"race.goal"', '"race.nosuch"'), ["race.nosuch"]),
    (SWEEP.replace('"greedy", "random"', '"greedy", "nosuch"'), ["bots", "nosuch"]),
    ("game = [", ["(syntax)"]),
])
def test_a_bad_sweep_file_is_one_line_and_writes_nothing(zoo, tmp_path, text, fragments):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    one_error_line(glade("sweep", path, "--out", tmp_path / "out"), str(path), *fragments)
    assert not (tmp_path / "out").exists()
    one_error_line(glade("sweep", tmp_path, "--out", tmp_path / "out"), str(tmp_path), "an existing TOML file")
    held = copy(zoo, "sweep", tmp_path / "held")
    before = snapshot(held)
    one_error_line(glade("sweep", path, "--out", held), str(path), *fragments)
    assert snapshot(held) == before


def test_a_malformed_ladder_file_is_refused_before_the_ladder_is_played(zoo, tmp_path):
    ladder_file = tmp_path / "ladder.toml"
    ladder_file.write_text('[[ladder]]\ngame = "toy"\nplayers = "two"\n')
    one_error_line(glade(*args("ladder", zoo), "--save", "--ladder", ladder_file, "--out", tmp_path / "out"),
                   str(ladder_file), "players")
    assert not (tmp_path / "out").exists()
    assert ladder_file.read_text() == '[[ladder]]\ngame = "toy"\nplayers = "two"\n'


def test_report_and_export_refuse_bad_input_without_writing(zoo, tmp_path):
    out = tmp_path / "report"
    one_error_line(glade("report", tmp_path / "nothing", "--out", out), "nothing", "does not exist")
    one_error_line(glade("report", zoo / "file", "--out", out), "is a file")
    one_error_line(glade("report", zoo / "foreign", "--out", out), "notes.txt")
    one_error_line(glade("report", "--diff", zoo / "run", zoo / "sweep", "--out", out), "manifest.json")
    assert not out.exists()
    run = copy(zoo, "run", tmp_path / "run")
    before = snapshot(run)
    for target in (run, run / "manifest.json", run / "records" / "r0-000000000-000000010.parquet"):
        one_error_line(glade("export", run, "--csv", "--out", target), "--out", str(target))
    one_error_line(glade("export", run, "--csv", "--out", tmp_path / "no" / "x.csv"), "does not exist")
    assert snapshot(run) == before and not (tmp_path / "no").exists()


def test_a_diff_of_two_games_is_refused_and_two_configs_of_one_are_not(zoo, tmp_path):
    other = tmp_path / "other"
    ok(glade("play", "overgrowth", "--games", 4, "--seed", 1, "--bots", "random,random", "--no-progress",
             "--out", other))
    one_error_line(glade("report", "--diff", zoo / "run", other, "--html", "--out", tmp_path / "d"),
                   str(other / "manifest.json"), "game", "toy", "overgrowth")
    assert not (tmp_path / "d").exists()
    longer = tmp_path / "longer"
    ok(glade(*args("play", zoo), "--set", "race.goal=14", "--out", longer))
    ok(glade("report", "--diff", zoo / "run", longer, "--html", "--out", tmp_path / "d"))


# ---------------------------------------------------------------- another study on the same --out


@pytest.mark.parametrize(("command", "extra", "key"), [
    ("play", ["--seed", 8], "seed"),
    ("play", ["--games", 10], "games"),
    ("tune", ["--param", "race.goal=10|16"], "params"),
    ("tune", ["--budget", 400], "budget"),
    ("ablate", ["--item", "race.goal+=3"], "--item"),
    ("ladder", ["--seed", 3], "seed"),
    ("ladder", ["--bots", "greedy,random"], "bots"),
])
def test_another_study_on_the_same_out_is_refused_untouched(zoo, tmp_path, command, extra, key):
    held = copy(zoo, KIND[command], tmp_path / "held")
    before = snapshot(held)
    one_error_line(glade(*args(command, zoo, extra), "--out", held), key, "use another --out")
    assert snapshot(held) == before


def test_another_sweep_on_the_same_out_is_refused_untouched(zoo, tmp_path):
    path = tmp_path / "other.toml"
    path.write_text(SWEEP.replace("seed = 11", "seed = 12"))
    held = copy(zoo, "sweep", tmp_path / "held")
    before = snapshot(held)
    one_error_line(glade("sweep", path, "--out", held), "seed", "use another --out")
    assert snapshot(held) == before


# ---------------------------------------------------------------- damaged state files


def truncated(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 2])


def null(path: Path) -> None:
    path.write_text("null\n")


WRONG = {"manifest.json": ("players", "two"), "sweep.json": ("cells", "x"), "tune.json": ("study", []),
         "ablate.json": ("ablations", {}), "ladder.json": ("study", 5)}


def wrong_shape(path: Path) -> None:
    data = json.loads(path.read_text())
    key, value = WRONG[path.name]
    data[key] = value
    path.write_text(json.dumps(data))


DAMAGES = {"truncated": truncated, "null": null, "wrong shape": wrong_shape}
STATE = [("play", "manifest.json"), ("sweep", "sweep.json"), ("tune", "tune.json"), ("ablate", "ablate.json"),
         ("ladder", "ladder.json")]


@pytest.mark.parametrize("damage", DAMAGES)
@pytest.mark.parametrize(("command", "name"), STATE)
def test_a_damaged_state_file_is_repaired_from_the_runs_or_refused_in_one_line(zoo, tmp_path, command, name,
                                                                               damage):
    out = copy(zoo, KIND[command], tmp_path / "out")
    DAMAGES[damage](out / name)
    if command != "play":  # reading it: one line naming the file
        before = snapshot(out)
        one_error_line(glade("report", out, "--html", "--out", tmp_path / "report"), str(out / name))
        assert snapshot(out) == before and not (tmp_path / "report").exists()
    result = glade(*args(command, zoo), "--out", out)
    if command == "play":  # a run's manifest holds what no record proves (the config it was played with)
        before = snapshot(out)
        one_error_line(glade(*args(command, zoo), "--out", out), str(out / name))
        assert snapshot(out) == before
        return
    ok(result)
    assert f"warning: {out / name} is damaged" in result.stderr
    assert (out / "damaged" / name).is_file()
    same_records(out, zoo / KIND[command], KIND[command])
    again = glade(*args(command, zoo), "--out", out)
    ok(again)
    assert "warning" not in again.stderr


def test_a_damaged_state_file_with_runs_of_another_study_is_refused_untouched(zoo, tmp_path):
    out = copy(zoo, "sweep", tmp_path / "out")
    null(out / "sweep.json")
    path = tmp_path / "other.toml"
    path.write_text(SWEEP.replace("seed = 11", "seed = 12"))  # its cells would be played on other deals
    before = snapshot(out)
    one_error_line(glade("sweep", path, "--out", out), str(out / "sweep.json"), "(top level)")
    assert snapshot(out) == before


def test_a_damaged_cell_manifest_is_refused_before_the_sweep_writes(zoo, tmp_path):
    out = copy(zoo, "sweep", tmp_path / "out")
    cell = sorted((out / "cells").iterdir())[1]
    null(cell / "manifest.json")
    before = snapshot(out)
    one_error_line(glade(*args("sweep", zoo), "--out", out), str(cell / "manifest.json"), "(top level)")
    assert snapshot(out) == before


def test_a_damaged_ablate_toml_is_written_again_from_sweep_json(zoo, tmp_path):
    out = copy(zoo, "ablate", tmp_path / "out")
    truncated(out / "ablate.toml")
    result = glade(*args("ablate", zoo), "--out", out)
    ok(result)
    assert "ablate.toml is damaged" in result.stderr
    assert (out / "ablate.toml").read_bytes() == (zoo / "ablate" / "ablate.toml").read_bytes()


# ---------------------------------------------------------------- a second writer, a killed writer's leftovers


HOLD_LOCK = """
import sys
from pathlib import Path
from sims.core.files import exclusive
with exclusive(Path(sys.argv[1]), "directory"):
    print("held", flush=True)
    sys.stdin.read()
"""


@pytest.mark.parametrize("command", COMMANDS)
def test_a_second_writer_is_refused_and_writes_nothing(zoo, tmp_path, command):
    out = copy(zoo, KIND[command], tmp_path / "out")
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert holder.stdout.readline().strip() == "held"
        before = snapshot(out)
        one_error_line(glade(*args(command, zoo), "--out", out), str(out), "no other glade command is writing to")
        assert snapshot(out) == before
    finally:
        holder.communicate("")
    ok(glade(*args(command, zoo), "--out", out))


@pytest.mark.parametrize("command", ["play", "sweep", "tune", "ablate", "ladder"])
def test_temporaries_a_kill_left_are_removed_on_resume(zoo, tmp_path, command):
    out = copy(zoo, KIND[command], tmp_path / "out")
    runs = [p.parent for p in out.rglob("manifest.json")]
    left = [out / f".{name}.4242.tmp" for name in ("manifest.json", "sweep.json", "tune.json", "ablate.json")]
    left += [run / ".manifest.json.4242.tmp" for run in runs]
    left += [run / "records" / ".r0-000000000-000000004.parquet.4242.tmp" for run in runs]
    for path in left:
        path.write_bytes(b"")
    ok(glade(*args(command, zoo), "--out", out))
    assert [p for p in left if p.exists()] == []
    same_records(out, zoo / KIND[command], KIND[command])


def test_commands_that_write_nothing_refuse_counts_no_run_could_hold(zoo):
    one_error_line(glade("verify", "toy", "--games", 10**15), "--games", "999,999,999")
    one_error_line(glade("replay", zoo / "run", "--game", 10**15), "--game")


def test_a_huge_jobs_asks_for_at_most_four_workers_per_cpu():
    import os

    from sims.runner import WORKERS_PER_CPU, local_workers

    with local_workers(10**6) as parallel:  # no worker starts before a task is given
        assert parallel.n_jobs == WORKERS_PER_CPU * os.cpu_count()
    with local_workers(2) as parallel:
        assert parallel.n_jobs == min(2, WORKERS_PER_CPU * os.cpu_count())


@pytest.mark.parametrize("bad", [["--seed", str(1 << 64)], ["--games", "1000000000000"], ["--out", "missing/x.toml"]])
def test_train_refuses_bad_input_before_writing(tmp_path, bad):
    options = {"--seed": "1", "--games": "10", "--out": str(tmp_path / "fit.toml")}
    options[bad[0]] = bad[1] if bad[0] != "--out" else str(tmp_path / bad[1])
    before = sorted(p.name for p in tmp_path.iterdir())
    result = glade("train", "vora", "--players", "2", *[x for kv in options.items() for x in kv])
    one_error_line(result, bad[0])
    assert sorted(p.name for p in tmp_path.iterdir()) == before
