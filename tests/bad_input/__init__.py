"""The bad-input suite: every surface refuses malformed input cleanly.

How cases are counted: one pytest case per bad input (one ``pytest.param`` of
a table), per surface: ``test_engine.py`` (``spark_assign.core.assign``),
``test_scenario.py`` (``spark_assign.scenario.Scenario``),
``test_dataframe.py`` (``DataFrame.assign_partitions``), ``test_sql.py`` (the
SQL table functions, ``kafka_partition``, ``CALL``), ``test_state_table.py``
(``AssignmentTable``) and ``test_cli.py`` (``spark-assign``). Each case asserts

1. the exception type (``InvalidInputError``, ``SchemaError``,
   ``UnknownStrategyError``, ``StateTableError``; ``AnalysisException`` where
   docs/sql.md documents it; for the CLI exit status 2 and one line
   ``spark-assign: error: ...``);
2. that the message names the column or argument;
3. that nothing was written (no rows returned, no table folder created, the
   Delta version unchanged, no CLI output);
4. that no stack comes with it: ``str(error)`` holds no ``Traceback``,
   ``at org.apache`` nor ``Py4JJavaError``.

The ``test_*_stderr`` tests (one per Spark surface) run a batch of these
cases again in a child process (``python -m tests.bad_input.child SURFACE``,
a fresh ``local_session``) and check what each case wrote to the process's
stderr; they are not counted as bad-input cases. Cases the product still gets
wrong are ``xfail(strict=True)`` with the fix they need in the reason.
"""
