import sys

from rdcalc.cli import run

sys.exit(run(sys.argv[1:]))
