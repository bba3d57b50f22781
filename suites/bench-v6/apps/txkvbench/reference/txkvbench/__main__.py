import sys

from txkvbench.cli import main

sys.exit(main())
