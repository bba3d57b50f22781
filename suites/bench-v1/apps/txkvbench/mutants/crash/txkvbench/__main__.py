import sys

from txkvbench.cli import main

setup_logging()
sys.exit(main(sys.argv))
