"""The command line: to-json, to-csv and stats; input from a file or stdin, output to stdout or --output."""
from __future__ import annotations

import argparse
import json
import sys

from tabconv import TabconvError
from tabconv.columns import plan
from tabconv.convert import columns_of, header_and_rows, to_objects, to_records
from tabconv.csvio import read_records, write_records
from tabconv.stats import summarize


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tabconv", description="Convert between CSV and JSON.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="{to-json,to-csv,stats}")
    to_json = sub.add_parser("to-json", help="CSV -> a JSON array of objects")
    to_csv = sub.add_parser("to-csv", help="a JSON array of objects -> CSV")
    stats = sub.add_parser("stats", help="a JSON summary of each column of a CSV file")
    for p in (to_json, to_csv, stats):
        p.add_argument("input", metavar="INPUT", help="a file, or - for standard input")
        p.add_argument("--delimiter", default=",", metavar="C", help="one character, or 'tab' (default ',')")
    for p in (to_json, stats):
        p.add_argument("--no-header", action="store_true", help="every record is data; keys col1, col2, ...")
    for p in (to_json, to_csv):
        p.add_argument("--output", metavar="FILE", help="write here instead of printing")
        p.add_argument("--select", metavar="NAMES", help="comma-separated columns to keep, in this order")
        p.add_argument("--rename", metavar="OLD=NEW", action="append", default=[], help="rename a column")
    return parser


def delimiter_of(value: str) -> str:
    if value == "tab":
        return "\t"
    if len(value) != 1:
        raise TabconvError(f"--delimiter: expected one character or 'tab', got {value!r}")
    return value


def read_input(path: str) -> str:
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
    except OSError as e:
        raise TabconvError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise TabconvError(f"{path}: not UTF-8") from None
    return text.removeprefix("\ufeff")


def csv_input(args: argparse.Namespace) -> tuple[list[str], list[list[str]]]:
    records = read_records(read_input(args.input), delimiter_of(args.delimiter))
    return header_and_rows(records, header=not args.no_header)


def run_to_json(args: argparse.Namespace) -> str:
    keys, rows = csv_input(args)
    pairs = plan(keys, args.select, args.rename)
    index = {k: i for i, k in enumerate(keys)}
    picked = [[row[index[src]] for src, _ in pairs] for row in rows]
    return json.dumps(to_objects([dst for _, dst in pairs], picked), indent=2, ensure_ascii=False) + "\n"


def run_to_csv(args: argparse.Namespace) -> str:
    delimiter = delimiter_of(args.delimiter)
    try:
        objects = json.loads(read_input(args.input))
    except ValueError as e:
        raise TabconvError(f"{args.input}: invalid JSON ({e})") from None
    pairs = plan(columns_of(objects), args.select, args.rename)
    records = to_records(objects, [src for src, _ in pairs], [dst for _, dst in pairs])
    return write_records(records, delimiter)


def run_stats(args: argparse.Namespace) -> str:
    keys, rows = csv_input(args)
    return json.dumps(summarize(keys, rows), indent=2, ensure_ascii=False) + "\n"


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        text = {"to-json": run_to_json, "to-csv": run_to_csv, "stats": run_stats}[args.command](args)
        if getattr(args, "output", None):
            try:
                with open(args.output, "w", encoding="utf-8", newline="") as f:
                    f.write(text)
            except OSError as e:
                raise TabconvError(f"cannot write {args.output}: {e.strerror}") from None
        else:
            sys.stdout.write(text)
    except TabconvError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0
