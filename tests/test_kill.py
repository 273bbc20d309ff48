"""A run killed with SIGKILL at any moment and started again ends with the same records."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from polars.testing import assert_frame_equal

from sims.runner import load_events, load_records

GLADE = [str(Path(sys.executable).parent / "glade")]


def play_command(out: Path, jobs: int) -> list[str]:
    return GLADE + ["play", "overgrowth", "--games", "30000", "--seed", "13", "--bots", "random,random",
                    "--batch-size", "1000", "--jobs", str(jobs), "--no-progress", "--out", str(out)]


def chunk_files(out: Path) -> int:
    folder = out / "records"
    return len(list(folder.glob("*.parquet"))) if folder.is_dir() else 0


def started(command: list[str], out: Path, **popen) -> subprocess.Popen:
    """``command`` in a process group of its own, once it has written 3 chunk files into ``out``."""
    process = subprocess.Popen(command, start_new_session=True, **popen)
    deadline = time.monotonic() + 60
    while chunk_files(out) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run finished before it could be stopped; make it longer"
    return process


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole")
    subprocess.run(play_command(out, 1), check=True, capture_output=True)
    return out


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigkill_then_the_same_command_gives_identical_records(tmp_path, uninterrupted, jobs):
    out = tmp_path / "killed"
    process = started(play_command(out, jobs), out, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 0 < chunk_files(out) < 30

    subprocess.run(play_command(out, jobs), check=True, capture_output=True)
    assert_frame_equal(load_records(out), load_records(uninterrupted))
    assert_frame_equal(load_events(out), load_events(uninterrupted))


def test_ctrl_c_is_one_line_from_the_main_process_and_the_run_resumes_to_identical_records(tmp_path, uninterrupted):
    """Ctrl-C reaches the whole process group, workers included: only the main process answers, in one line."""
    out = tmp_path / "interrupted"
    process = started(play_command(out, 2), out, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    os.killpg(process.pid, signal.SIGINT)
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 130
    assert stderr.splitlines() == [f"interrupted: finished chunks are kept in {out}; run the same command again "
                                   "to resume"]
    subprocess.run(play_command(out, 2), check=True, capture_output=True)
    assert_frame_equal(load_records(out), load_records(uninterrupted))
    assert_frame_equal(load_events(out), load_events(uninterrupted))


SWEEP = """game = "overgrowth"
bots = ["random", "random"]
seed = 21
games_per_cell = 8000
[grid]
"rules.flowers" = [15, 20, 25]
"""


def sweep_command(sweep: Path, out: Path) -> list[str]:
    return GLADE + ["sweep", str(sweep), "--out", str(out), "--batch-size", "1000", "--no-progress"]


def test_a_sweep_killed_with_sigkill_resumes_to_identical_records(tmp_path):
    from analysis.sweep import load_sweep

    sweep = tmp_path / "sweep.toml"
    sweep.write_text(SWEEP)
    subprocess.run(sweep_command(sweep, tmp_path / "whole"), check=True, capture_output=True)
    out = tmp_path / "killed"
    process = subprocess.Popen(sweep_command(sweep, out), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while len(list(out.glob("cells/*/records/*.parquet"))) < 10 and process.poll() is None \
            and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the sweep finished before it could be killed; make it longer"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    subprocess.run(sweep_command(sweep, out), check=True, capture_output=True)
    for whole, resumed in zip(load_sweep(tmp_path / "whole").cells, load_sweep(out).cells):
        assert_frame_equal(resumed.records(), whole.records())
