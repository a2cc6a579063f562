"""The syntax of citation markers: the format, the values parsing yields, escapes, the scanner that
reads every dialect, and the guide's API. Depends on nothing else in citerender."""
