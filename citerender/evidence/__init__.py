"""Does the cited passage support the claim? Pure functions of text and passages, below the
plugin (whose ``citerender_claims`` and ``citerender_support`` rules call them): words and stems in
any script (:mod:`.words`), quantities (:mod:`.quantities`), claims and their evidence
(:mod:`.claims`), and the checks that judge them (:mod:`.support`)."""
