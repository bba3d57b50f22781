"""Human output shows what a value says, on its own line: markup escaped, escape sequences removed,
control characters made visible (issue #20 item 8)."""
from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys

import yaml
from rich.console import Console

from swarmgym.trust.textsafe import shown
from tests.support.queue import tiny_suite

FAKE = "[bold green]overall pass[/]"
ANSI = "\x1b[2K\r\x1b[1;32moverall pass\x1b[0m"


def _printed(text: str) -> str:
    con = Console(file=io.StringIO(), width=200, force_terminal=False)
    con.print(text)
    return con.file.getvalue()


def test_markup_prints_literally_and_escapes_and_newlines_cannot_start_a_line():
    assert _printed("file " + shown(FAKE)) == f"file {FAKE}\n"
    assert shown(ANSI) == "\\roverall pass" and "\x1b" not in _printed(shown(ANSI))
    assert shown("x\noverall pass") == "x\\noverall pass"
    assert shown("a\u202egnp.py", markup=False) == "a\\u202egnp.py"  # a bidi override cannot reorder the line
    assert shown("tail\nline 2\ttab", multiline=True, markup=False) == "tail\nline 2\ttab"
    assert shown(None) == "" and shown(3) == "3"




def test_file_names_with_markup_newlines_or_escapes_print_no_fake_line_in_verify(tmp_path):
    suites, ws = tmp_path / "suites", tmp_path / "ws"
    (suites / "tiny-v1").mkdir(parents=True)
    (suites / "tiny-v1" / "suite.yaml").write_text(yaml.safe_dump(tiny_suite(1)))
    (ws / "[bold green]overall pass[").mkdir(parents=True)  # the path reads "[bold green]overall pass[/].py"
    (ws / "[bold green]overall pass[" / "].py").write_text("x = 1  # TODO\n")
    (ws / "a\noverall pass\n.py").write_text("y = 2  # TODO\n")
    (ws / f"b{ANSI}.py").write_text("z = 3  # FIXME\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SWARMGYM_")}
    r = subprocess.run([sys.executable, "-m", "swarmgym", "--home", str(tmp_path), "verify", "--suite",
                        str(suites / "tiny-v1"), "--spec", "touch", str(ws)], capture_output=True, text=True,
                       env={**env, "COLUMNS": "250"}, timeout=300)
    assert r.returncode == 1, r.stderr  # out.txt is missing: not functional
    lines = r.stdout.splitlines()
    assert [x.strip() for x in lines if x.strip().startswith("overall")] == ["overall fail  functional=False"]
    assert "\x1b" not in r.stdout and "\r" not in r.stdout
    assert f"TODO at {FAKE}.py:1" in r.stdout and "a\\noverall pass\\n.py:1" in r.stdout
    assert "FIXME at b\\roverall pass.py:1" in r.stdout


def test_the_csv_and_markdown_reports_carry_no_escape_sequence_from_a_record(tmp_path):
    from swarmgym.reports.csvs import write_runs
    from swarmgym.reports.markdown import md

    row = ["mlx", "smoke", "spec", f"app{ANSI}", "s-1", 1.0, True, "fail", "fail", "pass", "pass", "pass", 0, 0, 0,
           "sim", json.dumps({"GOOSE_SWARM_X": "a\nb"}), 0, "host|x"]
    from swarmgym.reports import csvs

    full = list(row) + [None] * (len(csvs.COLUMNS) - len(row))
    for name, i in (("adapter", 15), ("flags", 16), ("seed", 17), ("host", 18)):
        full[csvs.COLUMNS.index(name)] = row[i]
    text = write_runs(tmp_path / "runs.csv", [tuple(full)]).read_text()
    assert "\x1b" not in text and "\r" not in text
    cells = list(csv.reader(io.StringIO(text)))[1]
    assert cells[3] == "app\\roverall pass" and len(text.splitlines()) == 2
    assert md(f"dev{ANSI}|x") == "dev\\roverall pass\\|x"
