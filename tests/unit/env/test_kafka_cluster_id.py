"""The KRaft cluster id the test environment formats storage with (tests/env/kafka.py)."""
import base64

from tests.env import kafka


def test_cluster_ids_never_start_with_a_dash():
    # A leading '-' makes `kafka-storage format -t -xxxx` read the id as an option (about 1 start in 64 failed).
    # 4096 ids: a generator with the old 1/64 chance would produce ~64 bad ones, so this cannot pass by luck.
    ids = [kafka._cluster_id() for _ in range(4096)]
    assert not [i for i in ids if i.startswith("-")]
    assert len(set(ids)) == len(ids)


def test_cluster_ids_are_base64url_uuids_like_kafka_storage_random_uuid():
    for _ in range(256):
        text = kafka._cluster_id()
        assert len(text) == 22 and "=" not in text
        assert len(base64.urlsafe_b64decode(text + "==")) == 16
