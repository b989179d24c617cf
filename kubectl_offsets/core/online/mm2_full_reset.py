"""The full reset of a MirrorMaker 2 mirror: ``reset kmm2/NAME --connector source --with-offset-syncs``.

Resetting the MirrorSourceConnector's offsets alone is not a full reset: the offset-syncs topic still holds the
old (upstream, downstream) pairs, and the MirrorCheckpointConnector keeps translating consumer-group offsets with
them. So, in this order, with the journal on the KafkaMirrorMaker2 covering every step:

    the alter steps for the source (stop, backup, annotate, await, verify, ..., resume, cleanup), where stop and
    backup also cover the checkpoint connector, resume puts both back, and two steps run after the verification:
      reset-checkpoint (through Strimzi, verified) -> truncate-offset-syncs
    (``FULL_RESET``: a declaration the engine runs, built from ``steps.py``'s steps)

``truncate-offset-syncs`` deletes every record of the mirror's offset-syncs topic (DeleteRecords up to the end; the
topic stays). MirrorMaker 2 creates that topic compacted and Kafka refuses DeleteRecords without ``delete`` in
``cleanup.policy``, so the step records the policy in the journal first, adds ``delete``, deletes, and puts the
policy back. The journal field ``offset_syncs`` says what was planned and whether the truncation happened, so
``recover`` finishes exactly the part that is missing (every part is idempotent) or rolls back.

Left with 'delete', the topic loses its syncs to retention. So every way out (a failed step, a rollback) first puts
the recorded policy back, and while it cannot (the broker out of reach: the recorded address is often a
port-forward), the journal, the only record of the original policy, stays and both connectors stay stopped; the
message names the kafka-configs.sh command and ``recover --bootstrap-server``. The permissions the truncation needs
(DescribeConfigs, AlterConfigs, DeleteRecords on the topic) are asked of the broker's authorizer in the pre-flight,
before anything changes, and again just before the policy changes.

A topic that other mirrors also write into (same name on the same cluster, in any namespace the user may list) is
refused unless the user accepts, with the exact pairs it would affect: their checkpoints would lose their
translation history too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ... import mirrormaker, strimzi
from ...connect import ConnectorKind
from ...conventions import Operation
from ...errors import ForbiddenError, InputError, OffsetsError, PreconditionError, VerificationError
from ...progress import Progress, SilentProgress
from ...strimzi import OffsetsAction
from . import backups, steps
from .engine import Declaration, Note, Outcome, Run, StepSpec
from .journal import Step
from .mm2_check import Mm2Settings
from .operator import OperatorClient

if TYPE_CHECKING:
    from ...adapters.kube import Kube



@dataclass
class FullResetPlan:
    """Everything the full reset will touch, worked out (and validated) before the first change."""

    source: strimzi.ConnectorTarget
    checkpoint: strimzi.ConnectorTarget | None
    syncs: mirrormaker.OffsetSyncsTopic
    bootstrap: str  # the cluster that holds the offset-syncs topic
    starts: dict[int, int] = field(default_factory=dict)  # per partition of the topic; empty: topic absent
    ends: dict[int, int] = field(default_factory=dict)
    sharing: list[str] = field(default_factory=list)  # the other pairs that use the same topic
    policy: str | None = None  # the topic's cleanup.policy now
    cluster_id: str | None = None  # of the cluster at ``bootstrap``: recover --bootstrap-server must reach it

    @property
    def records(self) -> int:
        return sum(self.ends[p] - self.starts[p] for p in self.ends)

    def steps(self) -> list[str]:
        where = f"{self.syncs.name} at {self.bootstrap}"
        checkpoint = f"'{self.checkpoint.connector_name}'" if self.checkpoint else "(the mirror has no checkpoint " \
                                                                                 "connector)"
        truncate = (f"truncate {where}: delete every record up to its end once both are stopped (now "
                    f"{self.records} record(s): "
                    + ", ".join(f"partition {p} offsets {self.starts[p]}..{self.ends[p] - 1}" if self.ends[p] >
                                self.starts[p] else f"partition {p} empty" for p in sorted(self.ends)) + ")"
                    if self.ends else f"truncate {where}: the topic does not exist yet, nothing to delete")
        if self.ends:
            truncate += (f"; cleanup.policy (now '{self.policy}') gets 'delete' for the moment of the DeleteRecords, "
                         "then is put back")
        return [f"stop '{self.source.connector_name}' and {checkpoint}, and back up their offsets",
                f"reset the offsets of '{self.source.connector_name}' through Strimzi and verify",
                f"reset the offsets of {checkpoint} through Strimzi and verify" if self.checkpoint else
                "no checkpoint connector to reset",
                truncate + " (the topic itself is kept)",
                "resume both as they were"]

    def journal_field(self) -> dict[str, Any]:
        # truncate_to is decided at the truncation step, when both connectors are stopped: until then the running
        # source task keeps adding syncs.
        return {"topic": self.syncs.name, "location": self.syncs.location, "bootstrap": self.bootstrap,
                "cluster_id": self.cluster_id, "truncate_to": None,
                "checkpoint": self.checkpoint.connector_name if self.checkpoint else None,
                "checkpoint_previous_state": None, "checkpoint_backup": None,
                "cleanup_policy": None, "truncated": False}


# --- planning (read-only) ----------------------------------------------------------------------------------------


def plan(kube: Kube, live, settings: Mm2Settings, *, allow_shared: bool = False, broker=None,
         progress: Progress | None = None) -> FullResetPlan:
    target, resource = live.target, live.resource
    if target.kind != strimzi.KIND_MM2 or live.kind is not ConnectorKind.MIRROR_SOURCE:
        raise InputError("--with-offset-syncs is the full reset of a MirrorMaker 2 mirror: it applies to its "
                         f"MirrorSourceConnector, not to '{target.connector_name}'",
                         advice="use --connector source (or the full '<src>-><tgt>.MirrorSourceConnector' name)")
    syncs = _syncs_topic(resource, target)
    checkpoint = strimzi.mm2_sibling(resource, target, "checkpoint")
    if checkpoint is not None:
        other = _syncs_topic(resource, checkpoint)
        if other.name != syncs.name or other.location != syncs.location:
            raise InputError(f"the mirror's source and checkpoint connectors disagree on the offset-syncs topic "
                             f"({syncs.describe()} vs {other.describe()})",
                             advice=f"set {mirrormaker.OFFSET_SYNCS_LOCATION} (and the replication policy) the same "
                                    "in both connectors' config; MirrorMaker 2 needs them to agree")
    bootstrap = syncs_bootstrap(resource, target, syncs, settings)
    result = FullResetPlan(target, checkpoint, syncs, bootstrap)
    # Other mirrors are compared by the addresses in their specs, so compare ours by its spec too (the flag may be
    # a port-forward to the same cluster).
    source, target_cluster = strimzi.mm2_clusters(resource, target)
    side = source if syncs.location == mirrormaker.LOCATION_SOURCE else target_cluster
    result.sharing = sharing_pairs(kube, live, syncs, side.get("bootstrapServers") or bootstrap, progress)
    if result.sharing and not allow_shared:
        raise InputError(f"the offset-syncs {syncs.describe()} at {bootstrap} is shared: it also holds the syncs of "
                         f"{', '.join(result.sharing)}. Truncating it would make their checkpoint connectors lose "
                         "their offset translations too",
                         advice="give the mirrors distinct offset-syncs topics (distinct target aliases, or "
                                f"{mirrormaker.OFFSET_SYNCS_LOCATION}=target), or accept the effect on those pairs "
                                "with --allow-shared-offset-syncs; without --with-offset-syncs only the Connect "
                                "offsets are reset")
    client = (broker or _broker)(bootstrap, settings)
    try:
        result.cluster_id = client.cluster_id()
        partitions = client.existing_partitions([syncs.name]).get(syncs.name)
        if partitions:
            tps = [(syncs.name, p) for p in partitions]
            result.starts = {tp[1]: o for tp, o in client.earliest(tps).items()}
            result.ends = {tp[1]: o for tp, o in client.end(tps).items()}
            foreign = foreign_topics(live, client.keys(
                {(syncs.name, p): (result.starts[p], result.ends[p]) for p in partitions}))
        check_permissions(client, syncs.name)
        if partitions:
            result.policy = client.topic_config(syncs.name, mirrormaker.CLEANUP_POLICY)[0]
    except InputError as problem:
        raise PreconditionError(f"the full reset needs the cluster holding {syncs.name}: {problem.message}",
                                advice=problem.advice) from None
    if partitions and foreign and not allow_shared:
        shown = ", ".join(foreign[:10]) + (f" and {len(foreign) - 10} more" if len(foreign) > 10 else "")
        raise InputError(f"the offset-syncs {syncs.describe()} at {bootstrap} holds syncs of topics this mirror does "
                         f"not replicate ({shown}): another MirrorMaker 2 (outside this namespace or outside "
                         "Kubernetes, or this mirror before its topicsPattern changed) writes into it, and truncating "
                         "it would make that mirror's checkpoints lose their offset translations",
                         advice="find that mirror and give it its own target alias or offset-syncs location, or "
                                "accept the effect with --allow-shared-offset-syncs")
    return result


def check_permissions(client, topic: str) -> None:
    """Refuse, before anything changes, when the broker's authorizer denies this client a request the truncation
    needs on ``topic`` (``mirrormaker.TRUNCATION_ACL_OPERATIONS``). A broker that does not say (or a topic that
    does not exist yet) is not judged here; its first refusal is then handled like any failure of the step."""
    allowed = client.topic_operations(topic)
    if allowed is None:
        return
    missing = [op for op in mirrormaker.TRUNCATION_ACL_OPERATIONS if op not in allowed]
    if not missing:
        return
    requests = ", ".join(mirrormaker.TRUNCATION_REQUESTS[op] for op in missing)
    operations = " ".join(f"--operation {mirrormaker.TRUNCATION_ACL_OPERATIONS[op]}" for op in missing)
    raise ForbiddenError(
        f"the Kafka broker at {client.bootstrap_servers} denies this client {requests} on topic '{topic}' (ACL "
        f"operation(s) {', '.join(missing)}), which the full reset needs to truncate it: nothing was changed",
        advice=f"grant them to the client's principal (and remove any DENY ACL for them), e.g. kafka-acls.sh "
               f"--bootstrap-server {client.bootstrap_servers} --add --allow-principal User:NAME {operations} "
               f"--topic {topic}; or pass --kafka-option settings of a principal that has them")


def foreign_topics(live, keys) -> list[str]:
    """The source topics named in offset-syncs records that this mirror does not replicate (its topicsPattern /
    topicsExcludePattern): the trace another MirrorMaker 2 leaves in a shared topic, wherever it runs."""
    from .targets import topic_filter

    replicated, _ = topic_filter(live.target, live.resource)
    if replicated is None:  # the mirror replicates every topic: any name could be ours
        return []
    topics = {key[0] for key in (mirrormaker.offset_sync_key(k) for k in keys) if key is not None}
    return sorted(t for t in topics if not replicated(t))


def _syncs_topic(resource, target: strimzi.ConnectorTarget) -> mirrormaker.OffsetSyncsTopic:
    config = strimzi.mm2_connector_config(resource, target)
    assert target.source_alias is not None and target.target_alias is not None  # a MirrorMaker 2 target has both
    try:
        return mirrormaker.offset_syncs_topic(target.source_alias, target.target_alias, config)
    except ValueError as problem:
        raise InputError(f"cannot tell the offset-syncs topic of '{target.connector_name}': {problem}",
                         advice="the full reset supports MirrorMaker 2's default and identity replication policies; "
                                "truncate the topic yourself and reset without --with-offset-syncs") from None


def syncs_bootstrap(resource, target, syncs: mirrormaker.OffsetSyncsTopic, settings: Mm2Settings) -> str:
    source, target_cluster = strimzi.mm2_clusters(resource, target)
    if syncs.location == mirrormaker.LOCATION_SOURCE:
        found, flag = settings.source_bootstrap or source.get("bootstrapServers"), "--source-bootstrap-server"
    else:
        found, flag = settings.target_bootstrap or target_cluster.get("bootstrapServers"), "--target-bootstrap-server"
    if not found:
        raise InputError(f"no address for the {syncs.location} cluster that holds {syncs.name}",
                         advice=f"pass {flag} HOST:PORT")
    return found


def sharing_pairs(kube: Kube, live, syncs: mirrormaker.OffsetSyncsTopic, bootstrap: str,
                  progress: Progress | None = None) -> list[str]:
    """Every other MirrorSourceConnector, in the KafkaMirrorMaker2 resources of every namespace the user may list,
    whose offset syncs go to the same topic on the same cluster (one address in common, Strimzi's Service names
    compared as such: ``strimzi.kafka_cluster_keys``), as ``kafkamirrormaker2/NAME [-n NS] 'src->tgt'``."""
    mine = live.target
    ours = strimzi.kafka_cluster_keys(bootstrap, mine.namespace)
    found = []
    for resource in _mirrors_in_reach(kube, mine.namespace, progress or SilentProgress()):
        namespace = (resource.get("metadata") or {}).get("namespace") or mine.namespace
        for other in strimzi.mm2_targets(resource):
            if other.mm2_type != strimzi.MM2_TYPES["source"][1] or (namespace == mine.namespace and
                    other.resource_name == mine.resource_name and other.connector_name == mine.connector_name):
                continue
            try:
                topic = _syncs_topic(resource, other)
            except InputError:
                continue  # a policy we cannot predict cannot be named; it is not ours to judge
            source, target = strimzi.mm2_clusters(resource, other)
            where = source if topic.location == mirrormaker.LOCATION_SOURCE else target
            if topic.name == syncs.name and strimzi.kafka_cluster_keys(where.get("bootstrapServers"), namespace) & ours:
                elsewhere = f" -n {namespace}" if namespace != mine.namespace else ""
                found.append(f"kafkamirrormaker2/{other.resource_name}{elsewhere} "
                             f"'{other.source_alias}->{other.target_alias}'")
    return found


def _mirrors_in_reach(kube: Kube, namespace: str, progress: Progress) -> list:
    """The KafkaMirrorMaker2 resources of all namespaces; of ``namespace`` alone (said in a warning) when the user
    may not list them cluster-wide."""
    try:
        return kube.list_selected(strimzi.KIND_MM2, None)
    except ForbiddenError:
        progress.warn(f"not allowed to list KafkaMirrorMaker2 resources in all namespaces: only those of namespace "
                      f"{namespace} are compared with this mirror (the offset-syncs topic's records are still "
                      "checked for other mirrors)")
        return kube.list(strimzi.KIND_MM2, namespace)


def _broker(bootstrap: str, settings: Mm2Settings):
    from ...adapters.kafka import Broker

    return Broker(bootstrap, settings.kafka_options, timeout=max(settings.timeout, 15.0))


# --- the flow: a declaration ------------------------------------------------------------------------------------


@dataclass
class FullReset:
    """What a full reset run carries besides the source's run (``Run.extra``)."""

    plan: FullResetPlan
    settings: Mm2Settings
    companion: OperatorClient | None  # the checkpoint connector's client

    @staticmethod
    def of(run: Run) -> "FullReset":
        assert isinstance(run.extra, FullReset)  # a FULL_RESET run is always built with one (run, for_recover)
        return run.extra


def _syncs(run: Run) -> dict[str, Any]:
    syncs = run.claimed.offset_syncs
    assert syncs is not None  # claimed with the plan's record
    return syncs


def _journal_fields(run: Run, resource) -> dict[str, Any]:
    plan = FullReset.of(run).plan
    syncs = plan.journal_field()
    if plan.checkpoint is not None:
        syncs["checkpoint_previous_state"] = plan.checkpoint.stanza(resource).get(strimzi.FIELD_STATE)
        syncs["checkpoint_backup"] = backups.configmap_name(plan.checkpoint, run.clock.now(), None) + "-checkpoint"
    return {"offset_syncs": syncs}


# --- the checkpoint connector beside the source's own steps -------------------------------------------------------
def _stop_companion(run: Run) -> None:
    companion = FullReset.of(run).companion
    if companion is None:
        return
    run.progress.step(f"stopping '{companion.target.connector_name}' (spec.state: stopped)")
    companion.guarded_patch(lambda resource: companion.stanza_ops({strimzi.FIELD_STATE: strimzi.STATE_STOPPED},
                                                                  resource))
    companion.wait_for_connect_state("STOPPED")


def _back_up_companion(run: Run) -> None:
    # After the stop (both connectors): the checkpoint connector's offsets are listed while it is stopped too.
    companion = FullReset.of(run).companion
    if companion is None:
        return
    name = _syncs(run)["checkpoint_backup"]
    run.progress.step(f"listing the offsets of '{companion.target.connector_name}' and backing them up "
                      f"to configmap/{name}")
    backups.save(run.kube, companion.target, dataclasses.replace(run.claimed, backup=name), companion.list_offsets())


def _resume_companion(run: Run) -> None:
    companion = FullReset.of(run).companion
    if companion is None:
        return
    previous = _syncs(run).get("checkpoint_previous_state") or strimzi.DEFAULT_STATE
    if run.final_state == strimzi.STATE_STOPPED and not run.resume:
        run.progress.warn(f"--no-resume: '{companion.target.connector_name}' is left STOPPED too (it was {previous})")
        return
    run.progress.step(f"restoring the previous state of '{companion.target.connector_name}': {previous}")
    _restore_companion_state(run, companion)
    companion.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])


def _restore_companion_state(run: Run, companion: OperatorClient) -> None:
    state = _syncs(run).get("checkpoint_previous_state")
    companion.guarded_patch(lambda resource: companion.stanza_ops({strimzi.FIELD_STATE: state}, resource))


def _undo_companion_stop(run: Run, keep: bool) -> Note | None:
    """Make-safe: the checkpoint connector gets its state back with the source's (not while both stay stopped)."""
    companion = FullReset.of(run).companion
    if companion is not None and not keep:
        _restore_companion_state(run, companion)
    return None


# --- the extra steps ---------------------------------------------------------------------------------------------------
def _reset_checkpoint(run: Run) -> None:
    """Reset the checkpoint connector's offsets through Strimzi; safe to repeat (recover)."""
    companion = FullReset.of(run).companion
    if companion is None:
        return
    run.record(Step.RESET_CHECKPOINT)
    name = companion.target.connector_name
    run.progress.step(f"asking the operator to reset the offsets of '{name}'")
    if companion.target.pending_annotations(companion.read()) != \
            companion.target.trigger_annotations(OffsetsAction.RESET):
        companion.place_request(OffsetsAction.RESET, lambda resource: [])
    companion.wait_until_done(OffsetsAction.RESET)
    run.progress.step(f"verifying: listing the offsets of '{name}' again")
    if len(companion.list_offsets()):
        raise VerificationError(f"the checkpoint connector '{name}' still has offsets after the reset",
                                advice="both connectors are left STOPPED; check them with kubectl offsets "
                                       "list, then run the recover command below")


def _withdraw_companion_reset(run: Run, keep: bool) -> Note | None:
    companion = FullReset.of(run).companion
    if companion is not None:
        companion.withdraw_request(OffsetsAction.RESET)
    return None


def _truncate(run: Run) -> None:
    """DeleteRecords up to the end of the offset-syncs topic, with the policy that allows it for the moment.
    Write-ahead: the offsets and the policy to put back are in the journal before anything changes; every
    part is safe to repeat, and the journal says when it is done."""
    syncs = _syncs(run)
    if syncs["truncated"]:
        return
    topic = syncs["topic"]
    client = _client(run)
    if syncs["truncate_to"] is None:  # both connectors are stopped now: no new syncs can appear
        partitions = client.existing_partitions([topic]).get(topic) or []
        ends = client.end([(topic, p) for p in partitions])
        syncs["truncate_to"] = {str(p): ends[(topic, p)] for p in partitions}
        if partitions:
            value, explicit = client.topic_config(topic, mirrormaker.CLEANUP_POLICY)
            syncs["cleanup_policy"] = {"value": value, "explicit": explicit}
    run.record(Step.TRUNCATE_OFFSET_SYNCS)
    truncate_to = cast("dict[str, int]", syncs["truncate_to"])  # filled in above when it was still None
    ends = {int(p): o for p, o in truncate_to.items()}
    if not ends:
        run.progress.step(f"the offset-syncs topic {topic} does not exist: nothing to truncate")
    else:
        # Again here: recover may come much later, with other credentials (--kafka-option).
        check_permissions(client, topic)
        run.progress.step(f"truncating {topic} at {client.bootstrap_servers}: deleting the records below "
                          + ", ".join(f"offset {o} of partition {p}" for p, o in sorted(ends.items())))
        needed = mirrormaker.with_delete_policy(syncs["cleanup_policy"]["value"])
        if needed != (syncs["cleanup_policy"]["value"] or ""):
            client.set_topic_config(topic, mirrormaker.CLEANUP_POLICY, needed)
        # settle: the policy set just above reaches the partition's log a moment after it is acknowledged
        client.delete_records({(topic, p): o for p, o in ends.items()}, settle=client.timeout)
        _restore_policy(run, client)
    syncs["truncated"] = True
    run.record(Step.TRUNCATE_OFFSET_SYNCS)  # the journal now says the truncation happened


# --- the topic's cleanup.policy ----------------------------------------------------------------------------------------
def _bootstrap(run: Run) -> str:
    """Where the offset-syncs topic is reached: recover's --bootstrap-server, else the address the journal
    recorded (often a port-forward, gone by the time someone recovers)."""
    return FullReset.of(run).settings.offset_syncs_bootstrap or _syncs(run)["bootstrap"]


def _client(run: Run):
    return _broker(_bootstrap(run), FullReset.of(run).settings)


def _restore_policy(run: Run, client) -> bool:
    """Put cleanup.policy back as the journal recorded it (the value set on the topic, or none: inherited);
    True when it had to be changed."""
    original = _syncs(run).get("cleanup_policy")
    if original is None:
        return False
    topic = _syncs(run)["topic"]
    if client.topic_config(topic, mirrormaker.CLEANUP_POLICY) == (original["value"], original["explicit"]):
        return False
    client.set_topic_config(topic, mirrormaker.CLEANUP_POLICY, original["value"] if original["explicit"] else None)
    return True


def _put_policy_back(run: Run, keep: bool) -> Note | None:
    """On every way out short of a finished truncation: make sure the topic's cleanup.policy is the recorded one
    again. With 'delete' left in it, the broker's retention would delete the offset syncs the connectors need
    (after a rollback). While it cannot be put back the journal, the only record of the original policy, stays and
    both connectors stay stopped. None when the policy was never touched (or was put back before the truncation
    was recorded as done)."""
    syncs = _syncs(run)
    original = syncs.get("cleanup_policy")
    if original is None or syncs.get("truncated"):
        return None
    topic, was = syncs["topic"], _policy_text(original)
    try:
        changed = _restore_policy(run, _client(run))
    except OffsetsError as problem:
        bootstrap = _bootstrap(run)
        command = mirrormaker.restore_policy_command(bootstrap, topic, original["value"], original["explicit"])
        options = " and the same --kafka-option flags" if FullReset.of(run).settings.kafka_options else ""
        return Note(f"cleanup.policy of {topic} could not be checked or put back ({problem.message}); it may still "
                    f"include 'delete' (it was {was}), and then the broker's retention deletes offset syncs. Put it "
                    f"back with: {command} -- or run the command below with an address of that cluster that is "
                    f"reachable from here{options}", keep_stopped=True,
                    next_command=f"{run.claimed.recover_command(run.target.namespace)}"
                    f"{' --rollback' if run.rolling_back else ''} --bootstrap-server {bootstrap}")
    return Note(f"cleanup.policy of {topic} {'put back to' if changed else 'unchanged:'} {was}")


def _policy_text(original: dict[str, Any]) -> str:
    return f"'{original['value']}'" + ("" if original["explicit"] else " (inherited from the broker)")


def _truncated_note(run: Run) -> str:
    return "; offset-syncs truncated" if _syncs(run).get("truncated") else "; offset-syncs NOT truncated"


# The source's reset (steps.py) with the checkpoint connector beside it, then its reset and the truncation. Past the
# source's verify its Connect offsets are already reset: resuming then would replicate with the old offset syncs
# (exactly what a full reset must avoid), so a failure from there on keeps both stopped and the journal.
FULL_RESET = Declaration(
    "full reset",
    (steps.STOP.then(check=_stop_companion, undo=_undo_companion_stop),
     steps.BACKUP.then(do=_back_up_companion),
     steps.WRITE_CONFIGMAP, steps.ANNOTATE, steps.AWAIT_OPERATOR, steps.VERIFY,
     StepSpec(Step.RESET_CHECKPOINT, _reset_checkpoint, undo=_withdraw_companion_reset, keeps_stopped=True),
     StepSpec(Step.TRUNCATE_OFFSET_SYNCS, _truncate, undo=_put_policy_back, keeps_stopped=True),
     steps.RESUME.then(do=_resume_companion), steps.CLEANUP),
    journal_fields=_journal_fields,
    left_stopped="Both connectors are left STOPPED and the journal kept",
    summary_note=_truncated_note,
    finished=lambda run, state: f"finished: offsets verified, offset-syncs truncated, connector {state}")


def for_recover(kube: Kube, live, journal, options, progress) -> Run | None:
    """The run that can finish ``journal``: a full reset's when it is one, else None."""
    syncs = getattr(journal, "offset_syncs", None)
    if not syncs:
        return None
    resource = live.resource
    checkpoint = None
    if syncs.get("checkpoint"):
        checkpoint = next((t for t in strimzi.mm2_targets(resource) if t.connector_name == syncs["checkpoint"]), None)
        if checkpoint is None:
            raise PreconditionError(f"the checkpoint connector '{syncs['checkpoint']}' of the interrupted full reset "
                                    "is no longer in the resource", advice="put the mirror back as it was, or "
                                    "remove the journal annotation by hand once the connectors are as you want")
    settings = options.mm2 or Mm2Settings()
    if settings.offset_syncs_bootstrap:
        _check_same_cluster(settings, syncs, progress)
    stub = FullResetPlan(live.target, checkpoint, mirrormaker.OffsetSyncsTopic(
        syncs["topic"], syncs["location"], live.target.source_alias, live.target.target_alias), syncs["bootstrap"])
    return _run(kube, live, stub, options, progress)


def _check_same_cluster(settings: Mm2Settings, syncs: dict[str, Any], progress: Progress | None) -> None:
    """recover --bootstrap-server: the address must reach the cluster the full reset truncates (the id it recorded),
    not another one with a topic of the same name (a port-forward to the wrong cluster), before anything changes."""
    recorded = syncs.get("cluster_id")
    address = settings.offset_syncs_bootstrap
    if recorded is None:
        if progress is not None:
            progress.warn(f"the journal records no cluster id (an older kubectl-offsets wrote it): make sure {address} "
                          f"reaches the cluster at {syncs['bootstrap']}")
        return
    assert address is not None  # the caller checked it
    found = _broker(address, settings).cluster_id()
    if found != recorded:
        raise InputError(f"--bootstrap-server {address} reaches Kafka cluster {found}, but the interrupted full reset "
                         f"worked on cluster {recorded} (at {syncs['bootstrap']}); nothing was changed",
                         advice=f"give an address of cluster {recorded}, the one holding {syncs['topic']}")


def run(kube: Kube, live, the_plan: FullResetPlan, options, progress) -> Outcome:
    result = _run(kube, live, the_plan, options, progress)
    result.operation = Operation.RESET
    return result.execute()


def _run(kube: Kube, live, the_plan: FullResetPlan, options, progress) -> Run:
    companion = OperatorClient(kube, the_plan.checkpoint, options.wait, progress) if the_plan.checkpoint else None
    run = Run(FULL_RESET, kube, live.target, live.kind, options.wait, progress, request=OffsetsAction.RESET,
              resume=options.resume, extra=FullReset(the_plan, options.mm2 or Mm2Settings(), companion))
    if companion is not None:
        companion.operation_id = run.operation_id  # the checkpoint connector's requests are the run's own
    return run
