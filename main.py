#!/usr/bin/env python3
"""Start QKV Visualizer from a source checkout: ``python main.py --help``."""
import sys

from qkv_gui.app import main

if __name__ == "__main__":
    sys.exit(main())
