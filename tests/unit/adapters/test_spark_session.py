"""Where the Spark driver listens: loopback for local[N] and for a master on this machine's loopback interface."""
from __future__ import annotations

import pytest

from kubectl_offsets.adapters.spark.session import SparkSettings, _base_conf


@pytest.mark.parametrize("master", ["local[*]", "local[2]", "spark://127.0.0.1:7077", "spark://localhost:7077"])
def test_a_driver_for_this_machine_binds_to_loopback(master):
    conf = _base_conf(SparkSettings(master=master))
    assert conf["spark.driver.bindAddress"] == conf["spark.driver.host"] == "127.0.0.1"


@pytest.mark.parametrize("master", ["spark://spark-master.example:7077", "k8s://https://10.0.0.1:6443", "yarn"])
def test_a_remote_cluster_gets_an_address_its_executors_can_reach(master):
    conf = _base_conf(SparkSettings(master=master))
    assert "spark.driver.bindAddress" not in conf and "spark.driver.host" not in conf
    assert "spark.sql.shuffle.partitions" not in conf  # a cluster's own default, or --spark-conf
