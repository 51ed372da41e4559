"""Differential fuzzing: generated conversations, answered by the implementation and by the reference core.

The settings (:mod:`.settings`) import no Hypothesis; the phase (:mod:`.phase`) and its report (:mod:`.report`)
do, so a run that fuzzes nothing imports neither.
"""
