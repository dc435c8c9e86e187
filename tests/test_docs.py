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
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "python -m pytest" in readme and "python -m pytest" in ci
    assert "pip install -e '.[test]'" in readme and "pip install --quiet -e '.[test]'" in ci


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
