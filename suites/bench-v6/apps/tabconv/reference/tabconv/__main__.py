import sys

from tabconv.cli import main

sys.exit(main())
