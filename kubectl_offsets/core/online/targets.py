"""From what the user typed to a :class:`ConnectorTarget` and its live resource, plus the read-only preflight checks
that must pass before anything is changed."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from ... import strimzi
from ...connect import ConnectorKind, connector_kind
from ... import conventions
from ...conventions import ANNOTATION_JOURNAL
from ...errors import (ApiNotServedError, ForbiddenError, InputError, NotFoundError, OperationTimeoutError,
                      PreconditionError)
from ...progress import SilentProgress
from ..inputs import ConnectorFacts
from .configmaps import check_list_configmap

if TYPE_CHECKING:
    from ...adapters.kube import Kube
    from ...model import WaitSettings
    from ...progress import Progress


@dataclass(frozen=True)
class TargetSpec:
    """The user's words: ``[kind/]NAME``, ``--connector``, ``--source-cluster``."""

    text: str
    connector: str | None = None
    source_cluster: str | None = None


@dataclass
class LiveTarget:
    target: strimzi.ConnectorTarget
    resource: dict[str, Any]

    @property
    def kind(self) -> ConnectorKind:
        status = self.target.connector_status(self.resource) or {}
        return connector_kind(self.target.connector_class(self.resource), status.get("type"))

    def facts(self) -> ConnectorFacts:
        consumes, description = topic_filter(self.target, self.resource)
        return ConnectorFacts(kind=self.kind, source_alias=self.target.source_alias, consumes=consumes,
                              consumes_description=description)


def resolve(kube: Kube, spec: TargetSpec, namespace: str | None = None) -> LiveTarget:
    """Read the resource and pick the connector. Raises NotFoundError/InputError with the valid choices."""
    kind, name = strimzi.parse_target(spec.text)
    namespace = namespace or kube.namespace
    if kind == strimzi.KIND_CONNECTOR and spec.connector:
        raise InputError("--connector only applies to kafkamirrormaker2 targets",
                         advice=f"a KafkaConnector is its own connector: kubectl offsets ... {name}")
    try:
        resource = kube.get(kind, name, namespace)
    except ApiNotServedError:
        raise  # not "check -n": no namespace has it
    except NotFoundError:
        raise NotFoundError(f"{kind.lower()}/{name} not found in namespace {namespace}",
                            advice=_others_hint(kube, kind, namespace)) from None
    if kind == strimzi.KIND_CONNECTOR:
        return LiveTarget(strimzi.connector_target(resource), resource)
    return LiveTarget(strimzi.resolve_mm2_target(resource, spec.connector, spec.source_cluster), resource)


def _others_hint(kube: Kube, kind: str, namespace: str) -> str:
    try:
        names = [r["metadata"]["name"] for r in kube.list(kind, namespace)]
    except (ForbiddenError, NotFoundError):
        names = []
    if names:
        return f"{kind} resources in {namespace}: {', '.join(sorted(names))}"
    return f"no {kind} in namespace {namespace}; check -n/--namespace and --context"


def topic_filter(target: strimzi.ConnectorTarget, resource: Mapping[str, Any]):
    """Which topics the connector reads, as (predicate, description); (None, "") when it cannot be known.

    Sink connectors name them in ``topics`` (a comma list) or ``topics.regex`` (Connect's SinkConnectorConfig).
    MirrorMaker 2 source connectors replicate ``topicsPattern`` of their mirror (Strimzi), default all topics.
    """
    if target.kind == strimzi.KIND_CONNECTOR:
        config = (resource.get("spec") or {}).get("config") or {}
        if config.get("topics"):
            names = {t.strip() for t in str(config["topics"]).split(",") if t.strip()}
            return (lambda topic: topic in names), ", ".join(sorted(names))
        if config.get("topics.regex"):
            pattern = re.compile(str(config["topics.regex"]))
            return (lambda topic: bool(pattern.fullmatch(topic))), f"topics matching {pattern.pattern}"
        return None, ""
    mirror = resource["spec"]["mirrors"][target.stanza_path[2]]
    config = (mirror.get("sourceConnector") or {}).get("config") or {}
    raw = mirror.get("topicsPattern") or config.get("topics")
    raw_exclude = mirror.get("topicsExcludePattern") or mirror.get("topicsBlacklistPattern") \
        or config.get("topics.exclude")
    if not raw and not raw_exclude:
        return None, ""
    # MirrorMaker 2's DefaultTopicFilter: comma-separated regular expressions, each matching the whole name;
    # a topic is replicated when it matches an include and no exclude (exclusions default to internal topics).
    includes = _patterns(raw or ".*")
    excludes = _patterns(raw_exclude or MM2_DEFAULT_TOPICS_EXCLUDE)
    description = f"topics matching {raw or '.*'}" + (f", except {raw_exclude}" if raw_exclude else "")
    return (lambda topic: any(p.fullmatch(topic) for p in includes)
            and not any(p.fullmatch(topic) for p in excludes)), description


# MirrorSourceConfig's default for topics.exclude (Kafka 3.x/4.x DefaultTopicFilter).
MM2_DEFAULT_TOPICS_EXCLUDE = r".*[\-\.]internal, .*\.replica, __.*"


def _patterns(raw: str) -> list[re.Pattern[str]]:
    return [re.compile(p.strip()) for p in str(raw).split(",") if p.strip()]


# --- preflight ----------------------------------------------------------------------------------------------


def preflight(kube: Kube, live: LiveTarget, *, mutating: bool, wait: WaitSettings | None = None,
              progress: Progress | None = None) -> None:
    """Everything that can be checked without changing anything. Raises with advice on the first failure.

    ``wait``: a connector the operator reports no status for is waited for (see await_connector_status) instead
    of refused at once; ``live.resource`` is then what the operator wrote."""
    target, resource = live.target, live.resource
    if strimzi.reconciliation_paused(resource):
        raise PreconditionError(f"reconciliation of {target.kind.lower()}/{target.resource_name} is paused "
                                f"({strimzi.ANNOTATION_PAUSE_RECONCILIATION}=true): the operator would never act",
                                advice="remove the annotation first, or do this when reconciliation resumes")
    if target.kind == strimzi.KIND_CONNECTOR:
        _check_connect_cluster(kube, resource, target.namespace)
    elif strimzi.replicas_zero(resource):
        raise PreconditionError(f"kafkamirrormaker2/{target.resource_name} has replicas: 0, so the operator skips "
                                "its connectors entirely and would never act", advice="scale it up (spec.replicas) "
                                "and wait until it is Ready, then retry")
    if target.connector_status(resource) is None:
        lasting = [block for _, block in strimzi.reconcile_blocks(resource) if block.lasting]
        if wait is None or lasting:  # a cause that needs the user: waiting would not help
            raise _no_status(live, advice=lasting[0].advice if lasting else None)
        await_connector_status(kube, live, wait, progress)
        resource = live.resource
    check_generated_names(target)
    check_not_busy(live, journal_ok=not mutating)
    check_list_configmap(kube, target, resource)
    if mutating and target.live_state(resource) == "FAILED":
        raise PreconditionError(f"connector '{target.connector_name}' is FAILED in Connect",
                                advice="fix or restart it first (status.connectorStatus has the trace); "
                                "offsets of a failed connector cannot be verified")
    check_permissions(kube, target, mutating=mutating)


def await_connector_status(kube: Kube, live: LiveTarget, wait: WaitSettings, progress: Progress | None) -> None:
    """Wait (a watch, bounded by --timeout) until the operator reports the connector's status.

    It reports none before its first pass over a new connector, and after a pass that failed: Strimzi then writes
    only a NotReady condition and drops connectorStatus until a pass succeeds (maybeUpdateConnectorStatus in
    AbstractConnectOperator). A failure is often passing, e.g. Connect answering 500 while its workers rebalance,
    or its pod gone and back; the next pass comes with the next change to the resource or the periodic
    reconciliation, up to 120 s later. So, as every wait for the operator does (operator.py), the wait nudges it
    every NUDGE_AFTER seconds without a status: a new value of our own annotation is an event it reconciles."""
    from .operator import NUDGE_AFTER, OperatorClient  # only for a connector without a status

    target, cause = live.target, strimzi.not_ready_message(live.resource)
    if progress is not None:
        progress.step(f"the operator reports no status for connector '{target.connector_name}'"
                      + (f" (its last pass failed: {cause})" if cause else "") + ": waiting for its next pass")
    operator = OperatorClient(kube, target, wait, progress or SilentProgress())
    deadline = time.monotonic() + wait.timeout
    latest: dict[str, Any] | None = live.resource
    try:
        while True:
            try:
                live.resource = kube.watch_until(
                    target.kind, target.resource_name, target.namespace,
                    lambda obj: obj if target.connector_status(obj) is not None else None,
                    timeout=max(0.0, min(NUDGE_AFTER, deadline - time.monotonic())), chunk=wait.watch_chunk,
                    what="the operator to report the connector's status", initial=latest)
                return
            except OperationTimeoutError:
                if time.monotonic() >= deadline:
                    raise _no_status(live, waited=wait.timeout) from None
            latest = None  # read afresh after the nudge
            try:
                operator.nudge()
            except (ForbiddenError, PreconditionError):  # not allowed to annotate: wait for the periodic pass
                pass
    finally:
        operator.clear_nudge()


def _no_status(live: LiveTarget, waited: float | None = None, advice: str | None = None) -> PreconditionError:
    target, cause = live.target, strimzi.not_ready_message(live.resource)
    return PreconditionError(
        f"the operator has not reported a status for connector '{target.connector_name}'"
        + (f" after {waited:.0f}s" if waited is not None else " yet")
        + (f"; its last pass failed: {cause}" if cause else ""),
        advice=advice or "wait until the resource is Ready (kubectl get "
                         f"{strimzi.PLURALS[target.kind]} -n {target.namespace}) and retry")


def check_not_busy(live: LiveTarget, *, journal_ok: bool = False) -> None:
    """One operation at a time: our journal, or Strimzi's one-shot annotation left by someone else.

    ``journal_ok``: a list may run beside an interrupted operation's journal (journal.refuse_other_operation), as
    long as no request is pending."""
    target, resource = live.target, live.resource
    annotations = (resource.get("metadata") or {}).get("annotations") or {}
    if ANNOTATION_JOURNAL in annotations:
        from .journal import refuse_other_operation  # only when there is one

        refuse_other_operation(target, resource, interrupted_ok=journal_ok)
    pending = {k: v for k, v in annotations.items()
               if k in (strimzi.ANNOTATION_CONNECTOR_OFFSETS, strimzi.ANNOTATION_MIRRORMAKER_CONNECTOR)}
    if pending:
        shown = ", ".join(f"{k}={v}" for k, v in pending.items())
        raise PreconditionError(f"the resource already carries an offsets request ({shown}) that the operator "
                                "has not completed", advice="check its status conditions; remove the annotation "
                                "(kubectl annotate ... <key>-) if it is stale, then retry")


_SUBDOMAIN = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_LABEL_VALUE = re.compile(r"(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?")
_CONFIGMAP_KEY = re.compile(r"[-._a-zA-Z0-9]+")


def check_generated_names(target: strimzi.ConnectorTarget) -> None:
    """Every name, label value and ConfigMap key we would write for ``target`` is one Kubernetes accepts, checked
    before the first change (a rejected backup ConfigMap used to stop an alter half-way)."""
    resource = target.resource_name
    backup = conventions.backup_configmap_name(resource, conventions.utc_now()) + "-99"
    checks = [(f"ConfigMap name {name}", name, _SUBDOMAIN, conventions.NAME_MAX)
              for name in (conventions.offsets_configmap_name(resource), conventions.alter_configmap_name(resource),
                           backup)]
    checks.append((f"label {conventions.LABEL_TARGET}", conventions.label_value(resource), _LABEL_VALUE,
                   conventions.LABEL_VALUE_MAX))
    checks.append((f"ConfigMap key {target.configmap_key}", target.configmap_key, _CONFIGMAP_KEY, conventions.NAME_MAX))
    problems = [f"the {what} ({len(value)} characters) is not valid (Kubernetes allows at most {limit} characters "
                f"matching {pattern.pattern})"
                for what, value, pattern, limit in checks if len(value) > limit or not pattern.fullmatch(value)]
    if problems:
        raise InputError(f"{target.display} would need names Kubernetes rejects: {'; '.join(problems)}; nothing "
                         "was changed", advice="shorten the resource, connector or cluster alias names")


def _check_connect_cluster(kube: Kube, resource: Mapping[str, Any], namespace: str) -> None:
    cluster = strimzi.connect_cluster_of(resource)
    name = resource["metadata"]["name"]
    if not cluster:
        raise PreconditionError(f"kafkaconnector/{name} has no {strimzi.LABEL_CLUSTER} label, so no operator manages it",
                                advice=f"label it with the KafkaConnect it belongs to: {strimzi.LABEL_CLUSTER}=<connect>")
    try:
        connect = kube.get_connect(cluster, namespace)
    except NotFoundError:
        raise PreconditionError(f"kafkaconnector/{name} names KafkaConnect '{cluster}', which does not exist in "
                                f"namespace {namespace}", advice=f"fix its {strimzi.LABEL_CLUSTER} label") from None
    except ForbiddenError:
        return  # we may not read KafkaConnects; the operator will still report a NotReady if it is wrong
    if strimzi.replicas_zero(connect):
        raise PreconditionError(f"KafkaConnect '{cluster}' has replicas: 0, so the operator does not reconcile "
                                f"kafkaconnector/{name} and would never act", advice="scale the KafkaConnect up "
                                "(spec.replicas) and wait until the connector is Ready, then retry")
    if not strimzi.uses_connector_resources(connect):
        raise PreconditionError(
            f"KafkaConnect '{cluster}' does not manage connectors through KafkaConnector resources",
            advice=f"annotate it {strimzi.ANNOTATION_USE_CONNECTOR_RESOURCES}=\"true\" (Strimzi ignores "
            "KafkaConnector offsets otherwise)")


def check_permissions(kube: Kube, target: strimzi.ConnectorTarget, *, mutating: bool) -> None:
    """The RBAC we need, asked with SelfSubjectAccessReviews before the first write."""
    plural = strimzi.PLURALS[target.kind]
    needed = [("patch", strimzi.GROUP, plural, target.resource_name), ("get", "", "configmaps", None),
              ("create", "", "configmaps", None), ("patch", "", "configmaps", None)]
    if mutating:
        needed.append(("list", "", "configmaps", None))
    answers = kube.can_i_all([(verb, group, resource, target.namespace, name)
                              for verb, group, resource, name in needed])
    missing = [f"{verb} {resource}" + (f"/{name}" if name else "")
               for (verb, group, resource, name), allowed in zip(needed, answers) if not allowed]
    if missing:
        raise ForbiddenError(f"you may not {', '.join(missing)} in namespace {target.namespace}",
                             advice="ask for a Role granting these verbs (see README, 'Permissions'), "
                             "or use another --context")
