import sys

from invtrack.cli import main

sys.exit(main())
