"""The documents a newcomer reads say what the code does."""

from __future__ import annotations

import doctest
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SHARED_RULES = ROOT.parent / "shared" / "RULES.md"


def test_rules_copy_is_the_project_rules_spec() -> None:
    # docs/RULES.md is a verbatim copy of the project's rules spec, kept beside the
    # code for people who only have the repository. Where the spec is present
    # (always, in CI), the copy must not have drifted from it.
    copy = (ROOT / "docs" / "RULES.md").read_text(encoding="utf-8")
    assert "## Variants" in copy and "66 or more" in copy
    if SHARED_RULES.exists():
        assert copy == SHARED_RULES.read_text(encoding="utf-8")


def test_readme_python_example_runs() -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    test = doctest.DocTestParser().get_doctest(block, {}, "README.md", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert test.examples, "the README's example has no doctest lines"


def test_readme_test_command_is_what_ci_runs() -> None:
    # The README gives one line that installs with the test extras and runs pytest;
    # .ci/run runs that very line (quietly) in a fresh virtual environment.
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    readme_lines = [line.strip() for line in readme.splitlines()
                    if line.startswith("    ") and "pytest" in line]
    ci_lines = [line.strip().replace(" --quiet", "") for line in ci.splitlines()
                if "pytest" in line and not line.startswith("#")]
    assert readme_lines == ["python3 -m pip install -e '.[test]' && python -m pytest"]
    assert ci_lines == readme_lines


def test_every_package_folder_is_installed() -> None:
    # A subpackage missing from pyproject's list works in an editable install and
    # breaks `pip install .`: every folder with an __init__.py must be listed.
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    setup = project["tool"]["setuptools"]
    listed = set(setup["packages"])
    folders = {folder: name for name, folder in setup["package-dir"].items()}
    found = set()
    for folder, name in folders.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            parts = init.parent.relative_to(ROOT / folder).parts
            found.add(".".join((name, *parts)))
    assert found == listed
