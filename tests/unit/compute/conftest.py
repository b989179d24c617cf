"""One local[2] SparkSession for every compute test in this process (Spark allows one JVM per process, and its
jars are fixed when it starts, so the session always carries the Kafka source jars)."""
from __future__ import annotations

import pytest

from . import data


@pytest.fixture(scope="session")
def spark():
    from kubectl_offsets.adapters.spark.session import SparkSettings, build_session

    session = build_session(SparkSettings(master="local[2]", needs_kafka=True,
                                          conf=(("spark.sql.shuffle.partitions", "2"),)))
    yield session
    session.stop()


@pytest.fixture(scope="session")
def recs():
    return data.records()


@pytest.fixture(scope="session")
def parquet_archive(recs, tmp_path_factory):
    return data.write_parquet(recs, str(tmp_path_factory.mktemp("archive") / "orders.parquet"))


@pytest.fixture(scope="session")
def json_archive(recs, tmp_path_factory):
    return data.write_json_lines(recs, str(tmp_path_factory.mktemp("archive-json") / "orders.json"))
