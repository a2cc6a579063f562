"""Publishing: static site builds, host transforms (MkDocs, Sphinx), web helpers, streaming."""
