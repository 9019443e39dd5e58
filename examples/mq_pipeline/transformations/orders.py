"""A streaming table fed by an IBM MQ queue: each JSON order on SPARK.MQ.IN becomes one row,
exactly once (a message leaves the queue when the table has committed it).

The connection comes from the jobs' variables: SPARK_MQ_CONN_NAME (default
localhost(1414)), SPARK_MQ_QUEUE_MANAGER, SPARK_MQ_CHANNEL, SPARK_MQ_USER, SPARK_MQ_PASSWORD,
... `spark` is the pipeline's Spark Connect session; format("mq") runs in its Python
workers, which need spark-mq installed (PYSPARK_PYTHON)."""
from pyspark import pipelines as dp
from pyspark.sql import DataFrame

from spark_mq.jobs.cli import environment_options

QUEUE = "SPARK.MQ.IN"
ORDER = "order_id long, customer string, amount double, currency string"


@dp.table(comment=f"orders from the MQ queue {QUEUE}, one row per message")
def orders() -> DataFrame:
    messages = (spark.readStream.format("mq")  # noqa: F821 - `spark` is given by spark-pipelines
                .option("connName", "localhost(1414)").options(**environment_options())
                .option("queue", QUEUE).load())
    return messages.selectExpr(f"from_json(cast(payload as string), '{ORDER}') as o",
                               "message_id", "put_timestamp").select("o.*", "message_id", "put_timestamp")
