"""tabconv's rows of the shared edge classes (issue #30), answered by the reference in gen_v5.py.

- ``line_end``: a CRLF right after a closing quote ends the record ("records end at a line break (LF or CRLF)
  outside quotes"; "after the closing quote must come the delimiter or the end of the record"), from a file and
  through stdin; ``stats`` (hard) reads a BOM, CRLF and a missing last line break on both input paths.
- ``empty_output``: a lone empty field is written as an empty line, not ``""`` (quoted "when it contains the
  delimiter, a ``"`` or a line break, and only then"); an empty array prints nothing, also through stdin.
- ``unicode_digit``: integers and decimals are ASCII digits (``-?(0|[1-9][0-9]*)``): ``1٣``, ``１２``, ``²`` stay
  strings, in to-json and in stats' types.
- ``example``: the prompt's own type examples verbatim (``007``, ``+5``, `` 5``, ``1e3``, ``.5``, ``1,000``,
  ``True``, ``NaN`` stay strings; ``12345678901234567890`` exact; ``2.50`` -> ``2.5``, ``3.0``, ``0.000001`` ->
  ``1e-06``, ``é``; to-csv ``1.50`` -> ``1.5``, ``1e-06``).
- ``unicode_space``: header names and fields are taken exactly as written, Unicode spaces included (a header
  name of spaces is not empty; a field of spaces is not null, `` 5`` is not a number).
- ``error_reach``: a bad ``--delimiter``, a missing file and invalid CSV on every command (to-csv, stats), and
  no ``--output`` file after an error of to-csv.

Left out (the prompt leaves it open): ``--select`` names framed by a no-break space or a tab (the prompt says
"spaces around each name are ignored"; the reference strips every Unicode space); a quoted CRLF inside a field
read through stdin (a text-mode stdin turns it into LF).
"""
from __future__ import annotations

from typing import Any

from edges import _step


def _row(rid: str, req: list[str], edges: list[str], *steps: dict[str, Any],
         files_in: dict[str, str] | None = None) -> dict[str, Any]:
    r: dict[str, Any] = {"id": rid, "req": req, "edges": edges, "steps": list(steps)}
    if files_in:
        r["files_in"] = files_in
    return r


def _err(argv: list[str], **kw: Any) -> dict[str, Any]:
    return _step(argv, "any", exit=1, err="error:", **kw)


CSV, JSON = "{dir}/in.csv", "{dir}/in.json"
CRLF_QUOTED = 'a,b\r\n"x",1\r\n"y","z"\r\n"w",2'
CRLF_QUOTED_OUT = '[\n  {\n    "a": "x",\n    "b": 1\n  },\n  {\n    "a": "y",\n    "b": "z"\n  },\n  {\n    "a": "w",\n    "b": 2\n  }\n]\n'
EXAMPLES_CSV = 'a,b,c,d,e,f,g,h,i\n007,+5, 5,1e3,.5,"1,000",True,NaN,12345678901234567890\n'
STATS_CSV = "n,s\n1,x\n2.5,\n"

TABCONV = [
    # line_end: a CRLF right after a closing quote (file and stdin), the header's quotes too
    _row("crlf-after-quote", ["T-RECORDS", "T-QUOTED"], ["line_end"],
         _step(["to-json", CSV], stdout=CRLF_QUOTED_OUT), files_in={CSV: CRLF_QUOTED}),
    _row("crlf-after-quote-stdin", ["T-RECORDS", "T-QUOTED", "T-STDIN"], ["line_end"],
         _step(["to-json", "-"], stdin=CRLF_QUOTED, stdout=CRLF_QUOTED_OUT)),
    _row("crlf-after-quoted-header", ["T-RECORDS", "T-QUOTED"], ["line_end"],
         _step(["to-json", CSV]), files_in={CSV: '"a","b, c"\r\n1,"x"\r\n'}),
    _row("crlf-after-quote-no-header", ["T-RECORDS", "T-QUOTED"], ["line_end"],
         _step(["to-json", CSV, "--no-header"]), files_in={CSV: '"x"\r\n"y"\r\n'}),
    # empty_output: a lone empty field is an empty line; an empty array prints nothing (stdin, --output)
    _row("csv-lone-empty-field", ["T-CSV-QUOTING", "T-CSV-VALUES"], ["empty_output"],
         _step(["to-csv", JSON], stdout="a\n\n\nx\n"), files_in={JSON: '[{"a": null}, {"a": ""}, {"a": "x"}]'}),
    _row("csv-lone-empty-only", ["T-CSV-QUOTING", "T-CSV-VALUES"], ["empty_output"],
         _step(["to-csv", "-"], stdin='[{"a": null}]', stdout="a\n\n")),
    _row("csv-empty-array-stdin", ["T-CSV-EMPTY"], ["empty_output"],
         _step(["to-csv", "-"], stdin="[]\n", stdout="")),
    _row("csv-empty-array-output", ["T-CSV-EMPTY", "T-OUTPUT"], ["empty_output"],
         _step(["to-csv", JSON, "--output", "{dir}/out.csv"], stdout="", files={"{dir}/out.csv": {"text": ""}}),
         files_in={JSON: "[]"}),
    # unicode_digit: only ASCII digits make a number
    _row("unicode-digits-stay-strings", ["T-TYPE-INT", "T-TYPE-DEC", "T-TYPE-STRING"], ["unicode_digit"],
         _step(["to-json", CSV]), files_in={CSV: "a,b,c,d,e,f\n1٣,１２,²,٣,1.٣,-٠\n"}),
    # unicode_space: header names and fields exactly as written
    _row("unicode-spaces-kept", ["T-HEADER", "T-FIELD-EXACT"], ["unicode_space"],
         _step(["to-json", CSV]), files_in={CSV: " a ,b\u00a0,\u3000,c\n\u00a05,\u3000,5\u2003, \u00a0\n"}),
    # example: the prompt's own examples, verbatim
    _row("prompt-string-examples", ["T-TYPE-STRING", "T-TYPE-INT"], ["example"],
         _step(["to-json", CSV]), files_in={CSV: EXAMPLES_CSV}),
    _row("prompt-number-examples", ["T-JSON-FORMAT", "T-TYPE-DEC"], ["example"],
         _step(["to-json", CSV], stdout='[\n  {\n    "a": 2.5,\n    "b": 3.0,\n    "c": 1e-06,\n    "d": "é"\n  }\n]\n'),
         files_in={CSV: "a,b,c,d\n2.50,3.0,0.000001,é\n"}),
    _row("prompt-to-csv-examples", ["T-CSV-VALUES", "T-CSV-QUOTING"], ["example"],
         _step(["to-csv", JSON], stdout='a,b,c,d\n1.5,1e-06,12345678901234567890,"1,000"\n'),
         files_in={JSON: '[{"a": 1.50, "b": 1e-06, "c": 12345678901234567890, "d": "1,000"}]'}),
    # error_reach: every error of the prompt on to-csv too, and no --output file after it
    _row("to-csv-delimiter-bad-every-form", ["T-DELIM-BAD", "T-ERR-NO-OUTPUT"], ["error_reach"],
         _err(["to-csv", JSON, "--delimiter", ""]), _err(["to-csv", JSON, "--delimiter", "::"]),
         _err(["to-csv", JSON, "--delimiter", "Tab", "--output", "{dir}/out.csv"],
              files={"{dir}/out.csv": {"absent": True}}),
         files_in={JSON: '[{"a": 1}]'}),
    _row("to-json-bad-delimiter-no-output", ["T-DELIM-BAD", "T-ERR-NO-OUTPUT"], ["error_reach"],
         _err(["to-json", CSV, "--delimiter", "::", "--output", "{dir}/out.json"],
              files={"{dir}/out.json": {"absent": True}}),
         files_in={CSV: "a\n1\n"}),
]


def _stats_forms() -> list[dict[str, Any]]:
    """stats through stdin and a file, with a BOM, CRLF and no final line break: each the same summary."""
    req = ["T-STATS-SHAPE"]
    plain = _step(["stats", CSV], "json")
    return [
        _row("stats-bom-stdin", req, ["line_end"], _step(["stats", "-"], "json", stdin="\ufeff" + STATS_CSV)),
        _row("stats-bom-file", req, ["line_end"], plain, files_in={CSV: "\ufeff" + STATS_CSV}),
        _row("stats-crlf-stdin", req, ["line_end"], _step(["stats", "-"], "json", stdin=STATS_CSV.replace("\n", "\r\n"))),
        _row("stats-no-final-newline", req, ["line_end"], plain, files_in={CSV: STATS_CSV[:-1]}),
        _row("to-json-select-bom-stdin", ["T-SELECT"], ["line_end"],
             _step(["to-json", "-", "--select", "s"], stdin="\ufeff" + STATS_CSV)),
    ]


TABCONV_HARD = [
    *_stats_forms(),
    _row("stats-unicode-digits", ["T-STATS-TYPE"], ["unicode_digit"],
         _step(["stats", CSV], "json"), files_in={CSV: "x,y\n١٢,1\n３,２\n"}),
    # error_reach: stats answers every input error as to-json does
    _row("stats-delimiter-bad", ["T-STATS-SHAPE"], ["error_reach"],
         _err(["stats", CSV, "--delimiter", "::"]), _err(["stats", CSV, "--delimiter", ""]),
         _err(["stats", CSV, "--delimiter", "TAB"]), files_in={CSV: "a\n1\n"}),
    _row("stats-input-errors", ["T-STATS-SHAPE"], ["error_reach"],
         _err(["stats", "{dir}/nope.csv"]), _err(["stats", "-"], stdin='a,b\n1,"x\n'),
         _err(["stats", CSV]), files_in={CSV: "a,a\n1,2\n"}),
]

ROWS: dict[str, list[dict[str, Any]]] = {"tabconv": TABCONV, "tabconv-hard": TABCONV_HARD}
