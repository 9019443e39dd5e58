"""python -m spark_mq.embedded --data-dir DIR: the queue-manager process's entry point. What
the process does, its arguments and its start checks are server_process.py's, which
`spark-mq-qmgr start` (shell/lifecycle.py) runs as well."""
from __future__ import annotations

import sys

from spark_mq.embedded.server_process import main

if __name__ == "__main__":
    sys.exit(main())
