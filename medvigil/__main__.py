import sys

from medvigil.cli import main

sys.exit(main())
