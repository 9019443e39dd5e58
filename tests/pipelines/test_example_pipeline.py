"""The example declarative pipeline (examples/mq_pipeline) run as the README says: a project
made with `spark-pipelines init`, the example's transformations in place of init's, and
`spark-pipelines run` in a subprocess of an activated environment, against an embedded queue
manager with the jobs' queues. The streaming table must hold every order put on the queue
exactly once, the materialised view the totals of exactly those orders; a second run adds
only the orders put since (the table's checkpoint and the Hive catalog carry over)."""
from __future__ import annotations

import json
import shutil
import subprocess
from collections import Counter, defaultdict
from pathlib import Path

import pytest

from support import PROJECT_ROOT, activated_environment, committed_parquet_rows, depth, explain, put_texts

pytestmark = pytest.mark.spark

EXAMPLE = Path(PROJECT_ROOT, "examples", "mq_pipeline", "transformations")
MQSC = Path(PROJECT_ROOT, "mqsc", "spark-mq.mqsc")
QUEUE = "SPARK.MQ.IN"
# The catalog the tables are registered in must outlive a run, or the second run finds the
# first one's table folders and refuses them (LOCATION_ALREADY_EXISTS): Hive's, in Derby.
RUN = ["spark-pipelines", "run", "--conf", "spark.sql.catalogImplementation=hive"]
RUN_SECONDS = 480


@pytest.fixture(scope="module")
def pipeline_qm(tmp_path_factory):
    from spark_mq.embedded import EmbeddedQueueManager
    with EmbeddedQueueManager(str(tmp_path_factory.mktemp("pipeline-qm")), name="QM1", mqsc=str(MQSC)) as qm:
        yield qm


@pytest.fixture
def pipeline_conn(pipeline_qm, ibmmq):
    connection = ibmmq.connect(pipeline_qm.name, pipeline_qm.channel, pipeline_qm.conn_name)
    yield connection
    connection.disconnect()


def orders(numbers) -> list[dict]:
    return [{"order_id": n, "customer": f"C{n % 5}", "amount": n * 1.25, "currency": "USD"} for n in numbers]


def make_project(where: Path, env: dict[str, str]) -> Path:
    done = subprocess.run(["spark-pipelines", "init", "--name", "orders"], cwd=where, env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, explain(done)
    project = where / "orders"
    for generated in (project / "transformations").iterdir():
        generated.unlink()
    for source in EXAMPLE.iterdir():
        if source.suffix in (".py", ".sql"):
            shutil.copy(source, project / "transformations" / source.name)
    return project


def run_pipeline(project: Path, env: dict[str, str]) -> None:
    done = subprocess.run(RUN, cwd=project, env=env, capture_output=True, text=True, timeout=RUN_SECONDS)
    assert done.returncode == 0, explain(done)
    assert "Run is COMPLETED" in done.stdout, explain(done)


def tables(project: Path) -> tuple[Counter, dict]:
    """(order_id -> how many rows, customer -> (orders, amount)) as the tables hold them."""
    import pyarrow.parquet as pq
    warehouse = project / "spark-warehouse"
    rows = committed_parquet_rows(warehouse / "orders")
    totals = {row["customer"]: (row["orders"], row["amount"])
              for row in pq.read_table(warehouse / "customer_totals").to_pylist()}
    return Counter(row["order_id"] for row in rows), totals


def expected_totals(put: list[dict]) -> dict:
    grouped: dict[str, list[float]] = defaultdict(list)
    for order in put:
        grouped[order["customer"]].append(order["amount"])
    return {customer: (len(amounts), round(sum(amounts), 2)) for customer, amounts in grouped.items()}


@pytest.mark.timeout(2 * RUN_SECONDS + 240)
def test_the_example_pipeline_runs_twice_exactly_once(pipeline_qm, pipeline_conn, tmp_path):
    env = activated_environment()
    env["SPARK_MQ_CONN_NAME"] = pipeline_qm.conn_name
    project = make_project(tmp_path, env)

    first = orders(range(100))
    put_texts(pipeline_conn, QUEUE, [json.dumps(order) for order in first])
    run_pipeline(project, env)
    assert tables(project) == (Counter(range(100)), expected_totals(first))
    assert depth(pipeline_conn, QUEUE) == 0

    second = orders(range(100, 150))
    put_texts(pipeline_conn, QUEUE, [json.dumps(order) for order in second])
    run_pipeline(project, env)
    assert tables(project) == (Counter(range(150)), expected_totals(first + second))
    assert depth(pipeline_conn, QUEUE) == 0
