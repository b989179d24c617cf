"""One local[2] SparkSession for every compute test in this process (Spark allows one JVM per process, and its
jars are fixed when it starts, so the session always carries the Kafka source jars)."""
from __future__ import annotations

import pytest

from . import data
from .session import make_spark


@pytest.fixture(scope="session")
def spark():
    session = make_spark()
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
