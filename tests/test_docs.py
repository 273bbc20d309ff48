"""The repo's own docs hold: paths they name exist, nothing points outside the repo, and every
registered game has its rules page whose code table names functions that exist."""

from __future__ import annotations

import functools
import itertools
import importlib
import re
import subprocess
from pathlib import Path

import pytest

from sims.registry import game_names

ROOT = Path(__file__).resolve().parent.parent
THIS = Path(__file__).resolve().relative_to(ROOT).as_posix()

# Where a path may point that is not in a checkout: what glade and make write.
OUTPUT_DIRS = {"runs", "reports", ".venv"}
# Text like "Expand/Bloom" is a path only if it starts at a top directory of the repo or ends like a file.
FILE_ENDINGS = (".md", ".py", ".toml", ".txt", ".json", ".html", ".pdf", ".css", ".parquet", ".png")
# A path: two or more slash-joined parts; placeholders (<game>, *, {name}) are not paths.
PATH = re.compile(r"(?<![\w./:-])((?:[\w.-]+/)+[\w.-]*)(?![\w<>*{}/-])")
HEADING = re.compile(r"^(##|###) (\d+)(?:\.(\d+))?\.? (.+)$", re.MULTILINE)
CODE_SECTION = "Where the code implements it"
CHOICES_SECTION = "Optional choices"
# The design notes the project was started from (PERF.md, ...) are not part of a checkout.
OUTSIDE = ("shared/", "/work/", "RULINGS.md", "rulebooks/", "PERF.md", "STATS.md", "STYLE.md")


@functools.cache
def tracked_files() -> tuple[str, ...]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return tuple(line for line in out.splitlines() if line)


def doc_files() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]


def toml_comments(path: Path) -> str:
    return "\n".join(line.split("#", 1)[1] for line in path.read_text().splitlines() if "#" in line)


def named_paths(text: str) -> set[str]:
    """Relative paths a text names: from a top directory of the repo or ending like a file; no URLs,
    no placeholders (``<game>``, ``*``, an upper-case part such as ``NAME``), no output directories."""
    text = re.sub(r"\w+://\S+", "", text)
    top = {f.split("/", 1)[0] for f in tracked_files() if "/" in f} - OUTPUT_DIRS
    paths = set()
    for match in PATH.findall(text):
        path = match.rstrip(".")
        parts = [p for p in path.split("/") if p]
        if path.startswith(".") or parts[0] in OUTPUT_DIRS or any(p.split(".")[0].isupper() for p in parts):
            continue
        if parts[0] in top or path.endswith(FILE_ENDINGS):
            paths.add(path)
    return paths


def missing_paths(text: str, here: Path = ROOT) -> list[str]:
    """Named paths that exist neither from the repo's root nor from ``here`` (the naming file's folder)."""
    return sorted(path for path in named_paths(text) if not ((ROOT / path).exists() or (here / path).exists()))


def test_named_paths_finds_paths_and_skips_placeholders() -> None:
    text = ("see `docs/design.md`, sims/<game>/config.py, configs/games/GAME.toml, reports/*/x.png, "
            "https://a.b/c/d.md, runs/demo, Expand/Bloom and sims/core/.")
    assert named_paths(text) == {"docs/design.md", "sims/core/"}
    assert missing_paths("`docs/nowhere.md`, doc/design.md and sims/core/") == ["doc/design.md", "docs/nowhere.md"]
    assert missing_paths("rules/vora.md") == ["rules/vora.md"]
    assert missing_paths("rules/vora.md", ROOT / "docs") == []


@pytest.mark.parametrize("path", doc_files(), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_paths_named_in_docs_exist(path: Path) -> None:
    assert missing_paths(path.read_text(), path.parent) == []


@pytest.mark.parametrize("path", sorted((ROOT / "configs").rglob("*.toml")), ids=lambda p: p.name)
def test_paths_named_in_config_comments_exist(path: Path) -> None:
    assert missing_paths(toml_comments(path)) == []


def test_nothing_points_outside_the_repo() -> None:
    found = []
    for name in tracked_files():
        if name == THIS:
            continue
        try:
            text = (ROOT / name).read_text()
        except (UnicodeDecodeError, FileNotFoundError):
            continue
        found += [f"{name}: {word}" for word in OUTSIDE if word in text]
    assert found == []


def test_docs_index_lists_every_doc_page() -> None:
    index = (ROOT / "docs" / "README.md").read_text()
    pages = [p.relative_to(ROOT / "docs").as_posix() for p in sorted((ROOT / "docs").rglob("*.md"))]
    assert [p for p in pages if p != "README.md" and p not in index] == []
    assert "docs/README.md" in (ROOT / "README.md").read_text()


# --- the rules pages ------------------------------------------------------------------------------

def games() -> list[str]:
    """Every game of the repo (toy games registered by other tests have no package here)."""
    return [name for name in game_names() if (ROOT / "sims" / name / "__init__.py").exists()]


def sections(text: str) -> list[tuple[str, str]]:
    """``(number, title)`` of every numbered heading, ``"3"`` or ``"3.2"``, in order."""
    return [(f"{major}.{minor}" if minor else major, title.strip()) for _, major, minor, title in HEADING.findall(text)]


def rule_sections(text: str) -> list[str]:
    """Numbered sections holding rules: the leaves, before the choices and code sections."""
    numbered = sections(text)
    tail = [n for n, title in numbered if title.startswith((CHOICES_SECTION, CODE_SECTION))]
    majors_with_children = {n.split(".")[0] for n, _ in numbered if "." in n}
    return [n for n, _ in numbered if n.split(".")[0] not in tail and n not in majors_with_children]


def code_table(text: str) -> tuple[list[str], list[list[str]]]:
    """Header cells and rows of the first table after the code section's heading."""
    lines = text.split(CODE_SECTION, 1)[1].splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("|"))
    table = itertools.takewhile(lambda line: line.startswith("|"), lines[start:])
    cells = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table]
    return cells[0], cells[2:]


def test_sections_parse_numbers_and_leaves() -> None:
    text = ("## 1. Setup\n### 1.1 Board\n### 1.2 Flowers\n## 2. End\n"
            "## 3. Optional choices\n## 4. Where the code implements it\n")
    assert sections(text)[:2] == [("1", "Setup"), ("1.1", "Board")]
    assert rule_sections(text) == ["1.1", "1.2", "2"]


@pytest.mark.parametrize("game", games())
def test_every_game_has_a_numbered_rules_page(game: str) -> None:
    path = ROOT / "docs" / "rules" / f"{game}.md"
    assert path.exists(), f"{path.relative_to(ROOT)} missing"
    text = path.read_text()
    numbered = sections(text)
    majors = [int(n) for n, _ in numbered if "." not in n]
    assert majors == list(range(1, len(majors) + 1)), "top sections numbered 1, 2, 3, ..."
    for major in majors:
        minors = [int(n.split(".")[1]) for n, _ in numbered if n.startswith(f"{major}.")]
        assert minors == list(range(1, len(minors) + 1)), f"subsections of {major} numbered 1, 2, ..."
    titles = [title for _, title in numbered]
    assert any(t.startswith(CHOICES_SECTION) for t in titles)
    assert titles[-1] == CODE_SECTION
    assert "**Ruling:**" in text


@pytest.mark.parametrize("game", games())
def test_code_table_covers_every_rule_section(game: str) -> None:
    text = (ROOT / "docs" / "rules" / f"{game}.md").read_text()
    _, rows = code_table(text)
    assert [row[0] for row in rows] == rule_sections(text)


def resolve(module: str, dotted: str) -> bool:
    obj = importlib.import_module(module)
    for part in dotted.split("."):
        if not hasattr(obj, part):
            return False
        obj = getattr(obj, part)
    return True


def test_code_table_and_resolve_read_a_known_table() -> None:
    text = ("## 2. Where the code implements it\n\n| § | rule | `reference.py` | note |\n|---|---|---|---|\n"
            "| 1.1 | push | `VoraGame.push_keeps_a_cube`, `push_line` | |\n\nafter | the table |\n")
    header, rows = code_table(text)
    assert header[2] == "`reference.py`" and rows == [["1.1", "push", "`VoraGame.push_keeps_a_cube`, `push_line`", ""]]
    assert resolve("sims.vora.reference", "VoraGame.push_keeps_a_cube")
    assert not resolve("sims.vora.reference", "VoraGame.last_cube_pushes")


@pytest.mark.parametrize("game", games())
def test_functions_in_code_table_exist(game: str) -> None:
    header, rows = code_table((ROOT / "docs" / "rules" / f"{game}.md").read_text())
    modules = {i: cell.strip("`")[:-3] for i, cell in enumerate(header) if cell.strip("`").endswith(".py")}
    assert set(modules.values()) >= {"reference", "rules"}
    named, missing = 0, []
    for row in rows:
        for column, module in modules.items():
            for name in re.findall(r"`([A-Za-z_][\w.]*)`", row[column]):
                named += 1
                if not resolve(f"sims.{game}.{module}", name):
                    missing.append(f"§{row[0]}: sims/{game}/{module}.py has no {name}")
    assert named >= len(rows)
    assert missing == []


PLACEHOLDER = re.compile(r"\bX{2,}\b|\bYYYY-MM-DD\b|\bTODO\b|\bTBD\b")


def test_no_doc_keeps_a_placeholder_for_a_figure() -> None:
    """A measured figure is written in, never left as XX, YYYY-MM-DD, TODO or TBD."""
    found = [f"{path.relative_to(ROOT)}:{number}: {line.strip()[:80]}" for path in doc_files()
             for number, line in enumerate(path.read_text().splitlines(), 1) if PLACEHOLDER.search(line)]
    assert found == []
