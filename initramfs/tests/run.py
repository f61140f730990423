#!/usr/bin/env python3
"""Runs every initramfs/tests/test_*.py (unittest, no VM) and ends with the
`N passed, N failed, N skipped` line tests/run-suites.sh reads."""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))

if __name__ == "__main__":
    suite = unittest.defaultTestLoader.discover(HERE, pattern="test_*.py", top_level_dir=HERE)
    res = unittest.TextTestRunner(verbosity=2).run(suite)
    failed = len(res.failures) + len(res.errors)
    skipped = len(res.skipped)
    print(f"{res.testsRun - failed - skipped} passed, {failed} failed, {skipped} skipped")
    sys.exit(1 if failed else 0)
