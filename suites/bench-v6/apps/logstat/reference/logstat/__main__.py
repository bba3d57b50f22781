import sys

from logstat.cli import main

sys.exit(main())
