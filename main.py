#!/usr/bin/env python3
"""Start QKV Visualizer from a source checkout: ``python main.py --help``."""
import sys

from qkv_gui.app import main  # first: it keeps numpy's BLAS to one thread before numpy loads (qkv_gui/blas.py)

if __name__ == "__main__":
    sys.exit(main())
