"""Does the cited passage support the claim? Language analysis and support scoring as pure
functions of text and passages, below the plugin: words and stems in any script (:mod:`.words`),
numbers, amounts, dates and durations (:mod:`.quantities`), claims, the words each citation group
closes and the evidence it cites (:mod:`.claims`), and the checks that judge them (:mod:`.support`).

The plugin's core rules ``citerender_claims`` and ``citerender_support`` find the claims in the
token stream and judge them with these; checks over whole answers live in :mod:`citerender.model`.
Not marker syntax, so not in :mod:`citerender.syntax`; no tokens and no document state here."""
