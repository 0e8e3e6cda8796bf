"""The retrieval-quality harness behind ``locomo_quality``, ``memorybank_quality`` and ``crosslingual_quality``.

A dataset loader (:mod:`.locomo`, :mod:`.memorybank`) turns its files into :class:`.records.Haystack` records:
the session files of one store and the questions asked of it, each question's evidence as turn keys.
:func:`.harness.measure` builds one Alaya store per haystack, asks every question, ranks the same sessions with
the baselines (:mod:`.baselines`) and scores everything (:mod:`.scoring`); :func:`.rows.quality_rows` turns the
run into report rows. Nothing outside the loaders knows a dataset.
"""
