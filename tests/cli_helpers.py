"""Helpers for tests that drive the command line through click's CliRunner."""

from __future__ import annotations

from click.testing import CliRunner, Result

from analysis.cli import main


def glade(*args) -> Result:
    """Run ``glade ARGS...`` in-process."""
    return CliRunner().invoke(main, [str(a) for a in args])


def one_error_line(result: Result, *fragments: str) -> str:
    """The single ``error:`` line of a failed command (exit 2, no traceback), holding every fragment."""
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]
