"""tools/mutate.py's own decisions (docs/TESTING.md): which mutants it leaves out as
equivalent before they run, and which lines it keeps. A wrong span would either hide
real survivors from the score or count mutants no test can kill."""

from __future__ import annotations

import importlib.util
import sqlite3
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("mutate_tool", ROOT / "tools" / "mutate.py")
assert _spec is not None and _spec.loader is not None
mutate = importlib.util.module_from_spec(_spec)
sys.modules["mutate_tool"] = mutate
_spec.loader.exec_module(mutate)

SOURCE = '''from __future__ import annotations


def pick(seats: int | None, names: list[str] = []) -> dict[str, int | None]:
    limit: int | None = seats or 3
    return {"limit": limit}
'''


def test_annotations_are_found_where_they_are_and_nowhere_else(tmp_path: Path) -> None:
    module = tmp_path / "m.py"
    module.write_text(SOURCE)
    spans = mutate.annotation_spans(module)
    assert sorted(spans) == [
        ((4, 16), (4, 26)),  # int | None
        ((4, 35), (4, 44)),  # list[str]
        ((4, 54), (4, 75)),  # dict[str, int | None]
        ((5, 11), (5, 21)),  # int | None of the assignment
    ]
    assert mutate.in_annotation({"start_pos": [4, 20]}, spans)  # the | of int | None
    assert mutate.in_annotation({"start_pos": [4, 16]}, spans)  # its first character
    assert not mutate.in_annotation({"start_pos": [4, 26]}, spans)  # just past its end
    assert not mutate.in_annotation({"start_pos": [4, 47]}, spans)  # the default []
    assert not mutate.in_annotation({"start_pos": [5, 24]}, spans)  # seats or 3: code


def test_line_ranges() -> None:
    assert mutate.line_range("217-330") == (217, 330)
    assert mutate.line_range(None) == (0, 10**9)
    with pytest.raises(ValueError):
        mutate.line_range("x-3")


def in_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The scratch copy the mutants run in holds SOURCE; the checkout holds someone's
    unfinished edit of it (a line added on top: every annotation a line lower). The
    spans must be read from the copy (``--committed``: the copy is the last commit)."""
    monkeypatch.setattr(mutate, "ROOT", tmp_path)
    (tmp_path / "m.py").write_text("import os\n" + SOURCE)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "m.py").write_text(SOURCE)
    return tree


def write_session(session: Path, tree: Path, specs: list[tuple[str, int, int]]) -> None:
    """A cosmic-ray session's two tables, with only the columns the tool reads."""
    db = sqlite3.connect(session)
    db.execute("create table mutation_specs (job_id, module_path, start_pos_row, start_pos_col,"
               " operator_name, occurrence)")
    db.execute("create table work_items (job_id)")
    for job, row, col in specs:
        db.execute("insert into mutation_specs values (?, ?, ?, ?, 'core/NumberReplacer', 0)",
                   (job, str(tree / "m.py"), row, col))
        db.execute("insert into work_items values (?)", (job,))
    db.commit()
    db.close()


def jobs_left(session: Path) -> tuple[list[str], list[str]]:
    db = sqlite3.connect(session)
    try:
        return (sorted(j for (j,) in db.execute("select job_id from work_items")),
                sorted(j for (j,) in db.execute("select job_id from mutation_specs")))
    finally:
        db.close()


def test_a_sample_keeps_exactly_n_of_the_mutants_left_the_same_for_a_seed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sample is taken after the annotations and lines are left out, never from them;
    the same seed keeps the same mutants whatever order cosmic-ray stored them in."""
    tree = in_copy(tmp_path, monkeypatch)
    code = [(f"j{k}", 5, 22 + k) for k in range(12)]  # line 5 from column 22: code
    runs = []
    for order in (code, code[::-1], code, code):
        session = tmp_path / f"s{len(runs)}.sqlite"
        write_session(session, tree, [("ann", 4, 20), *order])
        seed = 1 if len(runs) == 3 else 0
        assert mutate.drop_mutants(session, tree, ["m.py"], (0, 10**9), 5, seed) == 1 + 7
        left, specs = jobs_left(session)
        assert left == specs and len(left) == 5 and "ann" not in left
        runs.append(left)
    assert runs[0] == runs[1] == runs[2] != runs[3]
    session = tmp_path / "all.sqlite"
    write_session(session, tree, code)
    assert mutate.drop_mutants(session, tree, ["m.py"], (0, 10**9), 12) == 0  # a sample of all
    assert jobs_left(session)[0] == sorted(j for j, _, _ in code)


def test_mutants_in_annotations_or_outside_the_lines_are_dropped_before_they_run(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = in_copy(tmp_path, monkeypatch)
    session = tmp_path / "session.sqlite"
    db = sqlite3.connect(session)
    specs = [("a", 4, 20), ("b", 5, 24), ("c", 4, 47), ("d", 6, 12), ("e", 5, 15)]
    write_session(session, tree, specs)
    assert mutate.drop_mutants(session, tree, ["m.py"], (4, 5)) == 3  # a, e: annotations; d: line 6
    db = sqlite3.connect(session)
    assert sorted(j for (j,) in db.execute("select job_id from work_items")) == ["b", "c"]
    assert sorted(j for (j,) in db.execute("select job_id from mutation_specs")) == ["b", "c"]
    db.close()


def test_committed_copies_the_last_commit_not_the_working_tree(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--committed``: another developer's half-made edit in the shared checkout (or an
    untracked file) is not in the copy the mutants run in; without it, it is."""
    import subprocess
    repo = tmp_path / "repo"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], check=True)
    (repo / "m.py").write_text("x = 1\n")
    subprocess.run([*git, "add", "m.py"], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    (repo / "m.py").write_text("x = (\n")  # someone's edit, half made
    (repo / "new.py").write_text("y = 2\n")
    monkeypatch.setattr(mutate, "ROOT", repo)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    mutate.copy_tree(tmp_path / "a", committed=True)
    mutate.copy_tree(tmp_path / "b")
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["m.py"]
    assert (tmp_path / "a" / "m.py").read_text() == "x = 1\n"
    assert (tmp_path / "b" / "m.py").read_text() == "x = (\n"
    assert (tmp_path / "b" / "new.py").read_text() == "y = 2\n"


def test_a_line_marked_no_mutate_is_never_mutated(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """server/net/addresses.py's ioctl number made one less is SIOCSIFFLAGS: run as root
    it took the machine's interfaces down. Its line is marked, and left out."""
    tree = in_copy(tmp_path, monkeypatch)
    (tree / "m.py").write_text("X = 0x8915  # pragma: no mutate\\nY = 2\\n")
    session = tmp_path / "session.sqlite"
    write_session(session, tree, [("x", 1, 4), ("y", 2, 4)])
    assert mutate.drop_mutants(session, tree, ["m.py"], (0, 10**9)) == 1
    assert jobs_left(session) == (["y"], ["y"])
    root = Path(__file__).resolve().parents[1]
    assert mutate.pragma_lines(root / "server" / "net" / "addresses.py") == {
        n for n, line in enumerate((root / "server" / "net" / "addresses.py").read_text().splitlines(), 1)
        if "= 0x8915" in line}


def test_a_mutant_killed_by_the_timeout_is_counted_and_listed_apart(tmp_path: Path) -> None:
    import json

    module = str(tmp_path / "m.py")

    def line(row: int, outcome: str | None, output: str = "") -> str:
        item = {"mutations": [{"module_path": module, "start_pos": [row, 4], "operator_name": "op"}]}
        result = None if outcome is None else {"test_outcome": outcome, "output": output, "diff": f"-{row}"}
        return json.dumps([item, result])

    dump = "\n".join([line(3, "killed"), line(4, "killed", "timeout"), line(5, "survived"),
                      line(6, None), line(7, "killed", "timeout"), line(1, "survived")])
    spans = {module: [((1, 0), (1, 40))]}
    outcome = mutate.tally(dump, tmp_path, spans)
    assert (outcome.killed, outcome.by_timeout, outcome.survived, outcome.equivalent) == (3, 2, 1, 1)
    assert outcome.timed_out == ["TIMEOUT m.py:4 op", "TIMEOUT m.py:7 op"]
    assert outcome.survivors == ["SURVIVED m.py:5 op\n-5"]
    assert outcome.summary() == ("killed: 3 (2 of them by the timeout: run those again on a quiet "
                                 "machine), survived: 1, score: 75.0%")
