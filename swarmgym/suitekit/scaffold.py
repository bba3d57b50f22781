"""``swarmgym suite new``: scaffold a spec that already passes the kit's rules, ready to be edited.

The scaffold is a small but complete example in the format bench-v3 uses, so that the first
``suite coverage`` and ``suite verify`` a user runs are green and every later red line is one they
caused: ``specs/<id>.yaml`` (prompts, requirements with their inputs' edge classes, checks), the
reference app with its own tests and README, patch mutants (a liar, a stub, a crash and an edge
mutant per edge class), and ``gen/gen_<slug>.py``, which writes the golden table from the reference
with :mod:`swarmgym.suitekit.tablegen` — the generator is run once here, so the table exists.
A new suite folder gets a ``suite.yaml``; an existing one gets the spec appended to its list.
A frozen suite (one with a ``suite.lock``) is never changed: make a new suite instead.
"""
from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

from swarmgym.core.errors import SuiteError, UsageError
from swarmgym.core.yamlfile import read_yaml

_ID = re.compile(r"^[a-z][a-z0-9_]{0,30}$")

SPEC = """\
# Spec {spec_id}: the prompts a swarm sees, every normative sentence as a requirement, and the checks
# that trace them. Edit the prompts first, then the requirements, then gen/gen_{slug}.py.
id: {spec_id}
app_slug: {slug}
language: python
archetype: {spec_id}
prompt: |-
  Build `{slug}` as a Python 3 package using only the standard library.

  Layout: a package directory `{slug}/` in the current directory (with `__init__.py` and `__main__.py`) so
  that it runs as `python3 -m {slug}` from this directory; pytest tests in `tests/test_*.py`.

  Command line (argparse):
    python3 -m {slug} greet NAME
        print `Hello, NAME!`; leading and trailing whitespace (spaces, tabs, newlines) of NAME is removed
        first, and any other character, unicode included, is printed as given.

  Errors (an empty or blank NAME): print one line starting with `error:` to stderr and exit with status 1.
  Never show a Python traceback. Write pytest tests in tests/; `python3 -m pytest -q` must pass.
hard_prompt: |-
  Build `{slug}` as a Python 3 package using only the standard library.

  Layout: a package directory `{slug}/` in the current directory (with `__init__.py` and `__main__.py`) so
  that it runs as `python3 -m {slug}` from this directory; pytest tests in `tests/test_*.py`.

  Command line (argparse):
    python3 -m {slug} greet NAME
        print `Hello, NAME!`; leading and trailing whitespace (spaces, tabs, newlines) of NAME is removed
        first, and any other character, unicode included, is printed as given.

  Errors (an empty or blank NAME): print one line starting with `error:` to stderr and exit with status 1.
  Never show a Python traceback. Write pytest tests in tests/; `python3 -m pytest -q` must pass.
requirements:
  - {{id: {up}-LAYOUT, text: "a package {slug}/ with __init__.py and __main__.py, run as python3 -m {slug}", inputs: {{}}}}
  - {{id: {up}-GREET, text: "greet NAME prints Hello, NAME! with NAME's outer whitespace removed, unicode as given",
     inputs: {{NAME: [whitespace, unicode]}}}}
  - {{id: {up}-BLANK, text: "an empty or blank NAME is an error: one line starting with error: on stderr, exit 1",
     inputs: {{NAME: [empty, whitespace]}}}}
  - {{id: {up}-TESTS, text: "python3 -m pytest -q passes", inputs: {{}}}}
checks:
  - name: layout
    kind: command_succeeds
    covers: [{up}-LAYOUT]
    description: the package runs as python3 -m {slug}
    run: test -f {slug}/__init__.py && test -f {slug}/__main__.py && python3 -m {slug} greet x >/dev/null
  - name: tests_pass
    kind: command_succeeds
    covers: [{up}-TESTS]
    description: the app's own tests pass
    run: python3 -m pytest -q
  - name: golden_table
    kind: differential
    covers: [{up}-GREET, {up}-BLANK]
    description: frozen greetings and errors against golden outputs
    module: {slug}
    table: tables/{slug}.json
"""

INIT = '"""{slug}: greets by name."""\n'

MAIN = '''"""python3 -m {slug} greet NAME"""
import argparse
import sys


def greeting(name: str) -> str:
    stripped = name.strip()
    if not stripped:
        raise ValueError("NAME is empty")
    return f"Hello, {{stripped}}!"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="{slug}")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("greet").add_argument("name")
    args = parser.parse_args(argv)
    try:
        print(greeting(args.name))
    except ValueError as e:
        print(f"error: {{e}}", file=sys.stderr)
        return 1
    return 0


sys.exit(main())
'''

TESTS = '''import subprocess
import sys


def run(*argv):
    return subprocess.run([sys.executable, "-m", "{slug}", *argv], capture_output=True, text=True)


def test_greets_by_name():
    assert run("greet", "Ada").stdout == "Hello, Ada!\\n"


def test_blank_name_is_an_error():
    res = run("greet", "  ")
    assert res.returncode == 1 and res.stderr.startswith("error:")
'''

README = "# {slug}\n\n`python3 -m {slug} greet NAME` prints `Hello, NAME!`.\n"

MUTANTS = """\
# Patch mutants of {slug}: each written from the requirement it breaks (see suites/README.md).
mutants:
  - name: wrong-punctuation
    breaks: [{up}-GREET]
    failure: liar
    description: prints Hello NAME. instead of Hello, NAME! (and its own test only checks the exit status)
    patch:
      - {{file: {slug}/__main__.py, old: 'return f"Hello, {{stripped}}!"', new: 'return f"Hello {{stripped}}."'}}
      - {{file: tests/test_{slug}.py, old: 'assert run("greet", "Ada").stdout == "Hello, Ada!\\n"',
         new: 'assert run("greet", "Ada").returncode == 0'}}
  - name: greet-stub
    breaks: [{up}-GREET]
    failure: stub
    description: the greeting is left as a stub
    patch:
      - {{file: {slug}/__main__.py, old: "    stripped = name.strip()\\n", new: "    raise NotImplementedError\\n"}}
  - name: blank-crash
    breaks: [{up}-BLANK]
    failure: crash
    description: a blank name raises out of main (a traceback)
    patch:
      - {{file: {slug}/__main__.py, old: "    except ValueError as e:", new: "    except KeyError as e:"}}
  - name: no-main
    breaks: [{up}-LAYOUT]
    failure: liar
    description: no __main__.py; the app runs as python3 -m {slug}.cli, and so do its tests
    rename: {{{slug}/__main__.py: {slug}/cli.py}}
    patch:
      - {{file: tests/test_{slug}.py, old: '"-m", "{slug}"', new: '"-m", "{slug}.cli"'}}
  - name: failing-test
    breaks: [{up}-TESTS]
    failure: liar
    description: a test that expects the wrong greeting
    patch:
      - {{file: tests/test_{slug}_more.py, new: "from test_{slug} import run\\n\\n\\ndef test_polite():\\n    assert run('greet', 'Ada').stdout == 'Hello, dear Ada!\\\\n'\\n"}}
  - name: keeps-tabs
    breaks: [{up}-GREET]
    failure: liar
    edge: whitespace
    description: strips spaces only, so a tab around NAME is printed
    patch:
      - {{file: {slug}/__main__.py, old: "    stripped = name.strip()\\n", new: "    stripped = name.strip(' ')\\n"}}
  - name: ascii-only
    breaks: [{up}-GREET]
    failure: liar
    edge: unicode
    description: drops non-ASCII characters from NAME
    patch:
      - {{file: {slug}/__main__.py, old: "    stripped = name.strip()\\n",
         new: "    stripped = name.strip().encode('ascii', 'ignore').decode()\\n"}}
  - name: empty-greets
    breaks: [{up}-BLANK]
    failure: liar
    edge: empty
    description: an empty NAME prints "Hello, !" (only blank ones are refused)
    patch:
      - {{file: {slug}/__main__.py, old: "    if not stripped:\\n", new: "    if not stripped and name:\\n"}}
"""

GEN = '''"""Golden table of {slug}: python3 suites/{suite}/gen/gen_{slug}.py (from the repository root).

Each row names the requirements it answers for and the edge classes it samples; ``expect`` is the
review: the reference must agree with this model of the prompt, or no table is written.
"""
from pathlib import Path

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
UP = "{up}"


def hello(name):
    return lambda out: out == f"Hello, {{name}}!\\n"


ROWS = [
    row("common", [f"{{UP}}-GREET"], [], step(["greet", "Ada"], expect=hello("Ada"))),
    row("tabs", [f"{{UP}}-GREET"], ["whitespace"], step(["greet", "\\tAda \\n"], expect=hello("Ada"))),
    row("unicode", [f"{{UP}}-GREET"], ["unicode"], step(["greet", "Zoë 李"], expect=hello("Zoë 李"))),
    row("empty", [f"{{UP}}-BLANK"], ["empty"], step(["greet", ""], expect_exit=1)),
    row("blank", [f"{{UP}}-BLANK"], ["whitespace"], step(["greet", " \\t "], expect_exit=1)),
]

if __name__ == "__main__":
    write(SUITE, "{slug}", answer(SUITE / "apps" / "{slug}" / "reference", "{slug}", ROWS), seed=2026)
'''


def new_spec(suites_dir: Path, suite_name: str, spec_id: str, slug: str | None = None) -> list[Path]:
    """Scaffold spec ``spec_id`` (app ``slug``, default the id) in suite ``suite_name``; returns what was written."""
    if not _ID.match(spec_id):
        raise UsageError(f"NAME: expected a lower-case identifier (letters, digits, _), got {spec_id!r}")
    slug = slug or spec_id
    if not _ID.match(slug):
        raise UsageError(f"--slug: expected a lower-case identifier usable as a Python package, got {slug!r}")
    root = Path(suites_dir) / suite_name
    index = root / "suite.yaml"
    if (root / "suite.lock").exists():
        raise SuiteError(f"{root / 'suite.lock'}: suite {suite_name} is frozen; scaffold into a new suite instead")
    data = read_yaml(index, SuiteError) if index.is_file() else {"name": suite_name, "description": "", "specs": []}
    specs = data.get("specs")
    if not isinstance(specs, list):
        raise SuiteError(f"{index}: specs: expected a list")
    rel = f"specs/{spec_id}.yaml"
    app = root / "apps" / slug
    for taken in (root / rel, app):
        if taken.exists():
            raise UsageError(f"NAME: {taken} already exists")
    fill = {"spec_id": spec_id, "slug": slug, "up": spec_id.upper(), "suite": suite_name}
    files = {root / rel: SPEC, app / "reference" / slug / "__init__.py": INIT,
             app / "reference" / slug / "__main__.py": MAIN, app / "reference" / "tests" / f"test_{slug}.py": TESTS,
             app / "reference" / "README.md": README, app / "mutants.yaml": MUTANTS,
             root / "gen" / f"gen_{slug}.py": GEN}
    for path, template in files.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(template.format(**fill))
    root.mkdir(parents=True, exist_ok=True)
    index.write_text(yaml.safe_dump({**data, "specs": [*specs, rel]}, sort_keys=False, allow_unicode=True))
    gen = subprocess.run([sys.executable, str(root / "gen" / f"gen_{slug}.py")], capture_output=True, text=True,
                         check=False)
    if gen.returncode != 0:
        raise SuiteError(f"{root / 'gen' / f'gen_{slug}.py'}: the generator failed: {gen.stderr.strip()[-300:]}")
    return [*files, index, root / "tables" / f"{slug}.json"]
