"""The compute questions the cluster tests ask, and a runner that asks them on a Spark master in its own process.

Spark allows one SparkContext per process and the test process already runs the local one (the `spark` fixture),
so the cluster's session lives in a child process:

    python -m tests.integration.compute.cluster_questions SPEC.json

SPEC: {"master", "jars_dir", "conf": [[k, v]...], "bootstrap", "topic", "archive"}. It prints one JSON object:
the answers ({question: offsets document}), the master the session ran on and the executors that registered
(ids, hosts), so the test can tell the work ran in executor JVMs on the workers, not in the driver.
"""
from __future__ import annotations

import json
import sys

from kubectl_offsets.adapters.spark.jobs import PoisonCriteria
from kubectl_offsets.adapters.spark.sources import Archive, LiveTopics
from kubectl_offsets.connect import ConnectorKind
from kubectl_offsets.core.compute import positions as c
from kubectl_offsets.model import OffsetsDocument

from . import data

AT_MS = data.BASE_MS + 95_000
FIND = "key = 'key-3' AND try_cast(get_json_object(value, '$.amount') AS DOUBLE) > 30"


def current_for(topic: str) -> OffsetsDocument:
    """Where a sink connector stands: partition 0 at 14, partition 2 at 1 (partition 1 from its start)."""
    return OffsetsDocument.from_json({"offsets": [
        {"partition": {"kafka_topic": topic, "kafka_partition": p}, "offset": {"kafka_offset": o}}
        for p, o in ((0, 14), (2, 1))]})


def questions(bootstrap: str, topic: str, archive: str) -> dict[str, c.ComputeRequest]:
    """--to-datetime, --skip-poison --invalid json (from the connector's position) and --find, on the archive
    and on the live topic (where --to-datetime is also asked as a scan, --scan, since the index needs no Spark)."""
    live, parquet = LiveTopics(bootstrap, (topic,)), Archive(archive, "parquet")
    asked = {}
    for name, source, tp in (("archive", parquet, "orders"), ("live", live, topic)):
        asked[f"{name} to-datetime"] = c.ComputeRequest(source, c.Operation.TO_DATETIME, at_ms=AT_MS,
                                                        scan=name == "live")
        asked[f"{name} skip-poison"] = c.ComputeRequest(source, c.Operation.SKIP_POISON, current=current_for(tp),
                                                        poison=PoisonCriteria(invalid_json=True))
        asked[f"{name} find"] = c.ComputeRequest(source, c.Operation.FIND, find=FIND, kind=ConnectorKind.MIRROR_SOURCE,
                                                 source_alias="east")
    return asked


def answer(request: c.ComputeRequest, spark) -> dict:
    result = c.compute(request, spark=lambda needs_kafka: spark)
    assert result.method == "scan", result.method
    return {"document": result.document.to_json(),
            "poison": None if result.poison is None else [[r.partition, r.offset] for r in result.poison.records]}


def main(spec_path: str) -> None:
    from kubectl_offsets.adapters.spark.session import SparkSettings, build_session

    spec = json.loads(open(spec_path).read())
    spark = build_session(SparkSettings(master=spec["master"], jars_dir=spec["jars_dir"], needs_kafka=True,
                                        conf=tuple(tuple(kv) for kv in spec["conf"])))
    try:
        answers = {name: answer(request, spark)
                   for name, request in questions(spec["bootstrap"], spec["topic"], spec["archive"]).items()}
        print(json.dumps({"master": spark.sparkContext.master, "executors": _executor_ids(spark),
                          "answers": answers}))
    finally:
        spark.stop()


def _executor_ids(spark) -> list[str]:
    """The executors registered with the driver (SparkContext.getExecutorIds leaves the driver out)."""
    ids = spark.sparkContext._jsc.sc().getExecutorIds()
    return sorted(str(ids.apply(i)) for i in range(ids.size()))


if __name__ == "__main__":
    main(sys.argv[1])
