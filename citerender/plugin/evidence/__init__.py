"""Does the cited passage support the claim? The checks the plugin runs with ``evidence=True``
(:mod:`.support`), the claims they judge (:mod:`.claims`), and the language analysis they need —
words and stems in any script (:mod:`.words`), numbers, amounts, dates and durations
(:mod:`.quantities`). Not marker syntax, so not in :mod:`citerender.syntax`."""
