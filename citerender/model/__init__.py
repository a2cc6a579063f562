"""The model-facing side and answer checks: prompt instructions, the quality report, ``check``."""
