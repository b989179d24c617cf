"""An in-memory cluster for the unit tests: the API server, Kafka Connect and Strimzi's operator, in one process and
in virtual time.

Strimzi's behaviour is not written a third time: the operator is the test environment's emulator
(``tests/env/emulator``: the connector reconcile, the offsets annotations, the ConfigMaps, the Warning conditions,
the status diff), run event by event over an in-memory API server (``apiserver.py``) and an in-memory Connect
(``connect.py``) instead of a real kube-apiserver and a real worker. What is new here is only what those two real
components do: resource versions, JSON Patch with ``test``, 409 and 422, watches, and Connect's REST answers.

    cluster = Cluster()
    cluster.add_sink("my-sink", offsets={("orders", 0): 10})
    kube = cluster.kube          # what the plugin gets instead of adapters.kube.Kube
    operations.alter_offsets(kube, TargetSpec("my-sink"), ...)

Time is virtual (``cluster.clock``): a wait of the plugin lets the operator, Connect and the periodic pass run until
the wait is answered or its timeout passes, without sleeping.
"""

from .cluster import Cluster, Fault

__all__ = ["Cluster", "Fault"]
