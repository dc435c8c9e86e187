"""mypy passes over every package (the project brief).

mypy cannot see the packages through the editable install (setuptools'
package-dir maps ``nimmt.engine`` to the folder ``engine/`` and so on), so the
test lays out the tree mypy expects in tmp_path, ``nimmt/`` with a link per
package-dir entry, and checks ``-p nimmt`` there with pyproject's ``[tool.mypy]``.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def package_tree(root: Path, into: Path) -> Path:
    """``into`` with one link per pyproject package-dir entry (``nimmt.engine`` ->
    ``into/nimmt/engine`` -> ``root/engine``) and an empty ``__init__.py`` in each
    parent package that has no folder of its own; returns ``into``."""
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    dirs: dict[str, str] = project["tool"]["setuptools"]["package-dir"]
    for name, folder in dirs.items():
        *parents, last = name.split(".")
        parent = into.joinpath(*parents)
        parent.mkdir(parents=True, exist_ok=True)
        for depth in range(1, len(parents) + 1):
            init = into.joinpath(*parents[:depth], "__init__.py")
            if not init.exists():
                init.touch()
        (parent / last).symlink_to(root / folder, target_is_directory=True)
    return into


def test_package_tree_links_every_package_dir(tmp_path: Path) -> None:
    tree = package_tree(ROOT, tmp_path)
    assert sorted(p.name for p in (tree / "nimmt").iterdir()) == [
        "__init__.py", "bots", "client", "engine", "protocol", "server"]
    assert (tree / "nimmt" / "__init__.py").read_text() == ""
    assert (tree / "nimmt" / "server").resolve() == ROOT / "server"
    assert (tree / "nimmt" / "server" / "game" / "match.py").is_file()


# A cold check of ~150 modules takes about 10 s alone and a minute or more on two
# cores shared with the rest of the suite: more than the suite's 60 s per test.
@pytest.mark.timeout(180)
def test_mypy_passes_over_every_package(tmp_path: Path) -> None:
    tree = package_tree(ROOT, tmp_path / "tree")
    try:
        run = subprocess.run(
            [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"),
             "--cache-dir", str(tmp_path / "cache"), "--no-color-output", "--no-error-summary",
             "-p", "nimmt"],
            cwd=tree, capture_output=True, text=True, timeout=170)
    except subprocess.TimeoutExpired as e:
        said = [o.decode() if isinstance(o, bytes) else o or "" for o in (e.stdout, e.stderr)]
        pytest.fail(f"mypy ran over 170 s:\n{''.join(said)}")
    assert run.returncode == 0, f"mypy -p nimmt:\n{run.stdout}{run.stderr}"
    assert run.stdout == ""
