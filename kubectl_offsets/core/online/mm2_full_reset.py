"""The full reset of a MirrorMaker 2 mirror: ``reset kmm2/NAME --connector source --with-offset-syncs``.

Resetting the MirrorSourceConnector's offsets alone is not a full reset: the offset-syncs topic still holds the
old (upstream, downstream) pairs, and the MirrorCheckpointConnector keeps translating consumer-group offsets with
them. So, in this order, with the journal on the KafkaMirrorMaker2 covering every step:

    AlterFlow's steps for the source (stop, backup, annotate, await, verify, ..., resume, cleanup), where stop and
    backup also cover the checkpoint connector, resume puts both back, and two steps run after the verification:
      reset-checkpoint (through Strimzi, verified) -> truncate-offset-syncs

``truncate-offset-syncs`` deletes every record of the mirror's offset-syncs topic (DeleteRecords up to the end; the
topic stays). MirrorMaker 2 creates that topic compacted and Kafka refuses DeleteRecords without ``delete`` in
``cleanup.policy``, so the step records the policy in the journal first, adds ``delete``, deletes, and puts the
policy back. The journal field ``offset_syncs`` says what was planned and whether the truncation happened, so
``recover`` finishes exactly the part that is missing (every part is idempotent) or rolls back.

A topic that other mirrors also write into (same name on the same cluster) is refused unless the user accepts,
with the exact pairs it would affect: their checkpoints would lose their translation history too.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, cast

from ... import mirrormaker, strimzi
from ...connect import ConnectorKind
from ...conventions import Operation
from ...errors import InputError, OffsetsError, PreconditionError, VerificationError
from ...model import OffsetsDocument
from ...strimzi import OffsetsAction
from . import backups
from .journal import Step
from .mm2_check import Mm2Settings
from .operator import OperatorClient
from .steps import AlterFlow, Outcome, SafeOutcome

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
            truncate += "; cleanup.policy gets 'delete' for the moment of the DeleteRecords, then is put back"
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
                "truncate_to": None,
                "checkpoint": self.checkpoint.connector_name if self.checkpoint else None,
                "checkpoint_previous_state": None, "checkpoint_backup": None,
                "cleanup_policy": None, "truncated": False}


# --- planning (read-only) ----------------------------------------------------------------------------------------


def plan(kube: Kube, live, settings: Mm2Settings, *, allow_shared: bool = False, broker=None) -> FullResetPlan:
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
    result.sharing = sharing_pairs(kube, live, syncs, side.get("bootstrapServers") or bootstrap)
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
        partitions = client.existing_partitions([syncs.name]).get(syncs.name)
        if partitions:
            tps = [(syncs.name, p) for p in partitions]
            result.starts = {tp[1]: o for tp, o in client.earliest(tps).items()}
            result.ends = {tp[1]: o for tp, o in client.end(tps).items()}
            foreign = foreign_topics(live, client.keys(
                {(syncs.name, p): (result.starts[p], result.ends[p]) for p in partitions}))
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


def _cluster_key(bootstrap: str | None) -> frozenset[str]:
    return frozenset(a.strip().lower() for a in (bootstrap or "").split(",") if a.strip())


def sharing_pairs(kube: Kube, live, syncs: mirrormaker.OffsetSyncsTopic, bootstrap: str) -> list[str]:
    """Every other MirrorSourceConnector (in the KafkaMirrorMaker2 resources of this namespace) whose offset syncs
    go to the same topic on the same cluster, as ``kafkamirrormaker2/NAME 'src->tgt'``."""
    mine = live.target
    found = []
    for resource in kube.list(strimzi.KIND_MM2, mine.namespace):
        for other in strimzi.mm2_targets(resource):
            if other.mm2_type != strimzi.MM2_TYPES["source"][1] or (
                    other.resource_name == mine.resource_name and other.connector_name == mine.connector_name):
                continue
            try:
                topic = _syncs_topic(resource, other)
            except InputError:
                continue  # a policy we cannot predict cannot be named; it is not ours to judge
            source, target = strimzi.mm2_clusters(resource, other)
            where = source if topic.location == mirrormaker.LOCATION_SOURCE else target
            if topic.name == syncs.name and _cluster_key(where.get("bootstrapServers")) == _cluster_key(bootstrap):
                found.append(f"kafkamirrormaker2/{other.resource_name} "
                             f"'{other.source_alias}->{other.target_alias}'")
    return found


def _broker(bootstrap: str, settings: Mm2Settings):
    from ...adapters.kafka import Broker

    return Broker(bootstrap, settings.kafka_options, timeout=max(settings.timeout, 15.0))


# --- the flow -------------------------------------------------------------------------------------------------------


class FullResetFlow(AlterFlow):
    """AlterFlow's reset of the source connector (its steps, order, journal writes and recover), plus the checkpoint
    connector beside it and, after the verification, the checkpoint reset and the offset-syncs truncation."""

    def __init__(self, kube: Kube, live, plan: FullResetPlan, settings: Mm2Settings, **kwargs):
        super().__init__(kube, live.target, live.kind, **kwargs)
        self.plan, self.settings = plan, settings
        self.companion: OperatorClient | None = None
        self._keep_stopped = False
        if plan.checkpoint is not None:
            self.companion = OperatorClient(kube, plan.checkpoint, kwargs["wait"], kwargs["progress"])

    def _new_journal(self, operation, request, resource):
        journal = super()._new_journal(operation, request, resource)
        syncs = self.plan.journal_field()
        if self.plan.checkpoint is not None:
            syncs["checkpoint_previous_state"] = self.plan.checkpoint.stanza(resource).get(strimzi.FIELD_STATE)
            syncs["checkpoint_backup"] = backups.configmap_name(self.plan.checkpoint, _now(), None) + "-checkpoint"
        journal.offset_syncs = syncs
        return journal

    @property
    def _syncs(self) -> dict[str, Any]:
        syncs = self.claimed.offset_syncs
        assert syncs is not None  # claimed with the plan's record
        return syncs

    # --- the checkpoint connector beside the source's own steps ----------------------------------------------
    def _step_backup(self, plan, request: str):
        # After the stop (both connectors): the checkpoint connector's offsets are listed while it is stopped too.
        result = super()._step_backup(plan, request)
        if self.companion is None:
            return result
        name = self._syncs["checkpoint_backup"]
        self.progress.step(f"listing the offsets of '{self.companion.target.connector_name}' and backing them up "
                           f"to configmap/{name}")
        backups.save(self.kube, self.companion.target, dataclasses.replace(self.claimed, backup=name),
                     self.companion.list_offsets())
        return result

    def _step_stop(self) -> None:
        super()._step_stop()
        if self.companion is None:
            return
        self.progress.step(f"stopping '{self.companion.target.connector_name}' (spec.state: stopped)")
        self.companion.patch(self.companion.stanza_ops({strimzi.FIELD_STATE: strimzi.STATE_STOPPED}))
        self.companion.wait_for_connect_state("STOPPED")

    def _steps_after_verify(self) -> None:
        self._step_reset_checkpoint()
        self._step_truncate()

    def _step_resume(self) -> str:
        final_state = super()._step_resume()
        if self.companion is None:
            return final_state
        previous = self._syncs.get("checkpoint_previous_state") or strimzi.DEFAULT_STATE
        if final_state == strimzi.STATE_STOPPED and not self.resume_after:
            self.progress.warn(f"--no-resume: '{self.companion.target.connector_name}' is left STOPPED too "
                               f"(it was {previous})")
            return final_state
        self.progress.step(f"restoring the previous state of '{self.companion.target.connector_name}': {previous}")
        self.companion.patch(self.companion.stanza_ops(self._checkpoint_stanza()))
        self.companion.wait_for_connect_state(strimzi.CONNECT_STATE_FOR[previous])
        return final_state

    def _checkpoint_stanza(self) -> dict[str, Any]:
        return {strimzi.FIELD_STATE: self._syncs.get("checkpoint_previous_state")}

    # --- the extra steps ---------------------------------------------------------------------------------------
    def _step_reset_checkpoint(self) -> None:
        """Reset the checkpoint connector's offsets through Strimzi; safe to repeat (recover)."""
        if self.companion is None:
            return
        name = self.companion.target.connector_name
        self._record(Step.RESET_CHECKPOINT)
        self.progress.step(f"asking the operator to reset the offsets of '{name}'")
        if self.companion.target.pending_annotations(self.companion.read()) != \
                self.companion.target.trigger_annotations(OffsetsAction.RESET):
            self.companion.place_request(OffsetsAction.RESET, lambda resource: [])
        self.companion.wait_until_done(OffsetsAction.RESET)
        self.progress.step(f"verifying: listing the offsets of '{name}' again")
        if len(self.companion.list_offsets()):
            raise VerificationError(f"the checkpoint connector '{name}' still has offsets after the reset",
                                    advice="both connectors are left STOPPED; check them with kubectl offsets "
                                           "list, then run the recover command below")
        self._done(Step.RESET_CHECKPOINT)

    def _step_truncate(self) -> None:
        """DeleteRecords up to the end of the offset-syncs topic, with the policy that allows it for the moment.
        Write-ahead: the offsets and the policy to put back are in the journal before anything changes; every
        part is safe to repeat, and the journal says when it is done."""
        syncs = self._syncs
        if syncs["truncated"]:
            return
        topic = syncs["topic"]
        client = _broker(syncs["bootstrap"], self.settings)
        if syncs["truncate_to"] is None:  # both connectors are stopped now: no new syncs can appear
            partitions = client.existing_partitions([topic]).get(topic) or []
            ends = client.end([(topic, p) for p in partitions])
            syncs["truncate_to"] = {str(p): ends[(topic, p)] for p in partitions}
            if partitions:
                value, explicit = client.topic_config(topic, mirrormaker.CLEANUP_POLICY)
                syncs["cleanup_policy"] = {"value": value, "explicit": explicit}
        self._record(Step.TRUNCATE_OFFSET_SYNCS)
        truncate_to = cast("dict[str, int]", syncs["truncate_to"])  # filled in above when it was still None
        ends = {int(p): o for p, o in truncate_to.items()}
        if not ends:
            self.progress.step(f"the offset-syncs topic {topic} does not exist: nothing to truncate")
        else:
            self.progress.step(f"truncating {topic} at {syncs['bootstrap']}: deleting the records below "
                               + ", ".join(f"offset {o} of partition {p}" for p, o in sorted(ends.items())))
            needed = mirrormaker.with_delete_policy(syncs["cleanup_policy"]["value"])
            if needed != (syncs["cleanup_policy"]["value"] or ""):
                client.set_topic_config(topic, mirrormaker.CLEANUP_POLICY, needed)
            # settle: the policy set just above reaches the partition's log a moment after it is acknowledged
            client.delete_records({(topic, p): o for p, o in ends.items()}, settle=client.timeout)
            self._restore_policy(client)
        syncs["truncated"] = True
        self._record(Step.TRUNCATE_OFFSET_SYNCS)  # the journal now says the truncation happened
        self._done(Step.TRUNCATE_OFFSET_SYNCS)

    def _restore_policy(self, client) -> None:
        original = self._syncs.get("cleanup_policy")
        if original is None:
            return
        current, _ = client.topic_config(self._syncs["topic"], mirrormaker.CLEANUP_POLICY)
        if current != original["value"] or not original["explicit"]:
            client.set_topic_config(self._syncs["topic"], mirrormaker.CLEANUP_POLICY,
                                    original["value"] if original["explicit"] else None)

    # --- failure and recover ---------------------------------------------------------------------------------
    def _fail(self, failure):
        # Past the source's verify its Connect offsets are already reset: resuming now would replicate with the old
        # offset syncs (exactly what a full reset must avoid), so a failure keeps both stopped and the journal.
        self._keep_stopped = self.journal is not None and self.journal.step in (Step.RESET_CHECKPOINT, Step.TRUNCATE_OFFSET_SYNCS)
        return super()._fail(failure)

    def make_safe(self, *, keep_stopped: bool = False) -> SafeOutcome:
        if self.companion is not None:
            self.companion.withdraw_request(OffsetsAction.RESET)
        if keep_stopped or self._keep_stopped:
            return SafeOutcome(True, "Both connectors are left STOPPED and the journal kept")
        if self._syncs.get("cleanup_policy") is not None and not self._syncs.get("truncated"):
            try:
                self._restore_policy(_broker(self._syncs["bootstrap"], self.settings))
            except OffsetsError as problem:
                self.progress.warn(f"could not put back cleanup.policy of {self._syncs['topic']}: {problem.message}")
        if self.companion is not None:
            self.companion.patch(self.companion.stanza_ops(self._checkpoint_stanza()))
        outcome = super().make_safe()
        truncated = "offset-syncs truncated" if self._syncs.get("truncated") else "offset-syncs NOT truncated"
        return SafeOutcome(outcome.journal_kept, f"{outcome.summary}; {truncated}")

    def recover(self, journal, *, rollback: bool = False, force: bool = False, wait: bool = False) -> str:
        summary = super().recover(journal, rollback=rollback, force=force, wait=wait)
        if rollback or not journal.past_point_of_no_return:
            return summary
        return summary.replace("offsets verified", "offsets verified, offset-syncs truncated")


def _now():
    from ...conventions import utc_now

    return utc_now()


def flow_for_recover(kube: Kube, live, journal, options, progress):
    """The flow that can finish ``journal``: a FullResetFlow when it is a full reset, else None."""
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
    stub = FullResetPlan(live.target, checkpoint, mirrormaker.OffsetSyncsTopic(
        syncs["topic"], syncs["location"], live.target.source_alias, live.target.target_alias), syncs["bootstrap"])
    return FullResetFlow(kube, live, stub, settings, wait=options.wait, progress=progress, resume=options.resume)


def run(kube: Kube, live, before: OffsetsDocument, the_plan: FullResetPlan, options, progress, crash_after=None) -> Outcome:
    flow = FullResetFlow(kube, live, the_plan, options.mm2 or Mm2Settings(), wait=options.wait, progress=progress,
                         resume=options.resume, crash_after=crash_after)
    return flow.run(Operation.RESET, lambda stopped: None, OffsetsAction.RESET)
