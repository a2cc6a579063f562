"""Rendering: ``render()`` to an HTML fragment or page, themes, and exports (one module per format)."""
