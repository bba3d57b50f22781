import sys

from libloan.cli import main

sys.exit(main())
