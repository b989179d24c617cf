"""The SparkSession compute tests share: local[2] (a 2-core machine shared with others), Kafka source jars on the
classpath from the start (a JVM takes spark.jars only once), two shuffle partitions (the aggregates are tiny)."""
from __future__ import annotations


def make_spark():
    from kubectl_offsets.adapters.spark.session import SparkSettings, build_session

    return build_session(SparkSettings(master="local[2]", needs_kafka=True,
                                       conf=(("spark.sql.shuffle.partitions", "2"),)))
