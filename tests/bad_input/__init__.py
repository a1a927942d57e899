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

The Spark surfaces' cases (DataFrame, SQL, state) run in one child process
per surface (``python -m tests.bad_input.child SURFACE KEY...``, a fresh
``local_session``, file descriptor 2 pointed at a file before Spark starts),
which runs each case's check and captures what the case wrote to stderr; each
pytest case asserts the child's report for it, so every one of them also
checks point 4 on stderr (plus no ``ERROR Executor`` line). See
``tests/bad_input/stderr.py``. Cases the product still gets wrong are
``xfail(strict=True)`` with the fix they need in the reason.
"""
