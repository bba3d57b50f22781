import sys

from rdcalc.cli import main

sys.exit(main())
