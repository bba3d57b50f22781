"""Golden tables for tabconv (spec convert): every row answered by the reference, reviewed by hand.

Run from the repository root: ``python3 suites/bench-v3/gen/gen_tabconv.py``.  Each row writes its input
to ``{dir}/in.csv`` / ``{dir}/in.json`` (or feeds stdin) and runs one or two commands.  The review is built
in: every success row carries the output written here by hand from the prompt (``json.dumps`` of the
objects the prompt's rules give, or the CSV text), and every error row the exit status the prompt asks
for, so a reference bug can never become a golden value.  No randomness: every row is a chosen edge
(the seed is recorded for the table format only).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from swarmgym.suitekit.tablegen import answer, row, step, write

SUITE = Path(__file__).resolve().parent.parent
REF = SUITE / "apps" / "tabconv" / "reference"
SEED = 2026
IN_CSV, IN_JSON, OUT, OK_JSON = "{dir}/in.csv", "{dir}/in.json", "{dir}/out", "{dir}/ok.json"

ACCEPT_CSV = 'name,qty,price\nBolt,10,2.50\n"Nut, hex",007,\n'
ACCEPT_OBJ = [{"name": "Bolt", "qty": 10, "price": 2.5}, {"name": "Nut, hex", "qty": "007", "price": None}]


def dumps(data: Any) -> str:
    """The prompt's output form: json.dumps(records, indent=2, ensure_ascii=False) and a newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def is_(want: str):
    return lambda out: out == want


def to_json(rid: str, req: list[str], edges: list[str], text: str, want: Any, *opts: str) -> dict:
    """A to-json row over {dir}/in.csv holding ``text``; ``want`` the objects, or an exit code for an error."""
    argv = ["to-json", IN_CSV, *opts]
    st = step(argv, expect_exit=want) if isinstance(want, int) else step(argv, expect=is_(dumps(want)))
    return row(rid, req, edges, st, files_in={IN_CSV: text})


def to_csv(rid: str, req: list[str], edges: list[str], data: Any, want: str | int, *opts: str) -> dict:
    """A to-csv row over {dir}/in.json (``data`` dumped, or raw text when it is a str)."""
    text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
    argv = ["to-csv", IN_JSON, *opts]
    st = step(argv, expect_exit=want) if isinstance(want, int) else step(argv, expect=is_(want))
    return row(rid, req, edges, st, files_in={IN_JSON: text})


def stats(rid: str, req: list[str], edges: list[str], text: str, want: Any, *opts: str) -> dict:
    argv = ["stats", IN_CSV, *opts]
    st = (step(argv, expect_exit=want) if isinstance(want, int)
          else step(argv, out="json", expect=lambda out: json.loads(out) == want))
    return row(rid, req, edges, st, files_in={IN_CSV: text})


def col(name, kind, count, nulls, lo=None, hi=None, mean=None) -> dict:
    return {"column": name, "type": kind, "count": count, "nulls": nulls, "min": lo, "max": hi, "mean": mean}


ERR = ["T-ERR-FORMAT", "T-ERR-EXIT", "T-NO-TRACEBACK"]

NORMAL = [
    # --- the acceptance example, both ways
    to_json("accept-to-json", ["T-ACCEPT", "T-HEADER", "T-TYPE-INT", "T-TYPE-DEC", "T-TYPE-NULL", "T-QUOTED",
                               "T-JSON-FORMAT"], [], ACCEPT_CSV, ACCEPT_OBJ),
    to_csv("accept-to-csv", ["T-ACCEPT", "T-CSV-COLUMNS", "T-CSV-VALUES", "T-CSV-QUOTING"], [], ACCEPT_OBJ,
           'name,qty,price\nBolt,10,2.5\n"Nut, hex",007,\n'),
    row("accept-round-trip", ["T-ACCEPT", "T-OUTPUT"], [],
        step(["to-json", IN_CSV, "--output", OUT + ".json"], expect=is_(""), files={OUT + ".json": "text"}),
        step(["to-csv", OUT + ".json"], expect=is_('name,qty,price\nBolt,10,2.5\n"Nut, hex",007,\n')),
        files_in={IN_CSV: ACCEPT_CSV}),
    # --- types
    to_json("int-zero", ["T-TYPE-INT"], ["zero"], "n\n0\n-0\n", [{"n": 0}, {"n": 0}]),
    to_json("int-negative", ["T-TYPE-INT"], ["negative"], "n,m\n-42,-7\n", [{"n": -42, "m": -7}]),
    to_json("int-big", ["T-TYPE-INT"], ["big"], "n\n12345678901234567890\n-98765432109876543210\n1000000000000\n",
            [{"n": 12345678901234567890}, {"n": -98765432109876543210}, {"n": 1000000000000}]),
    to_json("int-leading-zero-and-sign", ["T-TYPE-INT"], ["boundary"], "a,b,c,d\n007,+5,00,-01\n",
            [{"a": "007", "b": "+5", "c": "00", "d": "-01"}]),
    to_json("field-blanks-kept", ["T-TYPE-STRING", "T-FIELD-EXACT"], ["whitespace"], "a,b,c,d\n 5,5 ,\t7, \n",
            [{"a": " 5", "b": "5 ", "c": "\t7", "d": " "}]),
    to_json("dec-zero", ["T-TYPE-DEC"], ["zero"], "x,y\n0.0,0.5\n", [{"x": 0.0, "y": 0.5}]),
    to_json("dec-negative", ["T-TYPE-DEC"], ["negative"], "x\n-1.25\n-0.5\n", [{"x": -1.25}, {"x": -0.5}]),
    to_json("dec-tiny", ["T-TYPE-DEC", "T-JSON-FORMAT"], ["tiny"], "x\n0.000001\n0.0000005\n",
            [{"x": 1e-06}, {"x": 5e-07}]),
    to_json("dec-not-quite", ["T-TYPE-DEC"], ["boundary"], "a,b,c,d,e,f\n1.,.5,1.2.3,1e3,01.5,3.0\n",
            [{"a": "1.", "b": ".5", "c": "1.2.3", "d": "1e3", "e": "01.5", "f": 3.0}]),
    to_json("null-fields", ["T-TYPE-NULL"], ["empty"], "a,b,c\n,x,\n", [{"a": None, "b": "x", "c": None}]),
    to_json("bool-exact", ["T-TYPE-BOOL"], ["boundary"], "a,b,c,d,e\ntrue,false,True,FALSE,yes\n",
            [{"a": True, "b": False, "c": "True", "d": "FALSE", "e": "yes"}]),
    to_json("unicode-values", ["T-TYPE-STRING", "T-JSON-FORMAT", "T-UTF8", "T-HEADER"], ["unicode"],
            "名前,città\n日本,é😀\n", [{"名前": "日本", "città": "é😀"}]),
    to_json("header-order", ["T-HEADER"], ["order"], "z,a,m\n1,2,3\n", [{"z": 1, "a": 2, "m": 3}]),
    # --- header handling
    to_json("no-header", ["T-NO-HEADER"], [], "1,x\n3,y\n", [{"col1": 1, "col2": "x"}, {"col1": 3, "col2": "y"}],
            "--no-header"),
    to_json("no-header-eleven", ["T-NO-HEADER"], ["order"], ",".join("abcdefghijk") + "\n",
            [{f"col{i}": c for i, c in enumerate("abcdefghijk", 1)}], "--no-header"),
    to_json("header-empty-name", ["T-HEADER-BAD", *ERR], ["empty"], "a,,b\n1,2,3\n", 1),
    to_json("header-repeated", ["T-HEADER-BAD", *ERR], ["duplicate"], "a,b,a\n1,2,3\n", 1),
    to_json("fields-one-more", ["T-FIELD-COUNT", *ERR], ["boundary"], "a,b\n1,2\n1,2,3\n", 1),
    to_json("fields-one-fewer", ["T-FIELD-COUNT", *ERR], ["boundary"], "a,b\n1\n", 1),
    to_json("fields-no-header", ["T-FIELD-COUNT", "T-NO-HEADER"], ["boundary"], "1,2\n3\n", 1, "--no-header"),
    # --- quoting and records
    to_json("quoted-delimiter", ["T-QUOTED"], ["separator"], 'a,b\n"x, y",1\n', [{"a": "x, y", "b": 1}]),
    to_json("quoted-quotes", ["T-QUOTED"], ["quote"], 'a,b\n"say ""hi""",""""\n', [{"a": 'say "hi"', "b": '"'}]),
    to_json("quoted-line-break", ["T-QUOTED"], ["whitespace"], 'a,b\n"line1\nline2",2\n3,4\n',
            [{"a": "line1\nline2", "b": 2}, {"a": 3, "b": 4}]),
    to_json("quote-then-text", ["T-QUOTE-BAD", *ERR], ["quote"], 'a,b\n"x"y,1\n', 1),
    to_json("quote-never-closed", ["T-QUOTE-BAD"], ["quote"], 'a,b\n1,"x\n2,3\n', 1),
    to_json("quote-inside-field", ["T-QUOTE-BARE"], ["quote"], 'a,b\nx"y,say "hi"\n', [{"a": 'x"y', "b": 'say "hi"'}]),
    to_json("crlf-no-final-break", ["T-RECORDS"], ["whitespace"], "a,b\r\n1,2\r\n3,4", [{"a": 1, "b": 2}, {"a": 3, "b": 4}]),
    to_json("empty-lines-skipped", ["T-EMPTY-LINE"], ["empty"], "a,b\n\n1,2\n\n\n3,4\n",
            [{"a": 1, "b": 2}, {"a": 3, "b": 4}]),
    to_json("no-records", ["T-NO-RECORDS"], ["empty"], "", []),
    to_json("header-only", ["T-NO-RECORDS"], ["empty"], "a,b\n", []),
    # --- delimiter
    to_json("delimiter-semicolon", ["T-DELIM"], ["separator"], "a;b\n1,5;x\n", [{"a": "1,5", "b": "x"}],
            "--delimiter", ";"),
    to_json("delimiter-tab-word", ["T-DELIM"], ["whitespace"], "a\tb\n1\t 2\n", [{"a": 1, "b": " 2"}],
            "--delimiter", "tab"),
    to_json("delimiter-tab-char", ["T-DELIM"], ["whitespace"], "a\tb,c\nx\t1\n", [{"a": "x", "b,c": 1}],
            "--delimiter", "\t"),
    to_json("delimiter-two-chars", ["T-DELIM-BAD", *ERR], ["boundary"], "a::b\n1::2\n", 1, "--delimiter", "::"),
    to_json("delimiter-empty", ["T-DELIM-BAD"], ["empty"], "a,b\n1,2\n", 1, "--delimiter", ""),
    to_csv("to-csv-delimiter-bad", ["T-DELIM-BAD"], ["boundary"], [{"a": 1}], 1, "--delimiter", "TAB"),
    # --- input and output
    to_json("bom-skipped", ["T-BOM"], ["unicode"], "\ufeffa,b\n1,2\n", [{"a": 1, "b": 2}]),
    to_csv("bom-skipped-json", ["T-BOM"], ["unicode"], '\ufeff[{"a": 1}]', "a\n1\n"),
    row("stdin-dash", ["T-STDIN"], ["unicode"],
        step(["to-json", "-"], stdin="k,v\né,ü\n", expect=is_(dumps([{"k": "é", "v": "ü"}])))),
    row("stdin-dash-to-csv", ["T-STDIN"], [],
        step(["to-csv", "-"], stdin='[{"a": "x"}]', expect=is_("a\nx\n"))),
    row("output-file", ["T-OUTPUT", "T-UTF8"], ["unicode"],
        step(["to-json", IN_CSV, "--output", OUT + ".json"], expect=is_(""), files={OUT + ".json": "text"}),
        files_in={IN_CSV: "ville\nZürich\n"}),
    row("output-file-csv", ["T-OUTPUT"], [],
        step(["to-csv", IN_JSON, "--output", OUT + ".csv"], expect=is_(""), files={OUT + ".csv": "text"}),
        files_in={IN_JSON: '[{"a": "x,y", "b": null}]'}),
    # an error found at the last record: FILE must not exist (the second step, a success, looks for it)
    row("error-leaves-no-output", ["T-ERR-NO-OUTPUT", *ERR], ["boundary"],
        step(["to-json", IN_CSV, "--output", OUT + ".json"], expect_exit=1),
        step(["to-csv", OK_JSON], expect=is_("a\n1\n"), files={OUT + ".json": "text"}),
        files_in={IN_CSV: "a,b\n1,2\n3,4\n5\n", OK_JSON: '[{"a": 1}]'}),
    row("error-leaves-no-output-csv", ["T-ERR-NO-OUTPUT"], ["boundary"],
        step(["to-csv", IN_JSON, "--output", OUT + ".csv"], expect_exit=1),
        step(["to-csv", OK_JSON], expect=is_("a\n1\n"), files={OUT + ".csv": "text"}),
        files_in={IN_JSON: '[{"a": 1}, {"a": 2}, 3]', OK_JSON: '[{"a": 1}]'}),
    row("missing-file", ["T-ERR-FILE", *ERR], [], step(["to-json", "{dir}/nope.csv"], expect_exit=1),
        step(["to-csv", "{dir}/nope.json"], expect_exit=1)),
    row("usage-missing-input", ["T-USAGE"], ["missing"], step(["to-json"], usage=True), step(["to-csv"], usage=True)),
    row("usage-extra-argument", ["T-USAGE"], ["extra"], step(["to-json", IN_CSV, "extra"], usage=True),
        files_in={IN_CSV: "a\n1\n"}),
    # --- to-csv
    to_csv("csv-column-order", ["T-CSV-COLUMNS"], ["order"], [{"b": 1, "a": 2}, {"a": 3, "e": 4}, {"d": 5, "b": 6}],
           "b,a,e,d\n1,2,,\n,3,4,\n6,,,5\n"),
    to_csv("csv-missing-keys", ["T-CSV-COLUMNS"], ["empty"], [{"a": 1, "b": 2}, {"a": 3}, {}], "a,b\n1,2\n3,\n,\n"),
    to_csv("csv-null-and-bools", ["T-CSV-VALUES"], ["empty"], [{"n": None, "t": True, "f": False, "s": "x"}],
           "n,t,f,s\n,true,false,x\n"),
    to_csv("csv-big-numbers", ["T-CSV-VALUES"], ["big"], "[{\"n\": 12345678901234567890, \"m\": -98765432109876543210}]",
           "n,m\n12345678901234567890,-98765432109876543210\n"),
    to_csv("csv-tiny-numbers", ["T-CSV-VALUES"], ["tiny"], '[{"x": 0.000001, "y": 1.5e-7}]', "x,y\n1e-06,1.5e-07\n"),
    to_csv("csv-float-digits", ["T-CSV-VALUES"], ["rounding"], '[{"x": 1.50, "y": 2.0999999999999996, "z": 3.0, "w": 0.1}]',
           "x,y,z,w\n1.5,2.0999999999999996,3.0,0.1\n"),
    to_csv("csv-nested-values", ["T-CSV-VALUES", "T-CSV-QUOTING"], ["nesting"],
           [{"a": [1, "x"], "b": {"k": "é", "n": None}, "c": []}],
           'a,b,c\n"[1,""x""]","{""k"":""é"",""n"":null}",[]\n'),
    to_csv("csv-quote-delimiter", ["T-CSV-QUOTING"], ["separator"], [{"a": "x,y", "b": "plain"}],
           'a,b\n"x,y",plain\n'),
    to_csv("csv-quote-quotes", ["T-CSV-QUOTING"], ["quote"], [{"a": 'say "hi"', "b": "it's"}],
           'a,b\n"say ""hi""",it\'s\n'),
    to_csv("csv-quote-line-break", ["T-CSV-QUOTING"], ["whitespace"], [{"a": "l1\nl2", "b": " lead", "c": "t\tab"}],
           'a,b,c\n"l1\nl2", lead,t\tab\n'),
    to_csv("csv-quote-header", ["T-CSV-QUOTING"], ["separator", "quote"], [{"a,b": 1, 'c"d': 2}],
           '"a,b","c""d"\n1,2\n'),
    to_csv("csv-unicode", ["T-CSV-QUOTING", "T-UTF8"], ["unicode"], [{"名": "é😀"}], "名\né😀\n"),
    to_csv("csv-empty-array", ["T-CSV-EMPTY"], ["empty"], [], ""),
    to_csv("csv-invalid-json", ["T-CSV-INPUT", *ERR], [], '[{"a": 1},', 1),
    to_csv("csv-empty-input", ["T-CSV-INPUT"], ["empty"], "", 1),
    to_csv("csv-not-an-array", ["T-CSV-INPUT"], [], '{"a": 1}', 1),
    to_csv("csv-array-of-arrays", ["T-CSV-INPUT"], ["nesting"], "[[1, 2], [3, 4]]", 1),
    to_csv("csv-array-of-numbers", ["T-CSV-INPUT"], [], "[1, 2]", 1),
    to_csv("csv-delimiter-tab", ["T-DELIM", "T-CSV-QUOTING"], ["whitespace", "separator"], [{"a": "x\ty", "b": "1,2"}],
           'a\tb\n"x\ty"\t1,2\n', "--delimiter", "tab"),
]

HARD = [
    to_json("accept-hard-select-rename", ["T-ACCEPT-HARD", "T-SELECT", "T-RENAME"], [], ACCEPT_CSV,
            [{"price": 2.5, "item": "Bolt"}, {"price": None, "item": "Nut, hex"}],
            "--select", "price,name", "--rename", "name=item"),
    stats("accept-hard-stats", ["T-ACCEPT-HARD", "T-STATS-SHAPE", "T-STATS-TYPE", "T-STATS-MINMAX", "T-STATS-MEAN",
                                "T-STATS-COUNT"], [], ACCEPT_CSV,
          [col("name", "string", 2, 0), col("qty", "mixed", 2, 0), col("price", "number", 1, 1, 2.5, 2.5, 2.5)]),
    to_json("select-order", ["T-SELECT"], ["order"], "a,b,c\n1,2,3\n", [{"c": 3, "a": 1}], "--select", "c,a"),
    to_json("select-spaces", ["T-SELECT"], ["whitespace"], "a,b,c\n1,2,3\n", [{"c": 3, "a": 1}], "--select", " c , a"),
    to_csv("select-to-csv", ["T-SELECT"], ["order"], [{"a": 1, "b": 2, "c": 3}], "c,b\n3,2\n", "--select", "c,b"),
    to_json("select-no-header", ["T-SELECT", "T-NO-HEADER"], [], "1,2,3\n", [{"col3": 3}], "--no-header",
            "--select", "col3"),
    to_json("select-twice", ["T-SELECT-BAD", *ERR], ["duplicate"], "a,b\n1,2\n", 1, "--select", "a,a"),
    to_json("select-empty-name", ["T-SELECT-BAD"], ["empty"], "a,b\n1,2\n", 1, "--select", "a,,b"),
    to_json("select-unknown", ["T-SELECT-BAD"], [], "a,b\n1,2\n", 1, "--select", "a,z"),
    to_csv("select-unknown-to-csv", ["T-SELECT-BAD"], [], [{"a": 1}], 1, "--select", "b"),
    to_json("rename-one", ["T-RENAME"], [], "a,b\n1,2\n", [{"x": 1, "b": 2}], "--rename", "a=x"),
    to_json("rename-two", ["T-RENAME"], [], "a,b\n1,2\n", [{"x": 1, "y": 2}], "--rename", "a=x", "--rename", "b=y"),
    to_json("rename-first-equals", ["T-RENAME"], ["separator"], "a,b\n1,2\n", [{"x=y": 1, "b": 2}],
            "--rename", "a=x=y"),
    to_json("rename-unicode", ["T-RENAME"], ["unicode"], "a\n1\n", [{"名前": 1}], "--rename", "a=名前"),
    to_csv("rename-to-csv", ["T-RENAME"], [], [{"a": 1, "b": "x"}], "b,total\nx,1\n", "--select", "b,a",
           "--rename", "a=total"),
    to_json("rename-clash", ["T-RENAME-BAD", *ERR], ["duplicate"], "a,b\n1,2\n", 1, "--rename", "a=b"),
    to_json("rename-unknown", ["T-RENAME-BAD"], [], "a,b\n1,2\n", 1, "--rename", "z=y"),
    to_json("rename-unselected", ["T-RENAME-BAD"], [], "a,b\n1,2\n", 1, "--select", "a", "--rename", "b=y"),
    to_csv("rename-clash-to-csv", ["T-RENAME-BAD"], ["duplicate"], [{"a": 1, "b": 2}], 1, "--rename", "b=a"),
    stats("stats-types", ["T-STATS-TYPE", "T-STATS-SHAPE"], ["boundary"],
          "i,n,b,s,m,m2\n1,1,true,x,1,true\n2,2.5,false,y,007,1\n",
          [col("i", "integer", 2, 0, 1, 2, 1.5), col("n", "number", 2, 0, 1, 2.5, 1.75), col("b", "boolean", 2, 0),
           col("s", "string", 2, 0), col("m", "mixed", 2, 0), col("m2", "mixed", 2, 0)]),
    stats("stats-empty-column", ["T-STATS-TYPE", "T-STATS-COUNT"], ["empty"], "a,b\n,1\n,\n",
          [col("a", "empty", 0, 2), col("b", "integer", 1, 1, 1, 1, 1.0)]),
    stats("stats-blank-is-not-empty", ["T-STATS-COUNT", "T-STATS-TYPE"], ["whitespace"], "a,b\n ,1\n,2\n",
          [col("a", "string", 1, 1), col("b", "integer", 2, 0, 1, 2, 1.5)]),
    stats("stats-negative", ["T-STATS-MINMAX"], ["negative"], "x\n-9\n-10\n3\n", [col("x", "integer", 3, 0, -10, 3, -5.33)]),
    stats("stats-big", ["T-STATS-MINMAX"], ["big"], "x\n12345678901234567891\n9\n12345678901234567890\n",
          [col("x", "integer", 3, 0, 9, 12345678901234567891, 8230452600823045263.33)]),
    stats("stats-decimal-min-max", ["T-STATS-MINMAX"], ["negative"], "x\n-0.5\n-0.25\n10\n",
          [col("x", "number", 3, 0, -0.5, 10, 3.08)]),
    stats("stats-mean-half-up", ["T-STATS-MEAN"], ["rounding"], "a,b,c,d\n0.125,1.005,1,0.7\n,,0.25,0.7\n,,,0.7\n",
          [col("a", "number", 1, 2, 0.125, 0.125, 0.13), col("b", "number", 1, 2, 1.005, 1.005, 1.01),
           col("c", "number", 2, 1, 0.25, 1, 0.63), col("d", "number", 3, 0, 0.7, 0.7, 0.7)]),
    stats("stats-header-only", ["T-STATS-EMPTY"], ["empty"], "a,b\n", [col("a", "empty", 0, 0), col("b", "empty", 0, 0)]),
    stats("stats-no-records", ["T-STATS-EMPTY"], ["empty"], "", []),
    stats("stats-options", ["T-STATS-SHAPE"], ["order"], "z;a\n1;x\n", [col("col1", "mixed", 2, 0), col("col2", "string", 2, 0)],
          "--no-header", "--delimiter", ";"),
    stats("stats-bad-record", ["T-STATS-SHAPE"], [], "a,b\n1\n", 1),
]


def main() -> None:
    which = sys.argv[1:] or ["normal", "hard"]
    if "normal" in which:
        write(SUITE, "tabconv", answer(REF, "tabconv", NORMAL), seed=SEED)
    if "hard" in which:
        write(SUITE, "tabconv-hard", answer(REF, "tabconv", HARD), seed=SEED)


if __name__ == "__main__":
    main()
