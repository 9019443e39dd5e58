"""The example declarative pipeline (examples/mq_pipeline) run as the manual's "A declarative
pipeline fed by a queue" (docs/connect-and-pipelines.md) says, by its own blocks
(tests/doc_blocks.py runs them in a sandbox: an embedded queue manager started with the jobs'
queues, a project made by `spark-pipelines init` with the example's files in place of init's,
then two orders put and `spark-pipelines run` twice in a row, then the view queried with
spark-sql).

Afterwards the tables must hold exactly what was put: the streaming table each order of each
run once (a message the first run had not taken off the queue would come back in the second),
the materialised view the totals of exactly those rows."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

import doc_blocks
from support import committed_parquet_rows

pytestmark = pytest.mark.spark

THIS_TEST = "tests/pipelines/test_example_pipeline.py"
PAGE = "docs/connect-and-pipelines.md"
CHAIN_SECONDS = 900
DOCUMENTED_ORDERS = {1: ("C1", 12.5), 2: ("C2", 7.25)}     # what the page's block puts, each run
RUNS = 2                                               # the block runs twice (it is not `once`)


def the_chain() -> doc_blocks.Chain:
    [chain] = [chain for chain in doc_blocks.chains(PAGE) if chain.run_by == THIS_TEST]
    code = "\n".join(block.code for block in chain.blocks)
    assert "spark-pipelines init" in code and "examples/mq_pipeline/transformations" in code, code
    assert "spark-pipelines run" in code, code
    return chain


def tables(project: Path) -> tuple[Counter, dict]:
    """(order_id -> rows, customer -> (orders, amount)) as the tables hold them."""
    import pyarrow.parquet as pq
    warehouse = project / "spark-warehouse"
    rows = committed_parquet_rows(warehouse / "orders")
    totals = {row["customer"]: (row["orders"], row["amount"])
              for row in pq.read_table(warehouse / "customer_totals").to_pylist()}
    return Counter(row["order_id"] for row in rows), totals


@pytest.mark.timeout(CHAIN_SECONDS + 60)
def test_the_documented_pipeline_runs_twice_and_the_tables_hold_each_message_once(tmp_path):
    done = doc_blocks.run_chain(the_chain(), tmp_path, timeout=CHAIN_SECONDS)
    told = (f"exit {done.returncode}\n--- stdout ---\n{done.stdout[-6000:]}"
            f"\n--- stderr ---\n{done.stderr[-6000:]}")
    assert done.returncode == 0 and "=== all blocks ran" in done.stdout, told
    assert done.stdout.count("Run is COMPLETED") == RUNS, told

    orders, totals = tables(tmp_path / "work" / "orders")
    assert orders == Counter({order_id: RUNS for order_id in DOCUMENTED_ORDERS})
    assert totals == {customer: (RUNS, round(RUNS * amount, 2))
                      for customer, amount in DOCUMENTED_ORDERS.values()}
    # and spark-sql, the page's last block, saw the same view
    assert "C1\t2\t25.0" in done.stdout and "C2\t2\t14.5" in done.stdout, told
