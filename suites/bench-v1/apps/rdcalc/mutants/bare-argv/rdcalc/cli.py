"""Command line for rdcalc."""
import sys

from rdcalc.parser import evaluate, format_number


def main(argv=None):
    args = sys.argv[1:] if argv is None else argv
    if len(args) < 2 or args[0] != "eval":
        print("usage: rdcalc eval EXPR")
        return 2
    print(format_number(evaluate(args[1])))
    return 0
