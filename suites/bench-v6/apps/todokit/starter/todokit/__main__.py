import sys

from todokit.cli import main

sys.exit(main())
