"""``probe``: structural checks — static ones parsed outside every box, run-time ones run in the grading's
real check box and decided outside; a probe that cannot run is an infrastructure error, never the app's."""
from __future__ import annotations

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.core.errors import CheckInfraError, SuiteError
from swarmgym.grading.grade import CHECKS, grade
from swarmgym.grading.probes import boxed
from swarmgym.models.failure import classify
from swarmgym.suitekit.suite import load_suite
from tests.support.grading import check_result, check_results
from tests.support.probeapp import make_app, probe, tally_checks


@pytest.fixture
def app(tmp_path):
    return make_app(tmp_path / "ws")


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path / "home", environ={})


def test_a_correct_app_passes_every_probe_type(app, cfg):
    got = {r.name: (r.passed, r.detail) for r in check_results(tally_checks(), app, cfg)}
    assert got == {
        "stdlib_only": (True, "5 file(s) of tally import only the standard library and tally"),
        "layout": (True, "3/3 paths exist"),
        "money_pure": (True, "1 module(s) checked: no io, json, os, pathlib, sqlite3 import, no open/exec/eval"),
        "money_api": (True, "6/6 calls as wanted"),
        "store_owns_sql": (True, "3 runs: every SQL statement came from tally/store.py"),
        "tests_pass": (True, "pytest: 3 test(s) passed"),
    }


def test_stdlib_only_names_each_foreign_import_with_its_file_and_line(app, cfg):
    (app / "tally" / "extra.py").write_text("import os\nfrom yaml import safe_load\nfrom . import money\n"
                                            "x = __import__('requests')\nimport importlib\nimportlib.import_module('numpy.linalg')\n")
    r = check_result(probe("s", type="stdlib_only", package="tally"), app, cfg)
    assert not r.passed
    assert r.detail == ("3 import(s) outside the standard library: tally/extra.py:2: import yaml; "
                        "tally/extra.py:2: import yaml.safe_load; tally/extra.py:4: import requests") \
        or "numpy.linalg" in r.detail
    assert "tally/extra.py:6: import numpy.linalg" in r.detail and "money" not in r.detail
    allowed = check_result(probe("s", type="stdlib_only", package="tally", allow=["yaml", "requests", "numpy"]), app, cfg)
    assert allowed.passed, allowed.detail


def test_stdlib_only_fails_without_the_package_or_on_a_file_that_does_not_parse(app, cfg):
    assert check_result(probe("s", type="stdlib_only", package="nope"), app, cfg).detail == \
        "no package folder nope (or no file in it)"
    (app / "tally" / "bad.py").write_text("def f(:\n")
    r = check_result(probe("s", type="stdlib_only", package="tally"), app, cfg)
    assert not r.passed and r.detail.startswith("tally/bad.py does not parse (SyntaxError")


def test_layout_names_what_is_missing_and_counts_no_link(app, cfg, tmp_path):
    outside = tmp_path / "elsewhere.py"
    outside.write_text("")
    (app / "tally" / "linked.py").symlink_to(outside)
    r = check_result(probe("l", type="layout", files=["tally/__init__.py", "tally/linked.py", "docs/*.md"]), app, cfg)
    assert not r.passed and r.detail == "missing: tally/linked.py, docs/*.md"


def test_pure_follows_the_packages_own_imports_and_names_the_chain(app, cfg):
    (app / "tally" / "rules.py").write_text("from .fmt import show\n")
    (app / "tally" / "fmt.py").write_text("import json\n\ndef show(x):\n    return json.dumps(x)\n")
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text() + "\nfrom tally import rules\n")
    check = probe("p", type="pure", module="tally/money.py", forbid=["json"], package="tally")
    r = check_result(check, app, cfg)
    assert not r.passed and r.detail == "tally/money.py -> tally/rules.py -> tally/fmt.py imports json (line 1)"
    alone = check_result(probe("p", type="pure", module="tally/money.py", forbid=["json"]), app, cfg)
    assert alone.passed, alone.detail  # without package: the module's own imports only


@pytest.mark.parametrize("line, why", [
    ("import os.path", "imports os.path (line 1)"),
    ("from sqlite3 import connect", "imports sqlite3 (line 1)"),
    ("db = __import__('sqlite3')", "imports sqlite3 (line 1); calls __import__() (line 1)"),
    ("import importlib", "imports importlib (line 1)"),
    ("data = open('x').read()", "calls open() (line 1)"),
    ("exec('import os')", "calls exec() (line 1)"),
])
def test_pure_fails_on_an_io_import_however_written(app, cfg, line, why):
    (app / "tally" / "money.py").write_text(line + "\n" + (app / "tally" / "money.py").read_text())
    r = check_result(probe("p", type="pure", module="tally/money.py", forbid=["sqlite3", "os"]), app, cfg)
    assert not r.passed and r.detail == f"tally/money.py {why}"


def test_api_compares_typed_values_outside_and_names_each_differing_call(app, cfg):
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text() + '''
def as_float(text):
    return parse_cents(text) / 1


def flag():
    return 1


def names():
    return ("b", "a")
''')
    calls = [
        {"call": "tally.money:as_float", "args": ["12"], "want": 1200},          # 1200.0 is not 1200
        {"call": "tally.money:flag", "want": True},                              # 1 is not True
        {"call": "tally.money:names", "want": ["b", "a"]},                       # a tuple matches a list
        {"call": "tally.money:names", "want": ["a", "b"]},                       # … in order
        {"call": "tally.money:names", "want": ["a", "b"], "unordered": True},    # or as a multiset
        {"call": "tally.money:parse_cents", "args": ["1e3"], "raises": "ValueError"},
        {"call": "tally.money:parse_cents", "args": ["12"], "raises": "ValueError"},
        {"call": "tally.money:parse_cents", "args": ["x"], "want": 0},
        {"call": "tally.nosuch:f", "want": 0},
    ]
    r = check_result(probe("a", type="api", calls=calls), app, cfg)
    assert not r.passed
    assert r.detail.startswith("6/9 calls differ: as_float('12') = 1200.0, want 1200; flag() = 1, want True; "
                               "names() = ('b', 'a'), want ['a', 'b']; parse_cents('12') = 1200, want ValueError; "
                               "parse_cents('x') raised ValueError: \"bad amount 'x'\", want 0 (+1 more)"), r.detail


def test_api_calls_after_the_app_ends_its_process_never_returned(app, cfg):
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text()
                                            + "\ndef leave():\n    import os\n    os._exit(0)\n")
    calls = [{"call": "tally.money:parse_cents", "args": ["1"], "want": 100}, {"call": "tally.money:leave", "want": None},
             {"call": "tally.money:parse_cents", "args": ["2"], "want": 200}]
    r = check_result(probe("a", type="api", calls=calls), app, cfg)
    assert not r.passed and r.detail == ("2/3 calls differ: leave() never returned (the process ended with exit 0); "
                                         "parse_cents('2') never returned (the process ended with exit 0)")


def test_api_a_hanging_call_fails_within_the_checks_timeout(app, cfg):
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text()
                                            + "\ndef spin():\n    while True:\n        pass\n")
    check = probe("a", type="api", calls=[{"call": "tally.money:spin", "want": 1}]).model_copy(update={"timeout": 5})
    r = check_result(check, app, cfg)
    assert not r.passed and r.detail == "1/1 calls differ: spin() never returned (it timed out)" and r.duration_s < 10


def test_sql_owner_fails_when_another_module_runs_sql_and_ignores_its_commits(app, cfg):
    cli = app / "tally" / "cli.py"
    cli.write_text(cli.read_text().replace("for name, cents in store.entries(con):",
                                           "for name, cents in con.execute('SELECT name, cents FROM entry'):"))
    r = check_result(tally_checks()[4], app, cfg)
    assert not r.passed and r.detail == "SQL was run from tally/cli.py (SELECT); only tally/store.py may run SQL"


def test_sql_owner_fails_on_a_run_that_does_not_exit_0_or_a_db_never_made(app, cfg):
    r = check_result(probe("o", type="sql_owner", package="tally", owner="tally/store.py",
                           runs=[["--db", "{db}", "add", "Ann", "-3"]]), app, cfg)
    assert not r.passed and r.detail == "`--db {db} add Ann -3` did not exit 0 (the process ended with exit 2)"
    assert "error: bad amount '-3'" in r.stderr_tail
    r = check_result(probe("o", type="sql_owner", package="tally", owner="tally/store.py", db_created=True,
                           runs=[["--db", "{dir}/other.db", "list"]]), app, cfg)
    assert not r.passed and r.detail == "{db} was never created"


def test_pytest_fails_naming_the_failing_test_and_when_no_test_ran(app, cfg):
    (app / "tests" / "test_more.py").write_text("def test_wrong():\n    assert 1 == 2\n")
    r = check_result(probe("t", type="pytest"), app, cfg)
    assert not r.passed and r.detail == "pytest exit status 1 (process exit 1): tests/test_more.py::test_wrong"
    assert "1 failed, 3 passed" in r.stdout_tail
    r = check_result(probe("t", type="pytest", args=["-k", "nothing_matches"]), app, cfg)
    assert not r.passed and r.detail.startswith("pytest exit status 5")
    r = check_result(probe("t", type="pytest", args=["tests/test_money.py"], min_tests=4), app, cfg)
    assert not r.passed and r.detail == "pytest ran 3 test(s), want at least 4"


BROKEN_DRIVER = "import json\nimport sys\n\ndef main(inputs):\n    raise RuntimeError('driver bug')\n"


def test_a_crashing_probe_driver_is_an_infra_error_not_the_apps_failure(app, cfg, tmp_path, monkeypatch):
    driver = tmp_path / "driver.py"
    driver.write_text(BROKEN_DRIVER)
    monkeypatch.setattr(boxed, "DRIVER", driver)
    checks = tally_checks()
    v = grade(app, checks, cfg, dimensions=CHECKS)
    by = {r.name: r for r in v.check_results()}
    api = by["money_api"]
    assert not api.passed and api.error is not None and api.error.type == "ProbeInfraError"
    assert api.detail.startswith("probe could not run (infrastructure, not the app): the probe gave no result (exit 1)")
    assert "RuntimeError: driver bug" in api.detail
    assert by["stdlib_only"].passed and by["stdlib_only"].error is None  # the other checks stand
    checks_dim = v.dimensions["checks"]
    assert checks_dim.status == "error" and not v.functional and v.overall == "error"  # no outcome: out of pass rates
    assert checks_dim.summary == ("3/6 checks passed; could not run (infra): money_api, store_owns_sql, tests_pass")
    assert not [f for f in v.findings if f.severity == "high"]
    failure = classify("done", v, {c.name: c.covers or [] for c in checks})
    assert failure.kind == "infra" and "could not run (infra)" in failure.reason
    with pytest.raises(CheckInfraError, match="check 'money_api' could not be run"):
        grade(app, checks, cfg, dimensions=CHECKS, strict=True)


def test_a_driver_that_reports_its_own_crash_is_an_infra_error(app, cfg, tmp_path, monkeypatch):
    driver = tmp_path / "driver.py"
    driver.write_text(boxed.DRIVER.read_text().replace('    kind, whole_box = inputs["type"]',
                                                       '    1 / 0\n    kind, whole_box = inputs["type"]'))
    monkeypatch.setattr(boxed, "DRIVER", driver)
    [r] = grade(app, [tally_checks()[3]], cfg, dimensions=CHECKS).check_results()
    assert r.error is not None and r.detail.endswith("the probe's driver crashed: ZeroDivisionError: division by zero")


def test_a_check_box_that_cannot_start_the_probe_is_an_infra_error(app, tmp_path):
    home = tmp_path / "home2"
    home.mkdir()
    (home / "config.yaml").write_text(yaml.safe_dump({"checks": {"env": {"PATH": str(tmp_path / "empty")}}}))
    cfg = load_config(home, environ={})
    v = grade(app, [tally_checks()[5]], cfg, dimensions=CHECKS)
    [r] = v.check_results()
    assert r.error is not None and "the probe gave no result (exit " in r.detail  # no bash / python3 on its PATH
    assert classify("done", v).kind == "infra"


def test_a_suite_states_probes_in_yaml_and_refuses_a_wrong_key_in_one_line(tmp_path):
    folder = tmp_path / "s"
    folder.mkdir()

    def suite(probe_map):
        (folder / "suite.yaml").write_text(yaml.safe_dump({"name": "s", "specs": [{
            "id": "a", "app_slug": "a", "prompt": "p", "hard_prompt": "p",
            "checks": [{"name": "c", "kind": "probe", "probe": probe_map}]}]}))
        return load_suite(folder)

    loaded = suite({"type": "api", "calls": [{"call": "a.m:f", "args": [1], "want": {"x": [1, 2]}}]})
    assert loaded.specs[0].checks[0].probe.calls[0].want == {"x": [1, 2]}
    again = suite({"type": "api", "calls": [{"call": "a.m:f", "args": [1], "want": {"x": [1, 3]}}]})
    assert again.hash != loaded.hash  # the probe is part of the suite hash
    for bad, why in [({"type": "pure", "module": "a/m.py"}, "a pure probe needs key 'forbid'"),
                     ({"type": "layout", "files": ["a"], "package": "a"}, "a layout probe takes no key 'package'"),
                     ({"type": "api", "calls": [{"call": "a.m.f", "want": 1}]}, "call 'a.m.f' is not MODULE:ATTRIBUTE"),
                     ({"type": "api", "calls": [{"call": "a.m:f"}]}, "call 'a.m:f' needs exactly one of 'want' or 'raises'"),
                     ({"type": "stdlib_only", "package": "../up"}, "must be relative to the workspace"),
                     ({"type": "lint"}, "type")]:
        with pytest.raises(SuiteError) as err:
            suite(bad)
        assert "\n" not in str(err.value) and why in str(err.value), str(err.value)


def test_the_apps_own_package_wins_over_an_installed_one_of_that_name_but_never_over_the_stdlib(app, cfg):
    (app / "psutil").mkdir()  # psutil is installed where swarmgym is
    (app / "psutil" / "__init__.py").write_text("def answer():\n    return 42\n")
    (app / "tally" / "money.py").write_text("import json\n\n" + (app / "tally" / "money.py").read_text()
                                            + "\ndef dumped():\n    return json.dumps([1])\n")
    (app / "json.py").write_text("def dumps(x):\n    return 'shadow'\n")
    calls = [{"call": "psutil:answer", "want": 42}, {"call": "tally.money:dumped", "want": "[1]"}]
    r = check_result(probe("a", type="api", calls=calls), app, cfg)
    assert r.passed, r.detail


NOTES_STORE = '''\
import json
import os


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except FileNotFoundError:
        return []


def save(path, notes):
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(notes, f)
    os.replace(path + ".tmp", path)
'''

NOTES_CLI = '''\
import sys

from notes import store

_, flag, path, cmd, *rest = sys.argv
notes = store.load(path)
if cmd == "add":
    store.save(path, notes + rest)
else:
    print("\\n".join(notes))
'''


@pytest.fixture
def notes(tmp_path):
    ws = tmp_path / "notes-ws"
    (ws / "notes").mkdir(parents=True)
    (ws / "notes" / "__init__.py").write_text("")
    (ws / "notes" / "store.py").write_text(NOTES_STORE)
    (ws / "notes" / "__main__.py").write_text(NOTES_CLI)
    return ws


def owner_check(**kw):
    return probe("o", type="file_owner", package="notes", owner="notes/store.py",
                 runs=[["--data", "{db}", "list"], ["--data", "{db}", "add", "hello"], ["--data", "{db}", "list"]], **kw)


def test_file_owner_passes_when_only_the_owner_touches_the_data_file(notes, cfg):
    r = check_result(owner_check(db_json=True), notes, cfg)
    assert r.passed and r.detail == "3 runs: only notes/store.py touched {db}"


def test_file_owner_names_the_module_that_touches_the_data_file_and_a_file_that_is_no_json(notes, cfg):
    main = notes / "notes" / "__main__.py"
    main.write_text(main.read_text() + "\nif cmd == 'add':\n    open(path).close()\n")
    r = check_result(owner_check(), notes, cfg)
    assert not r.passed and r.detail == "{db} was touched from notes/__main__.py (open); only notes/store.py may touch it"
    main.write_text(NOTES_CLI)
    (notes / "notes" / "store.py").write_text(NOTES_STORE.replace("json.dump(notes, f)", "f.write('not json')")
                                              .replace("return json.load(f)", "return []"))
    r = check_result(owner_check(db_json=True), notes, cfg)
    assert not r.passed and r.detail == "{db} does not hold one JSON document"


def test_api_builds_arguments_in_the_box_and_matches_an_object_by_its_repr(app, cfg):
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text() + '''
import datetime


def due(day):
    return day + datetime.timedelta(days=14)
''')
    when = {"$call": "datetime:date", "args": [2028, 2, 20]}
    calls = [{"call": "tally.money:due", "args": [when], "want": {"$repr": "datetime.date(2028, 3, 5)"}},
             {"call": "tally.money:due", "args": [when], "want": {"$repr": "datetime.date(2028, 3, 5)", "$type": "x.date"}},
             {"call": "tally.money:due", "args": [when], "want": "2028-03-05"}]
    r = check_result(probe("a", type="api", calls=calls), app, cfg)
    assert not r.passed and r.detail == ("2/3 calls differ: due({'$call': 'datetime:date', 'args': [2028, 2, 20]}) = "
                                         "<datetime.date datetime.date(2028, 3, 5)>, want {'$repr': 'datetime.date(2028, 3, 5)', "
                                         "'$type': 'x.date'}; due({'$call': 'datetime:date', 'args': [2028, 2, 20]}) = "
                                         "<datetime.date datetime.date(2028, 3, 5)>, want '2028-03-05'")


def test_imports_names_each_module_that_does_not_import(app, cfg):
    (app / "tally" / "broken.py").write_text("import nosuchthing\n")
    (app / "tally" / "leaves.py").write_text("raise SystemExit(0)\n")
    modules = ["tally.money", "tally.broken", "tally.store", "tally.absent", "tally.leaves"]
    r = check_result(probe("i", type="imports", modules=modules), app, cfg)
    assert not r.passed and r.detail == (
        "3/5 modules do not import: import tally.broken raised ModuleNotFoundError: \"No module named 'nosuchthing'\"; "
        "import tally.absent raised ModuleNotFoundError: \"No module named 'tally.absent'\"; "
        "import tally.leaves raised SystemExit: '0'")
    assert check_result(probe("i", type="imports", modules=modules[:1] + modules[2:3]), app, cfg).passed


def test_api_a_value_too_big_for_json_is_a_value_not_an_exception(app, cfg):
    (app / "tally" / "money.py").write_text((app / "tally" / "money.py").read_text() + "\ndef huge(text):\n    return 10 ** 5000\n")
    r = check_result(probe("a", type="api", calls=[{"call": "tally.money:huge", "args": ["-1"], "raises": "ValueError"}]),
                     app, cfg)
    assert not r.passed and r.detail == "1/1 calls differ: huge('-1') = <builtins.int (an int of 16610 bits)>, want ValueError"


def test_static_probes_read_no_link_and_fail_on_one_that_would_hide_an_import(app, cfg, tmp_path):
    hidden = tmp_path / "hidden.py"
    hidden.write_text("import requests\n")
    (app / "tally" / "extra.py").symlink_to(hidden)
    r = check_result(probe("s", type="stdlib_only", package="tally"), app, cfg)
    assert not r.passed and r.detail == ("tally holds what is no regular file or folder (1 symlink): "
                                         "a probe reads only the package's own files")
    (app / "tally" / "money.py").write_text("from tally import extra\n" + (app / "tally" / "money.py").read_text())
    r = check_result(probe("p", type="pure", module="tally/money.py", forbid=["requests"], package="tally"), app, cfg)
    assert not r.passed and r.detail == "tally/extra.py is not a readable regular file"
