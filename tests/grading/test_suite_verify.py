"""Suite self-verification on a tiny real suite: references must pass, mutants must fail their targets."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.core.errors import SuiteError
from swarmgym.grading.suite_verify import verify_app, verify_suite
from swarmgym.suitekit.suite import load_suite

CHECKS = [
    {"name": "says_hello", "kind": "command_succeeds", "run": 'test "$(bash hello.sh)" = hello'},
    {"name": "has_script", "kind": "file_exists", "path": "hello.sh"},
    {"name": "readme", "kind": "file_contains", "path": "README.md", "text": "hello.sh", "hard_only": True},
]
MUTANTS = {
    "liar": ({"description": "prints goodbye", "targets": ["says_hello"], "failure": "liar"},
             {"hello.sh": "echo goodbye\n"}),
    "stub": ({"description": "not implemented", "targets": ["says_hello"], "failure": "stub"},
             {"hello.sh": "echo NotImplementedError >&2; exit 1\n"}),
    "crash": ({"description": "nothing built", "targets": ["says_hello", "has_script", "readme"],
               "failure": "crash", "delete": ["hello.sh", "README.md"]}, {}),
}


def make_suite(root: Path, *, checks=CHECKS, mutants=MUTANTS, reference=None, lock=True) -> Path:
    """Write a one-spec suite (app `hello`, a bash script) under ``root``; return its folder."""
    d = root / "tiny"
    spec = {"id": "greet", "app_slug": "hello", "prompt": "write hello.sh", "hard_prompt": "write hello.sh + README",
            "checks": checks}
    d.mkdir(parents=True)
    (d / "suite.yaml").write_text(yaml.safe_dump({"name": "tiny", "specs": [spec]}))
    ref = d / "apps" / "hello" / "reference"
    ref.mkdir(parents=True)
    for name, text in (reference or {"hello.sh": "echo hello\n", "README.md": "Run hello.sh\n"}).items():
        (ref / name).write_text(text)
    for name, (meta, files) in mutants.items():
        m = d / "apps" / "hello" / "mutants" / name
        m.mkdir(parents=True)
        (m / "mutant.yaml").write_text(yaml.safe_dump(meta))
        for fname, text in files.items():
            (m / fname).write_text(text)
    if lock:
        (d / "suite.lock").write_text(load_suite(d).hash + "\n")
    return d


@pytest.fixture
def cfg(tmp_path):
    return load_config(tmp_path / "home", environ={})


def test_good_suite_verifies_ok(tmp_path, cfg):
    result = verify_suite(load_suite(make_suite(tmp_path)), cfg, workers=2)
    assert result.ok and result.hash_ok and result.problems == [] and result.uncaught == {}
    rows = {r.name: r for r in result.rows}
    assert set(rows) == {"reference", "liar", "stub", "crash"}
    assert rows["reference"].passed == ["says_hello", "has_script", "readme"]  # hard-only included
    assert rows["crash"].failed == ["says_hello", "has_script", "readme"]
    assert rows["liar"].failed == ["says_hello"] and rows["liar"].failure == "liar"


def test_mutant_that_passes_its_target_is_a_defect(tmp_path, cfg):
    mutants = {**MUTANTS, "sneaky": ({"description": "claims a bug it lacks", "targets": ["says_hello"],
                                      "failure": "liar"}, {"README.md": "Run hello.sh (now with docs)\n"})}
    result = verify_suite(load_suite(make_suite(tmp_path, mutants=mutants)), cfg)
    row = next(r for r in result.rows if r.name == "sneaky")
    assert not row.ok and row.missed_targets == ["says_hello"] and "passes its target" in row.problem
    assert not result.ok


def test_check_that_no_mutant_fails_is_reported(tmp_path, cfg):
    checks = [*CHECKS, {"name": "toothless", "kind": "command_succeeds", "run": "true"}]
    result = verify_suite(load_suite(make_suite(tmp_path, checks=checks)), cfg)
    assert result.uncaught == {"greet": ["toothless"]}
    assert any("toothless" in p for p in result.problems) and not result.ok


def test_reference_that_fails_a_check_is_a_defect(tmp_path, cfg):
    suite = load_suite(make_suite(tmp_path, reference={"hello.sh": "echo hello\n", "README.md": "docs\n"}))
    row = verify_app(suite, suite.spec("greet"), cfg)
    assert row.kind == "reference" and not row.ok and row.failed == ["readme"] and "readme" in row.problem


def test_spec_without_a_crash_mutant_is_a_defect(tmp_path, cfg):
    mutants = {k: v for k, v in MUTANTS.items() if k != "crash"}
    result = verify_suite(load_suite(make_suite(tmp_path, mutants=mutants)), cfg)
    assert any("failure crash" in p for p in result.problems)
    assert result.uncaught == {"greet": ["has_script", "readme"]}


def test_mutant_targeting_an_unknown_check_is_a_defect(tmp_path, cfg):
    mutants = {**MUTANTS, "typo": ({"description": "d", "targets": ["says_helo"], "failure": "liar"},
                                   {"hello.sh": "echo bye\n"})}
    result = verify_suite(load_suite(make_suite(tmp_path, mutants=mutants)), cfg)
    row = next(r for r in result.rows if r.name == "typo")
    assert not row.ok and "says_helo" in row.problem


def test_missing_or_stale_lock_fails_verification(tmp_path, cfg):
    d = make_suite(tmp_path, lock=False)
    result = verify_suite(load_suite(d), cfg)
    assert not result.hash_ok and any("suite.lock" in p and "missing" in p for p in result.problems)
    (d / "suite.lock").write_text("sha256:0000000000000000\n")
    result = verify_suite(load_suite(d), cfg)
    assert not result.hash_ok and not result.ok and any("edited" in p for p in result.problems)
    assert all(r.ok for r in result.rows)  # the apps are fine; only the freeze is broken


def test_on_row_is_called_once_per_app(tmp_path, cfg):
    seen = []
    verify_suite(load_suite(make_suite(tmp_path)), cfg, workers=3, on_row=lambda r: seen.append(r.name))
    assert sorted(seen) == ["crash", "liar", "reference", "stub"]


def test_missing_reference_folder_is_a_defect_row_not_a_crash(tmp_path, cfg):
    d = make_suite(tmp_path)
    shutil.rmtree(d / "apps" / "hello" / "reference")
    result = verify_suite(load_suite(d), cfg)
    ref = next(r for r in result.rows if r.kind == "reference")
    assert not ref.ok and "cannot materialize" in ref.problem and not result.ok


# --- traced suites: requirements, covers, patch mutants ------------------------------------

def traced_suite(root: Path, *, covers=("G-HELLO",), breaks=("G-HELLO",)) -> Path:
    """The tiny suite with requirements, a check covering them, and patch mutants in mutants.yaml."""
    d = make_suite(root, mutants={}, lock=False)
    data = yaml.safe_load((d / "suite.yaml").read_text())
    spec = data["specs"][0]
    spec["requirements"] = [{"id": "G-HELLO", "text": "hello.sh prints hello"},
                            {"id": "G-SCRIPT", "text": "there is a hello.sh"},
                            {"id": "G-README", "text": "README names hello.sh", "hard_only": True}]
    spec["checks"][0]["covers"] = list(covers)
    spec["checks"][1]["covers"] = ["G-SCRIPT"]
    spec["checks"][2]["covers"] = ["G-README"]
    (d / "suite.yaml").write_text(yaml.safe_dump(data))
    (d / "apps" / "hello" / "mutants.yaml").write_text(yaml.safe_dump({"mutants": [
        {"name": "goodbye", "description": "prints goodbye", "breaks": list(breaks), "failure": "liar",
         "patch": [{"file": "hello.sh", "old": "hello", "new": "goodbye"}]},
        {"name": "stubbed", "description": "not there yet", "breaks": ["G-HELLO"], "failure": "stub",
         "patch": [{"file": "hello.sh", "old": "echo hello", "new": "echo NotImplementedError >&2; exit 1"}]},
        {"name": "gone", "description": "the script raises; README in the wrong folder", "failure": "crash",
         "breaks": ["G-HELLO", "G-README"], "rename": {"README.md": "docs/README.md"},
         "patch": [{"file": "hello.sh", "old": "echo hello", "new": "python3 -c 'raise SystemExit(1/0)'"}]},
        {"name": "no-script", "description": "hello.sh never written", "breaks": ["G-SCRIPT"], "failure": "liar",
         "delete": ["hello.sh"]},
    ]}))
    (d / "suite.lock").write_text(load_suite(d).hash + "\n")
    return d


def test_traced_suite_reports_killing_checks_and_a_full_mutation_score(tmp_path, cfg):
    result = verify_suite(load_suite(traced_suite(tmp_path)), cfg, workers=2, exhaustive=True)
    assert result.ok, (result.problems, [(r.name, r.problem) for r in result.rows])
    rows = {r.name: r for r in result.rows}
    assert rows["goodbye"].failed == ["says_hello"] and rows["gone"].failed == ["says_hello", "readme"]
    assert rows["no-script"].failed == ["says_hello", "has_script"]
    assert (result.killed, result.mutants, result.mutation_score) == (4, 4, 1.0)


def test_focused_verify_reaches_the_exhaustive_verdict_running_fewer_checks(tmp_path, cfg):
    suite = load_suite(traced_suite(tmp_path))
    full = verify_suite(suite, cfg, workers=2, exhaustive=True)
    quick = verify_suite(suite, cfg, workers=2)
    assert quick.ok and (quick.killed, quick.mutants, quick.uncaught) == (full.killed, full.mutants, full.uncaught)
    rows = {r.name: r for r in quick.rows}
    assert rows["no-script"].failed == ["has_script"] and "says_hello" in rows["no-script"].skipped
    # only "gone" fails readme; it was killed by says_hello first, and catch-up ran readme on it
    assert "readme" in rows["gone"].failed and "readme" not in rows["gone"].skipped
    assert sum(len(r.results) for r in quick.rows) < sum(len(r.results) for r in full.rows)


def test_focused_verify_still_reports_a_check_no_mutant_fails(tmp_path, cfg):
    d = traced_suite(tmp_path)
    data = yaml.safe_load((d / "apps" / "hello" / "mutants.yaml").read_text())
    data["mutants"] = [m for m in data["mutants"] if m["name"] != "gone"]  # the only one failing readme
    (d / "apps" / "hello" / "mutants.yaml").write_text(yaml.safe_dump(data))
    result = verify_suite(load_suite(d), cfg, workers=2)
    assert result.uncaught == {"greet": ["readme"]}
    assert all("readme" not in r.skipped for r in result.rows)  # every mutant ran it before it was called uncaught


def test_requirement_without_a_check_fails_verification(tmp_path, cfg):
    d = traced_suite(tmp_path)
    data = yaml.safe_load((d / "suite.yaml").read_text())
    data["specs"][0]["requirements"].append({"id": "G-EXTRA", "text": "an untested promise"})
    (d / "suite.yaml").write_text(yaml.safe_dump(data))
    (d / "suite.lock").write_text(load_suite(d).hash + "\n")
    result = verify_suite(load_suite(d), cfg)
    assert any("with no check: G-EXTRA" in p for p in result.problems)
    assert any("no mutant breaks: G-EXTRA" in p for p in result.problems) and not result.ok


def test_mutant_killed_only_by_a_check_not_covering_what_it_breaks_is_a_defect(tmp_path, cfg):
    result = verify_suite(load_suite(traced_suite(tmp_path, breaks=("G-README",))), cfg)
    row = next(r for r in result.rows if r.name == "goodbye")
    assert not row.ok and "none of which covers G-README" in row.problem


def test_check_covering_an_unknown_requirement_is_a_load_error(tmp_path):
    with pytest.raises(SuiteError, match="covers unknown requirement 'G-NOPE'"):
        load_suite(traced_suite(tmp_path, covers=("G-NOPE",)))


def test_a_liars_own_tests_run_before_checks_that_leave_files_behind(tmp_path, cfg):
    """A liar that writes state into its workspace when run: its own tests see the workspace as the
    mutant left it, as in the exhaustive order, not after a golden check has run the app."""
    checks = [{"name": "tests_pass", "kind": "command_succeeds", "run": "test ! -e state", "covers": ["G-TESTS"]},
              {"name": "says_hello", "kind": "command_succeeds", "run": "bash hello.sh | grep -q hello",
               "covers": ["G-HELLO"]}]
    d = make_suite(tmp_path, checks=checks, mutants={}, lock=False)
    data = yaml.safe_load((d / "suite.yaml").read_text())
    data["specs"][0]["requirements"] = [{"id": "G-HELLO", "text": "hello.sh prints hello"},
                                        {"id": "G-TESTS", "text": "its own tests pass"}]
    (d / "suite.yaml").write_text(yaml.safe_dump(data))
    (d / "apps" / "hello" / "mutants.yaml").write_text(yaml.safe_dump({"mutants": [
        {"name": "goodbye-and-state", "description": "prints goodbye and leaves a state file", "breaks": ["G-HELLO"],
         "failure": "liar", "patch": [{"file": "hello.sh", "old": "echo hello", "new": "touch state; echo goodbye"}]}]}))
    rows = {r.name: r for r in verify_suite(load_suite(d), cfg, workers=1, mutants=["goodbye-and-state"]).rows}
    mutant = rows["goodbye-and-state"]
    assert mutant.ok, mutant.problem
    assert [r.name for r in mutant.results] == ["tests_pass", "says_hello"] and mutant.failed == ["says_hello"]
