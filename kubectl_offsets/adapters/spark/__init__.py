"""PySpark jobs for ``kubectl offsets compute``: the only package that imports pyspark, always lazily.

- ``session.py``: the SparkSession (local by default, ``--master`` passes through) and the Kafka connector jars.
- ``sources.py``: a live topic (Spark's Kafka source) or archived data -> one frame with the Kafka source's columns.
- ``jobs.py``: per-partition aggregations (positions at a time, poison records, first match, Connect's offsets
  topic). Every job aggregates on the executors and brings back one small row per partition (or per poison record /
  per Connect key), never the raw records, so the driver's memory does not grow with the data.
"""
