"""Sources: the registry of citable units, read from data files or model-facing text, presented
to the model as tool output or injected context, and the URL policy for their links."""
