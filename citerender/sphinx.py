"""The Sphinx extension, where users configured it: ``extensions = ["citerender.sphinx"]``.

The implementation lives in :mod:`citerender.publish.sphinx`.
"""

from __future__ import annotations

from .publish.sphinx import setup

__all__ = ["setup"]
