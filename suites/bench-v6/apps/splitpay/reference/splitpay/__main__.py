import sys

from splitpay.cli import main

sys.exit(main())
