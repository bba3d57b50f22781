"""Edge classes: requirements declare their inputs' edges; coverage refuses a class nothing samples or breaks."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from swarmgym.config import load_config
from swarmgym.core.errors import SuiteError
from swarmgym.grading.suite_verify import verify_suite
from swarmgym.suitekit.coverage import coverage
from swarmgym.suitekit.suite import load_suite
from swarmgym.suitekit.tablegen import answer, row, step, write

APP = '''import sys
def main(argv):
    if len(argv) != 2 or argv[0] != "half":
        print("error: usage: half N", file=sys.stderr); return 1
    try:
        n = float(argv[1].strip())
    except ValueError:
        print("error: not a number", file=sys.stderr); return 1
    print(f"{n / 2:.2f}")
    return 0
sys.exit(main(sys.argv[1:]))
'''


def _spec(edges_for_n: list[str]) -> dict:
    return {"id": "half", "app_slug": "halver", "prompt": "halve N", "hard_prompt": "halve N",
            "requirements": [{"id": "H-HALF", "text": "half N prints N/2 with two decimals",
                              "inputs": {"N": edges_for_n}},
                             {"id": "H-ERR", "text": "a bad number is an error", "inputs": {}}],
            "checks": [{"name": "table", "kind": "differential", "module": "halver", "table": "tables/halver.json",
                        "covers": ["H-HALF", "H-ERR"]}]}


def _suite(tmp_path: Path, edges_for_n: list[str], rows, mutants: list[dict]) -> Path:
    root = tmp_path / "edgy-v1"
    ref = root / "apps" / "halver" / "reference" / "halver"
    ref.mkdir(parents=True)
    (ref / "__init__.py").write_text("")
    (ref / "__main__.py").write_text(APP)
    (root / "specs").mkdir()
    (root / "specs" / "half.yaml").write_text(yaml.safe_dump(_spec(edges_for_n)))
    (root / "suite.yaml").write_text(yaml.safe_dump({"name": "edgy-v1", "specs": ["specs/half.yaml"]}))
    write(root, "halver", answer(ref.parent, "halver", rows), seed=1)
    (root / "apps" / "halver" / "mutants.yaml").write_text(yaml.safe_dump({"mutants": mutants}))
    return root


ROWS = [row("common", ["H-HALF"], [], step(["half", "3"], expect=lambda out: out == "1.50\n")),
        row("neg", ["H-HALF"], ["negative"], step(["half", "-3"])),
        row("tab", ["H-HALF"], ["whitespace"], step(["half", "\t4"])),
        row("bad", ["H-ERR"], [], step(["half", "x"], expect_exit=1))]
NEG_MUTANT = {"name": "abs-first", "breaks": ["H-HALF"], "failure": "liar", "edge": "negative",
              "description": "halves the absolute value",
              "patch": [{"file": "halver/__main__.py", "old": "n / 2", "new": "abs(n) / 2"}]}
TAB_MUTANT = {"name": "no-strip", "breaks": ["H-HALF"], "failure": "liar", "edge": "whitespace",
              "description": "a tab before the number is an error",
              "patch": [{"file": "halver/__main__.py", "old": "float(argv[1].strip())",
                         "new": "float('x' if '\\t' in argv[1] else argv[1])"}]}

ERR_MUTANT = {"name": "err-unprefixed", "breaks": ["H-ERR"], "failure": "liar", "description": "errors lack the prefix",
              "patch": [{"file": "halver/__main__.py", "old": '"error: not a number"', "new": '"not a number"'}]}
MUTANTS = [NEG_MUTANT, TAB_MUTANT, ERR_MUTANT]


def test_a_spec_file_with_edge_classes_loads_and_its_rows_answer_from_the_reference(tmp_path):
    root = _suite(tmp_path, ["negative", "whitespace"], ROWS, MUTANTS)
    suite = load_suite(root)
    assert [r.edge_classes() for r in suite.specs[0].requirements] == [["negative", "whitespace"], []]
    rows = json.loads((root / "tables" / "halver.json").read_text())["rows"]
    assert rows[1]["steps"][0]["stdout"] == "-1.50\n" and rows[1]["edges"] == ["negative"]
    assert rows[3]["steps"][0] == {"argv": ["half", "x"], "exit": 1, "err": "error:", "out": "any"}


def test_coverage_is_whole_when_every_edge_class_has_a_row_and_an_edge_mutant(tmp_path):
    cov = coverage(load_suite(_suite(tmp_path, ["negative", "whitespace"], ROWS, MUTANTS)))
    assert cov.ok, cov.problems
    cells = {(c.id, c.edge): (c.rows, c.mutants) for c in cov.edges}
    assert cells == {("H-HALF", "negative"): (1, ["abs-first"]), ("H-HALF", "whitespace"): (1, ["no-strip"])}


def test_an_edge_class_no_row_samples_is_a_suite_hole(tmp_path):
    cov = coverage(load_suite(_suite(tmp_path, ["negative", "whitespace", "zero"], ROWS, MUTANTS)))
    assert not cov.ok
    assert "spec half: requirement H-HALF: no golden row or check samples edge class 'zero'" in cov.problems
    assert "spec half: no edge mutant for edge class(es) zero" in cov.problems


def test_a_requirement_without_an_edge_mutant_is_a_suite_hole(tmp_path):
    cov = coverage(load_suite(_suite(tmp_path, ["negative", "whitespace"], ROWS, [ERR_MUTANT])))
    assert "spec half: requirement H-HALF has edge classes but no edge mutant breaks it" in cov.problems


def test_an_unknown_edge_class_is_a_one_line_load_error_naming_the_spec_file(tmp_path):
    root = _suite(tmp_path, ["negative"], ROWS[:2], [])
    spec = yaml.safe_load((root / "specs" / "half.yaml").read_text())
    spec["requirements"][0]["inputs"]["N"] = ["negatory"]
    (root / "specs" / "half.yaml").write_text(yaml.safe_dump(spec))
    with pytest.raises(SuiteError, match=r"suite.yaml: spec half: requirement H-HALF input 'N' names unknown edge class 'negatory'"):
        load_suite(root)


def test_a_missing_spec_file_is_a_one_line_load_error(tmp_path):
    root = _suite(tmp_path, ["negative"], ROWS[:2], [])
    (root / "suite.yaml").write_text(yaml.safe_dump({"name": "edgy-v1", "specs": ["specs/nope.yaml"]}))
    with pytest.raises(SuiteError, match="specs: no such spec file 'specs/nope.yaml'"):
        load_suite(root)


def test_edge_mutants_right_on_the_common_case_are_killed_only_by_their_edge_rows(tmp_path):
    root = _suite(tmp_path, ["negative", "whitespace"], ROWS, MUTANTS)
    cfg = load_config(tmp_path / "home", overrides={"checks.timeout": 60})
    result = verify_suite(load_suite(root), cfg, workers=2)
    by_name = {r.name: r for r in result.rows}
    assert by_name["reference"].ok
    neg = next(x for x in by_name["abs-first"].results if x.name == "table")
    tab = next(x for x in by_name["no-strip"].results if x.name == "table")
    assert not neg.passed and "neg `half -3`" in neg.detail and "tab" not in neg.detail.split("differ:")[1]
    assert not tab.passed and "tab `half \t4`" in tab.detail and "neg" not in tab.detail.split("differ:")[1]


def test_a_row_feeds_stdin_and_input_files_and_compares_an_output_file(tmp_path):
    app = '''import sys, json
src, dst = sys.argv[1], sys.argv[2]
data = [ln.split("=", 1) for ln in open(src, encoding="utf-8").read().splitlines() if ln]
json.dump(dict(data), open(dst, "w"))
print(sys.stdin.read().upper(), end="")
'''
    ref = tmp_path / "ref" / "conv"
    ref.mkdir(parents=True)
    (ref / "__init__.py").write_text("")
    (ref / "__main__.py").write_text(app)
    rows = answer(ref.parent, "conv", [row("conv", ["R"], ["separator"],
                                           step(["{dir}/in.txt", "{dir}/out.json"], stdin="hi\n",
                                                files={"{dir}/out.json": "json"}),
                                           files_in={"{dir}/in.txt": "a=1\nb=x=y\n"})])
    assert rows[0]["files_in"] == {"{dir}/in.txt": "a=1\nb=x=y\n"}
    assert rows[0]["steps"][0]["stdout"] == "HI\n" and rows[0]["steps"][0]["stdin"] == "hi\n"
    assert rows[0]["steps"][0]["files"] == {"{dir}/out.json": {"json": {"a": "1", "b": "x=y"}}}


def test_a_usage_error_row_accepts_any_non_zero_exit_but_not_success(tmp_path):
    root = _suite(tmp_path, ["negative", "whitespace", "missing"],
                  [*ROWS, row("no-n", ["H-HALF"], ["missing"], step(["half"], usage=True))], MUTANTS)
    golden = json.loads((root / "tables" / "halver.json").read_text())["rows"][-1]["steps"][0]
    assert golden == {"argv": ["half"], "exit": "nonzero", "out": "any"}
    lenient = {"name": "no-n-is-zero", "breaks": ["H-HALF"], "failure": "liar", "edge": "missing",
               "description": "a missing N halves zero",
               "patch": [{"file": "halver/__main__.py", "old": "if len(argv) != 2 or", "new": "argv = argv + ['0'] if len(argv) == 1 else argv\n    if len(argv) != 2 or"}]}
    (root / "apps" / "halver" / "mutants.yaml").write_text(yaml.safe_dump({"mutants": [*MUTANTS, lenient]}))
    cfg = load_config(tmp_path / "home", overrides={"checks.timeout": 60})
    rows = {r.name: r for r in verify_suite(load_suite(root), cfg, workers=2, mutants=["no-n-is-zero"]).rows}
    assert rows["reference"].ok  # exit 1 with "error: usage" is a non-zero exit
    detail = rows["no-n-is-zero"].results[0].detail
    assert "no-n `half`: exit 0, want a non-zero exit" in detail
