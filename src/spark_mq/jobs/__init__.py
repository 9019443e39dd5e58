"""What the spark-submit jobs in jobs/ are made of: each job there is an argparse CLI that
calls into this package, so a job needs no sys.path edits and spark-submit no --py-files.

    cli            argument groups (connection, embedded queue manager, trigger, more
                   connector options), argparse types, and `run`: exit status and clear errors
    job_errors     JobError (a problem the user can fix) and `explain` (the line to print)
    queue_manager  the given queue manager, or an embedded one started for a local run;
                   a 2085's hint in spark-mq-qmgr's words
    plain_mq       a plain ibmmq connection on the driver: putting messages, queue depths
    job_session    the job's SparkSession with the "mq" source registered
    streaming      triggers, and running streaming queries to their end
    job_progress   a line per micro-batch from Spark's query progress, rows, rates and
                   the queue's depth the reader reports
    job_text       text by each message's own CCSID (requireText), what --help says of it,
                   and the summary line for messages moved because they are not text
    quickstart, queue_to_files, files_to_queue, request_reply_bridge
                   the pipelines of the jobs of the same names

Importing this package imports neither Spark nor ibmmq; the modules that need them import
them when called.
"""
