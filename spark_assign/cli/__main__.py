"""``python -m spark_assign.cli``: the same as the ``spark-assign`` command."""

import sys

from . import main

sys.exit(main())
