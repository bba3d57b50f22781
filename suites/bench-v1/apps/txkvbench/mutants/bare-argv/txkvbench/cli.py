"""Command line for txkvbench."""
import sys

from txkvbench.engine import CommandError, Engine
from txkvbench.script import run_script
from txkvbench.storage import Storage


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 4 or args[0] != "--db" or args[2] != "exec":
        print("usage: txkvbench --db FILE exec SCRIPT")
        return 2
    storage = Storage(args[1])
    try:
        run_script(Engine(storage), args[3], print)
    except CommandError as e:
        print(f"ERR {e}", file=sys.stderr)
        return 1
    finally:
        storage.close()
    return 0
