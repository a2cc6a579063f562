"""Evaluating datasets of answers: metric definitions that eval teams publish, beside the project's
own. Today: ALCE's citation recall and precision (:mod:`.alce`), as ALCE's ``eval.py`` computes
them; the dataset runner itself (``check-dataset``) still lives in :mod:`citerender.publish`."""
