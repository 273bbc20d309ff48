"""Run directories damaged on disk: cut chunk files, manifests of the wrong shape, absurd sizes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from polars.testing import assert_frame_equal

from sims.core.spec import ConfigError
from sims.runner import MAX_DEALS, Chunk, iter_chunks, load_events, load_records, missing_deals, plan_chunks, run
from sims.runspec import RunSpec
from tests import toy_game
from tests.cli_helpers import glade, one_error_line

ROOT = Path(__file__).resolve().parents[1]
PLAY = ["play", "toy", "--games", "40", "--seed", "7", "--bots", "greedy,random", "--rotate-seats",
        "--batch-size", "10", "--no-progress"]


def play(out, config, warn=None, games=40):
    return run(RunSpec("toy", config, ["greedy", "random"], 2, 7, rotate_seats=True), games, out, batch_size=10,
               progress=None, warn=warn)


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole")
    play(out, toy_game.load())
    return out


def cut(path: Path, size: int = 100) -> None:
    with open(path, "r+b") as handle:
        handle.truncate(size)


@pytest.mark.parametrize("kind", ["records", "events"])
def test_a_cut_chunk_is_set_aside_and_replayed_to_the_same_records(tmp_path, toy_config, whole, kind):
    play(tmp_path, toy_config)
    damaged = tmp_path / kind / "r1-000000010-000000020.parquet"
    cut(damaged)
    lines = []
    summary = play(tmp_path, toy_config, warn=lines.append)
    assert summary.played == 10 and summary.chunks_played == 1  # exactly that chunk's deals
    assert len(lines) == 1 and str(damaged) in lines[0] and lines[0].startswith("warning: ")
    assert (tmp_path / "damaged" / kind / damaged.name).stat().st_size == 100
    assert_frame_equal(load_records(tmp_path), load_records(whole))
    assert_frame_equal(load_events(tmp_path), load_events(whole))


def test_a_records_chunk_short_of_rows_is_replayed(tmp_path, toy_config, whole):
    play(tmp_path, toy_config)
    path = tmp_path / "records" / "r0-000000020-000000030.parquet"
    pl.read_parquet(path).head(5).write_parquet(path)  # a whole Parquet file, missing rows
    lines = []
    play(tmp_path, toy_config, warn=lines.append)
    assert "5 rows where deals 20-29 make 20" in lines[0]
    assert_frame_equal(load_records(tmp_path), load_records(whole))


def test_reading_a_damaged_run_is_one_error_line(tmp_path, toy_config):
    play(tmp_path, toy_config)
    damaged = tmp_path / "records" / "r0-000000000-000000010.parquet"
    cut(damaged)
    with pytest.raises(ConfigError, match="run the same glade play command again"):
        load_records(tmp_path)
    one_error_line(glade("report", tmp_path, "--html", "--out", tmp_path / "report"), str(damaged), "damaged")


@pytest.mark.slow  # two fresh interpreters; the in-process tests above check the same logic
def test_cut_then_resume_in_a_real_process(tmp_path, whole):
    """truncate -s 100 on a chunk between two runs of the same glade play command in subprocesses."""
    command = [sys.executable, "-c", "import tests.toy_game; from analysis.cli import main; main()"]
    out = tmp_path / "run"
    subprocess.run(command + PLAY + ["--out", str(out)], check=True, capture_output=True, cwd=ROOT)
    cut(out / "records" / "r0-000000030-000000040.parquet")
    again = subprocess.run(command + PLAY + ["--out", str(out)], capture_output=True, text=True, cwd=ROOT)
    assert again.returncode == 0, again.stderr
    warnings = [line for line in again.stderr.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 1 and "r0-000000030-000000040.parquet is damaged" in warnings[0]
    assert "Traceback" not in again.stderr
    assert_frame_equal(load_records(out), load_records(whole))


@pytest.mark.parametrize(("text", "fragment"), [
    ("null", "(top level): expected a JSON object"),
    ("[]", "(top level): expected a JSON object"),
    ('{"games": "x"}', "game: expected a string"),
    ('{"game": "toy", "players": 2, "seed": 7, "games": "x"}', "games: expected an integer"),
    ("{", "(syntax)"),
])
def test_a_manifest_of_the_wrong_shape_is_one_error_line(tmp_path, toy_config, text, fragment):
    play(tmp_path, toy_config)
    (tmp_path / "manifest.json").write_text(text)
    path = str(tmp_path / "manifest.json")
    one_error_line(glade(*PLAY, "--out", tmp_path), path, fragment)
    one_error_line(glade("report", tmp_path, "--html", "--out", tmp_path / "report"), path, fragment)


def test_absurd_game_counts_are_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "huge"
    one_error_line(glade("play", "toy", "--games", 10**15, "--seed", 1, "--bots", "random", "--out", out),
                   "--games", f"{MAX_DEALS:,}")
    assert not out.exists()
    with pytest.raises(ConfigError, match="--games"):
        play(out, toy_game.load(), games=MAX_DEALS + 1)
    assert not out.exists()


def test_chunks_are_planned_lazily():
    chunks = iter_chunks(MAX_DEALS, 4, 1)  # a list would hold four billion chunks
    assert [next(chunks) for _ in range(5)] == [Chunk(0, 0, 1), Chunk(1, 0, 1), Chunk(2, 0, 1), Chunk(3, 0, 1),
                                                Chunk(0, 1, 2)]
    assert missing_deals(MAX_DEALS, 4, [Chunk(1, 0, 10)]) == 4 * MAX_DEALS - 10


@settings(max_examples=60, deadline=None)
@given(games=st.integers(1, 40), rotations=st.integers(1, 3), batch=st.integers(1, 12),
       finished=st.lists(st.tuples(st.integers(0, 2), st.integers(0, 45), st.integers(1, 15)), max_size=6))
def test_planned_chunks_cover_exactly_the_missing_deals(games, rotations, batch, finished):
    done = [Chunk(r, start, start + length) for r, start, length in finished]
    planned = plan_chunks(games, rotations, batch, done)
    covered = {(c.rotation, d) for c in done for d in range(c.start, c.stop)}
    wanted = [(r, d) for r in range(rotations) for d in range(games) if (r, d) not in covered]
    got = [(c.rotation, d) for c in planned for d in range(c.start, c.stop)]
    assert sorted(got) == sorted(wanted) and len(got) == len(set(got))
    assert all(c.deals <= batch for c in planned)
    assert [(c.start, c.rotation) for c in planned] == sorted((c.start, c.rotation) for c in planned)
    assert missing_deals(games, rotations, done) == len(wanted)


@pytest.mark.parametrize(("extra", "fragments"), [
    (["--seed", 2**64], ["--seed", "18446744073709551615"]),
    (["--seed", -1], ["--seed", "2^64"]),
    (["--scheduler", "tcp://127.0.0.1:1", "--backend", "loky"], ["--scheduler", "--backend dask"]),
])
def test_seeds_and_schedulers_outside_what_a_run_can_use_are_refused(tmp_path, extra, fragments):
    args = {"--seed": 1, **dict(zip(extra[::2], extra[1::2]))}
    flat = [x for pair in args.items() for x in pair]
    one_error_line(glade("play", "toy", "--games", 4, "--bots", "random", *flat, "--no-progress", "--out",
                         tmp_path / "run"), *fragments)
    assert not (tmp_path / "run").exists()


def test_a_sweep_directory_is_not_a_run_directory(tmp_path):
    (tmp_path / "sweep.json").write_text("{}")
    one_error_line(glade(*PLAY, "--out", tmp_path), str(tmp_path), "not a glade sweep directory")
    assert not (tmp_path / "manifest.json").exists()


def test_a_scheduler_that_is_not_an_address_is_one_error_line(tmp_path):
    one_error_line(glade(*PLAY, "--scheduler", "not-an-address", "--out", tmp_path / "run"),
                   "--scheduler", "not-an-address")


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    """A small run played through the CLI, to be copied and damaged."""
    out = tmp_path_factory.mktemp("pristine") / "run"
    assert glade(*PLAY, "--out", out).exit_code == 0
    return out


def run_files(out: Path) -> list[Path]:
    return sorted(p for p in out.rglob("*") if p.is_file() and p.name != ".lock")


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_single_byte_damage_resumes_to_identical_records_or_is_one_error_line(tmp_path_factory, pristine,
                                                                                   whole, data):
    out = tmp_path_factory.mktemp("damaged") / "run"
    shutil.copytree(pristine, out)
    files = run_files(out)
    path = data.draw(st.sampled_from(files), label="file")
    content = bytearray(path.read_bytes())
    position = data.draw(st.integers(0, len(content) - 1), label="byte")
    if data.draw(st.booleans(), label="truncate"):
        del content[position:]
    else:
        content[position] ^= data.draw(st.integers(1, 255), label="xor")
    path.write_bytes(bytes(content))
    result = glade(*PLAY, "--out", out)
    if result.exit_code == 0:
        assert "Traceback" not in result.output
        assert_frame_equal(load_records(out), load_records(whole))
        assert_frame_equal(load_events(out), load_events(whole))
    else:
        one_error_line(result)


def test_a_flipped_byte_in_a_chunk_is_caught_by_its_recorded_digest(tmp_path, pristine, whole):
    out = tmp_path / "run"
    shutil.copytree(pristine, out)
    path = out / "records" / "r1-000000020-000000030.parquet"
    content = bytearray(path.read_bytes())
    content[len(content) // 3] ^= 1  # a data page: the footer still reads
    path.write_bytes(bytes(content))
    result = glade(*PLAY, "--out", out)
    assert result.exit_code == 0 and "its bytes differ from the sha256" in result.stderr
    assert_frame_equal(load_records(out), load_records(whole))


HOLD_LOCK = """
import sys
from pathlib import Path
from sims.core.files import exclusive
with exclusive(Path(sys.argv[1]), "run directory"):
    print("held", flush=True)
    sys.stdin.read()  # until the test closes our stdin
"""


def test_a_second_writer_of_the_same_run_directory_is_one_error_line(tmp_path, whole):
    """Another process writing to --out (a glade play still running) holds its lock: this play refuses."""
    out = tmp_path / "run"
    out.mkdir()
    writer = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(out)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        assert writer.stdout.readline().strip() == "held"
        one_error_line(glade(*PLAY, "--out", out), str(out), "no other glade command is writing to")
        assert sorted(p.name for p in out.iterdir()) == [".lock"]  # nothing written beside the lock
    finally:
        writer.communicate("")
    assert writer.returncode == 0
    assert glade(*PLAY, "--out", out).exit_code == 0  # the lock went with its process
    assert_frame_equal(load_records(out), load_records(whole))
