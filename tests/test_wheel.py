"""The wheel, installed for real (not editable), has every package and every command.

An editable install finds a module in the source folders whether or not
pyproject lists its package, so a package missing from the list (or a command
pointing at a moved module) only shows once the wheel is installed. The test
builds the wheel from a copy of the sources, installs it without its
dependencies into a fresh virtual environment that borrows the test
interpreter's installed packages (trio, msgpack, ...) through a ``.pth`` file,
and runs every console script's ``--help`` there: no network is needed.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))

#: The server's rooms: sub-packages that an editable install would hide the loss of.
SERVER_ROOMS = ("game", "tables", "lobby", "ladder", "thinking", "sessions", "net", "records",
                "storage")
COMMANDS = ("nimmt-server", "nimmt-client", "nimmt-bot", "nimmt-replay", "nimmt-arena")


def _run(args: list[str], cwd: Path, timeout: float) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONNOUSERSITE"] = "1"
    return subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)


def _copy_sources(into: Path) -> Path:
    """What the build reads: pyproject, the readme and the package folders (a copy,
    so that the build's ``build/`` and ``*.egg-info`` stay out of the work tree)."""
    into.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, into / name)
    for folder in PROJECT["tool"]["setuptools"]["package-dir"].values():
        shutil.copytree(ROOT / folder, into / folder,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return into


def _borrowed_site_packages() -> list[str]:
    """The test interpreter's package folders. (``venv --system-site-packages`` would
    give the base interpreter's instead, without trio & co. when the tests run in a
    virtual environment, as in CI.) A path line in a ``.pth`` only extends sys.path:
    the editable install's own ``.pth`` there is not run, so ``nimmt`` is the wheel's."""
    return [p for p in site.getsitepackages() if Path(p).is_dir()]


def _install_wheel(tmp: Path) -> Path:
    """A virtual environment with the wheel installed; its ``bin`` folder."""
    src = _copy_sources(tmp / "src")
    dist = tmp / "dist"
    built = _run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
                  "--no-build-isolation", "--wheel-dir", str(dist), str(src)], tmp, 120)
    assert built.returncode == 0, built.stdout + built.stderr
    (wheel,) = dist.glob("nimmt-*.whl")
    venv = tmp / "venv"
    made = _run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, 60)
    assert made.returncode == 0, made.stdout + made.stderr
    python = venv / "bin" / "python"
    put = _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet",
                "--no-deps", "--no-index", str(wheel)], tmp, 120)
    assert put.returncode == 0, put.stdout + put.stderr
    # (after the install: pip would take the editable nimmt there for this version installed)
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                   tmp, 30).stdout.strip()
    Path(purelib, "borrowed.pth").write_text("\n".join(_borrowed_site_packages()) + "\n")
    return venv / "bin"


# One test, not one per command: the suite's xdist workers would each build a wheel.
# Building it, making the environment and starting five commands, each of which
# imports trio and prompt_toolkit, take ~20 s alone and a minute or more on two cores
# shared with the rest of the suite: more than the suite's 60 s per test.
@pytest.mark.timeout(240)
def test_the_installed_wheel_has_every_package_and_command(tmp_path: Path) -> None:
    bin_ = _install_wheel(tmp_path)
    venv = bin_.parent
    packages = PROJECT["tool"]["setuptools"]["packages"]
    assert {f"nimmt.server.{room}" for room in SERVER_ROOMS} <= set(packages)
    code = ("import importlib, sys\n"
            "for name in sys.argv[1:]:\n"
            "    print(name, importlib.import_module(name).__file__)\n")
    run = _run([str(bin_ / "python"), "-c", code, *packages], tmp_path, 60)
    assert run.returncode == 0, run.stdout + run.stderr
    where = dict(line.split(" ", 1) for line in run.stdout.splitlines())
    assert list(where) == packages
    outside = {name: f for name, f in where.items()
               if not Path(f).is_relative_to(venv) or not f.endswith("__init__.py")}
    assert outside == {}, "imported from outside the installed wheel"

    failed = {}
    for command in COMMANDS:
        run = _run([str(bin_ / command), "--help"], tmp_path, 60)
        if run.returncode != 0 or not run.stdout.startswith(f"usage: {command} ") or run.stderr:
            failed[command] = (run.returncode, run.stdout[:300], run.stderr[-2000:])
    assert failed == {}


def test_the_commands_tested_are_every_command() -> None:
    assert sorted(PROJECT["project"]["scripts"]) == sorted(COMMANDS)
