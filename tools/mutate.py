"""Mutation testing of one module (or a few) against the tests that cover it.

    python tools/mutate.py server/ladder/claims.py -t tests/test_ladder_claims.py
    python tools/mutate.py engine/fair_deal.py -t tests/test_fair_deal.py -t tests/test_record.py
    python tools/mutate.py protocol/framing.py -t tests/test_protocol_frames.py --lines 217-330 --plain

The tool is cosmic-ray (``pip install -e '.[mutation]'``); docs/TESTING.md says why and
how to read the report. Cosmic-ray changes the module's file in place, one mutant at
a time, and runs the test command: so this script copies the working tree (with
your uncommitted changes) to a scratch folder and points ``nimmt`` at that copy
(``PYTHONPATH``: a ``nimmt`` folder of links, as pyproject's package-dir maps the
folders), never touching your checkout. It prints every surviving mutant as a diff
and the score; exit 0 whatever the score (it is a tool, not a gate).
"""

from __future__ import annotations

import argparse
import ast
import dataclasses
import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_tree(dest: Path, committed: bool = False) -> None:
    """The files git knows (tracked, and untracked but not ignored), as they are now;
    or, ``committed``, the tree of the last commit (others' unfinished edits left out)."""
    if committed:
        archive = subprocess.run(["git", "archive", "--format=tar", "HEAD"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
        return
    names = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True,
    ).stdout.decode().split("\0")
    for name in filter(None, names):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)


def link_packages(tree: Path, path_dir: Path) -> None:
    """``path_dir/nimmt/<sub>`` -> the copy's folders, as pyproject's package-dir says."""
    project = tomllib.loads((tree / "pyproject.toml").read_text(encoding="utf-8"))
    top = path_dir / "nimmt"
    top.mkdir(parents=True)
    (top / "__init__.py").write_text("")
    for name, folder in project["tool"]["setuptools"]["package-dir"].items():
        (top / name.split(".", 1)[1]).symlink_to(tree / folder, target_is_directory=True)


def annotation_spans(path: Path) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Where the module's annotations are: with ``from __future__ import annotations``
    they are never evaluated, so a mutant inside one is equivalent (it cannot fail)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    spans = []
    for node in ast.walk(tree):
        notes: list[ast.expr | None] = []
        if isinstance(node, ast.arg):
            notes.append(node.annotation)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            notes.append(node.returns)
        elif isinstance(node, ast.AnnAssign):
            notes.append(node.annotation)
        for note in notes:
            if note is not None and note.end_lineno is not None and note.end_col_offset is not None:
                spans.append(((note.lineno, note.col_offset), (note.end_lineno, note.end_col_offset)))
    return spans


def pragma_lines(path: Path) -> set[int]:
    """The lines marked ``# pragma: no mutate``: a mutant there could harm the machine
    (server/net/addresses.py's ioctl number, one off, sets every interface's flags)."""
    return {n for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if "# pragma: no mutate" in line}


def in_annotation(mutation: dict, spans: list[tuple[tuple[int, int], tuple[int, int]]]) -> bool:
    start = tuple(mutation["start_pos"])
    return any(begin <= start < end for begin, end in spans)


def line_range(text: str | None) -> tuple[int, int]:
    """``"A-B"`` -> (A, B); None -> every line.

    >>> line_range("217-330"), line_range(None)[0]
    ((217, 330), 0)
    """
    if text is None:
        return 0, 10**9
    first, _, last = text.partition("-")
    return int(first), int(last)


def drop_mutants(session: Path, tree: Path, modules: list[str], lines: tuple[int, int],
                 sample: int | None = None, seed: int = 0) -> int:
    """Take out of the session, before they run, the mutants inside annotations, on a
    line marked ``# pragma: no mutate`` and outside ``lines``, then all but a random
    ``sample`` of the rest (the same ones for the same seed and source): how many were
    taken out."""
    spans = {str(tree / m): annotation_spans(tree / m) for m in modules}
    unsafe = {str(tree / m): pragma_lines(tree / m) for m in modules}
    low, high = lines
    db = sqlite3.connect(session)
    try:
        specs = sorted(db.execute(
            "select job_id, module_path, start_pos_row, start_pos_col, operator_name, occurrence"
            " from mutation_specs"), key=lambda s: (s[1], s[2], s[3], s[4], s[5]))
        drop, keep = [], []
        for job, module, row, col, _operator, _occurrence in specs:
            out = (in_annotation({"start_pos": (row, col)}, spans.get(module, []))
                   or not low <= row <= high or row in unsafe.get(module, set()))
            (drop if out else keep).append(job)
        if sample is not None and sample < len(keep):
            chosen = set(random.Random(seed).sample(keep, sample))
            drop += [job for job in keep if job not in chosen]
        for job in drop:
            db.execute("delete from mutation_specs where job_id = ?", (job,))
            db.execute("delete from work_items where job_id = ?", (job,))
        db.commit()
    finally:
        db.close()
    return len(drop)


@dataclasses.dataclass
class Tally:
    """What a session's outcomes say: a mutant killed only by the timeout is counted
    apart, as on a loaded machine a slow test run can pass the timeout without any bug."""

    killed: int = 0
    survived: int = 0
    by_timeout: int = 0
    equivalent: int = 0
    survivors: list[str] = dataclasses.field(default_factory=list)
    timed_out: list[str] = dataclasses.field(default_factory=list)

    @property
    def total(self) -> int:
        return self.killed + self.survived

    def summary(self) -> str:
        """
        >>> Tally(killed=9, survived=1, by_timeout=2).summary()
        'killed: 9 (2 of them by the timeout: run those again on a quiet machine), survived: 1, score: 90.0%'
        >>> Tally().summary()
        'killed: 0, survived: 0, score: 0.0%'
        """
        score = 100.0 * self.killed / self.total if self.total else 0.0
        timeouts = (f" ({self.by_timeout} of them by the timeout: run those again on a quiet machine)"
                    if self.by_timeout else "")
        return f"killed: {self.killed}{timeouts}, survived: {self.survived}, score: {score:.1f}%"


def tally(dump: str, tree: Path, spans: dict[str, list[tuple[tuple[int, int], tuple[int, int]]]]) -> Tally:
    """Count the outcomes of ``cosmic-ray dump`` (one JSON pair a line): a mutant inside
    an annotation says nothing about the tests, killed or not."""
    outcome = Tally()
    for line in dump.splitlines():
        item, result = json.loads(line)
        if not result or result.get("test_outcome") is None:
            continue
        if all(in_annotation(m, spans.get(m["module_path"], [])) for m in item["mutations"]):
            outcome.equivalent += 1
            continue
        where = ", ".join(f"{Path(m['module_path']).relative_to(tree)}:{m['start_pos'][0]} {m['operator_name']}"
                          for m in item["mutations"])
        if result["test_outcome"] == "survived":
            outcome.survived += 1
            outcome.survivors.append(f"SURVIVED {where}\n{result.get('diff', '')}")
        else:
            outcome.killed += 1
            if result.get("output") == "timeout":
                outcome.by_timeout += 1
                outcome.timed_out.append(f"TIMEOUT {where}")
    return outcome


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description="Mutate a module in a scratch copy and run the tests that cover it.",
        epilog="Example: python tools/mutate.py server/ladder/claims.py -t tests/test_ladder_claims.py",
    )
    parser.add_argument("modules", nargs="+", help="module files to mutate, relative to the repository")
    parser.add_argument("-t", "--tests", action="append", required=True,
                        help="a test file or node id that covers them (repeat for more)")
    parser.add_argument("--timeout", type=float, default=120.0,
                        help="seconds a mutant's test run may take before it counts as killed (default 120)")
    parser.add_argument("--keep", type=Path, help="work in this folder and keep it (default: a temporary one)")
    parser.add_argument("--json", type=Path, help="also write every outcome as JSON lines to this file")
    parser.add_argument("--lines", metavar="A-B",
                        help="only the mutants that start on lines A to B of the module(s)")
    parser.add_argument("--sample", type=int, metavar="N",
                        help="run only N of the mutants, chosen at random (the same N for the same "
                             "--seed and source): an estimate of a big module's score in less time")
    parser.add_argument("--seed", type=int, default=0, help="the seed of --sample (default 0)")
    parser.add_argument("--committed", action="store_true",
                        help="mutate the last commit's tree, not the working tree (uncommitted "
                             "edits, yours and others', left out)")
    parser.add_argument("--plain", action="store_true",
                        help="run pytest without the trio and hypothesis plugins (faster on a "
                             "loaded machine; only for test files with no trio or hypothesis tests)")
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    for module in args.modules:
        if not (ROOT / module).is_file():
            print(f"mutate: {module} is not a file of this repository", file=sys.stderr)
            return 2
    work = args.keep or Path(tempfile.mkdtemp(prefix="nimmt-mutate-"))
    tree, path_dir = work / "tree", work / "path"
    if tree.exists():
        shutil.rmtree(tree)
    if path_dir.exists():
        shutil.rmtree(path_dir)
    tree.mkdir(parents=True)
    copy_tree(tree, args.committed)
    link_packages(tree, path_dir)
    env = dict(os.environ, PYTHONPATH=str(path_dir), PYTHONDONTWRITEBYTECODE="1")
    where = subprocess.run([sys.executable, "-c", "import nimmt.engine; print(nimmt.engine.__file__)"],
                           env=env, capture_output=True, text=True, check=True).stdout.strip()
    if not where.startswith(str(path_dir)):
        print(f"mutate: nimmt is imported from {where}, not the scratch copy", file=sys.stderr)
        return 1
    tests = " ".join(args.tests)
    plain = " -o addopts= -p no:trio -p no:hypothesispytest" if args.plain else ""
    config = work / "cosmic-ray.toml"
    modules = ", ".join(json.dumps(str(tree / m)) for m in args.modules)
    config.write_text(
        "[cosmic-ray]\n"
        f"module-path = [{modules}]\n"
        f"timeout = {args.timeout}\n"
        "excluded-modules = []\n"
        f'test-command = "{sys.executable} -m pytest -x -q -n 0 -p no:cacheprovider{plain} {tests}"\n'
        "[cosmic-ray.distributor]\nname = \"local\"\n",
        encoding="utf-8",
    )
    session = work / "session.sqlite"
    if session.exists():
        session.unlink()
    cosmic = [sys.executable, "-m", "cosmic_ray.cli"]
    subprocess.run([*cosmic, "init", str(config), str(session)], cwd=tree, env=env, check=True)
    dropped = drop_mutants(session, tree, args.modules, line_range(args.lines), args.sample, args.seed)
    print(f"mutate: {dropped} mutants left out (in annotations, outside --lines, or not in "
          f"--sample)", flush=True)
    baseline = subprocess.run([*cosmic, "baseline", str(config)], cwd=tree, env=env)
    if baseline.returncode != 0:
        print("mutate: the tests fail without any mutation; fix them first", file=sys.stderr)
        return 1
    subprocess.run([*cosmic, "exec", str(config), str(session)], cwd=tree, env=env, check=True)
    dump = subprocess.run([*cosmic, "dump", str(session)], cwd=tree, env=env,
                          capture_output=True, text=True, check=True).stdout
    if args.json:
        args.json.write_text(dump, encoding="utf-8")
    spans = {str(tree / m): annotation_spans(tree / m) for m in args.modules}
    outcome = tally(dump, tree, spans)
    for text in outcome.survivors:
        print(text)
    for text in outcome.timed_out:
        print(text)
    print(f"mutants: {outcome.total} (and {dropped + outcome.equivalent} left out: in annotations, "
          f"outside --lines or not in --sample), {outcome.summary()}")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
