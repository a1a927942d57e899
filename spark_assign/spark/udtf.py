"""What the SQL table functions that answer per partition share: gathering the partition's rows.

Spark hands a Python UDTF's ``eval`` either Arrow record batches (the Arrow eval type,
``spark_assign.register``'s default) or one ``Row`` at a time (the row-at-a-time fallback); a
handler that answers once it has seen its whole partition (``terminate``) gathers both as Arrow,
and answers in the form it was given.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator, List, Optional

import pyarrow as pa

__all__ = ["GatheringHandler"]


class GatheringHandler:
    """Gathers a partition's rows as Arrow (``gathered``) and yields an answer in the caller's form
    (``answer``). ``RECEIVED``: the columns a row-at-a-time call is read into."""

    RECEIVED: pa.Schema

    def __init__(self) -> None:
        self._batches: List[pa.RecordBatch] = []
        self._arrow = False

    def eval(self, table: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(table, pa.RecordBatch):
            self._arrow = True
            if table.num_rows:
                self._batches.append(table.select(self.RECEIVED.names))
        else:                                           # row-at-a-time UDTF: one Row per call
            row = table.asDict(recursive=True)
            self._batches.append(pa.RecordBatch.from_pylist([{k: row[k] for k in self.RECEIVED.names}],
                                                            schema=self.RECEIVED))

    def gathered(self) -> Optional[pa.Table]:
        """Every row received, or None for none."""
        return pa.Table.from_batches(self._batches).combine_chunks() if self._batches else None

    def answer(self, batches: Iterable[pa.RecordBatch]) -> Iterator[Any]:
        """``batches`` as the caller takes them: the batches themselves, or row tuples."""
        for batch in batches:
            if self._arrow:
                yield batch
            else:
                yield from zip(*(column.to_pylist() for column in batch.columns))
