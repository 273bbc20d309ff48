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


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("whole")
    subprocess.run(play_command(out, 1), check=True, capture_output=True)
    return out


@pytest.mark.parametrize("jobs", [1, 2])
def test_sigkill_then_the_same_command_gives_identical_records(tmp_path, uninterrupted, jobs):
    out = tmp_path / "killed"
    process = subprocess.Popen(play_command(out, jobs), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                               start_new_session=True)
    deadline = time.monotonic() + 60
    while chunk_files(out) < 3 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.poll() is None, "the run finished before it could be killed; make it longer"
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    assert 0 < chunk_files(out) < 30

    subprocess.run(play_command(out, jobs), check=True, capture_output=True)
    assert_frame_equal(load_records(out), load_records(uninterrupted))
    assert_frame_equal(load_events(out), load_events(uninterrupted))
