# SPDX-License-Identifier: BSD-2-Clause
"""A program of tools/ (a Python script without a .py suffix) as a module,
for the tests that call its functions."""

import importlib.machinery
import importlib.util
import sys
from pathlib import Path

TOOLS = Path(__file__).resolve().parent.parent.parent / "tools"


def load_tool(name, module_name=None):
    """tools/NAME, imported under module_name (NAME with '-' as '_')."""
    sys.dont_write_bytecode = True      # no tools/__pycache__ in the tree
    module_name = module_name or name.replace("-", "_")
    loader = importlib.machinery.SourceFileLoader(module_name,
                                                  str(TOOLS / name))
    spec = importlib.util.spec_from_loader(module_name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module
