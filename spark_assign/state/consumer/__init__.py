"""Consumer group generations in Delta: :class:`~.table.AssignmentTable`, what a rebalance takes
(:mod:`.request`), which groups it recomputes (:mod:`.changes`), how it computes the next generation (:mod:`.compute`), load-aware re-plans
(:mod:`.load`) and the SQL ``CALL`` bridge (:mod:`.sql`).
"""
