"""Command line: python3 -m txkvbench --db FILE exec 'SET x 1; BEGIN; ...'"""
from __future__ import annotations

import argparse
import sys

from txkvbench.engine import CommandError, Engine
from txkvbench.script import run_script
from txkvbench.storage import Storage

COMMANDS = """statements (separated by ';'):
  SET k v      set a key             GET k       print the value or NULL
  DELETE k     remove a key          COUNT       print the number of keys
  KEYS         print sorted keys     INCR k [n]  add n (default 1), print the result
  BEGIN        open a (nested) transaction
  ROLLBACK     undo the innermost transaction (NO TRANSACTION if none)
  COMMIT       merge the innermost transaction into its parent (NO TRANSACTION if none)
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="txkvbench", description="Transactional key-value store with nested transactions.",
                                epilog=COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", default="txkv.db", help="SQLite file holding committed data (default: txkv.db)")
    sub = p.add_subparsers(dest="cmd", required=True)
    ex = sub.add_parser("exec", help="run a script of ';'-separated statements",
                        epilog=COMMANDS, formatter_class=argparse.RawDescriptionHelpFormatter)
    ex.add_argument("script")
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    storage = Storage(args.db)
    try:
        run_script(Engine(storage), args.script, print)
    except CommandError as e:
        print(f"ERR {e}", file=sys.stderr)
        return 1
    finally:
        storage.close()
    return 0
