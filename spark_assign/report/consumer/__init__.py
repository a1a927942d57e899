"""The consumer group report's figures: the rows (:mod:`.data`), steps and follow-ups
(:mod:`.steps`), figures per step, group and member (:mod:`.metrics`) and load (:mod:`.load`,
:mod:`.load_charts`).
"""
