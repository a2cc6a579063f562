"""Evaluating datasets of answers: ``check-dataset`` (:mod:`.check_dataset`) reads them
(:mod:`.datasets`), checks each (:mod:`.records`) and measures them by citerender's definitions
(:mod:`.metrics`) and, for ALCE's result files, by ALCE's eval.py (:mod:`.alce`, :mod:`.alce_run`)."""
