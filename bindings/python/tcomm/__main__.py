# SPDX-License-Identifier: BSD-3-Clause
"""python3 -m tcomm: the harness (python3 -m tcomm.bench)."""
from .bench import main

main()
