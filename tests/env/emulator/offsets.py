"""``manageConnectorOffsets``: the list / alter / reset annotation handling (§2.2-§2.8, §2.11).

Only called on the reconcile pass where the connector already exists with matching config, after the state
transition (§2.1 step 4).  Every list/alter/reset failure becomes a ``Warning`` condition and the annotation stays
(retried next reconcile); only an invalid annotation value escapes as a reconcile failure (``IllegalArgumentException``,
§2.3).  Annotations are removed only after success, in one patch that carries the resourceVersion read (§2.8).
"""
import json
import time
from dataclasses import dataclass

from kubernetes.client.rest import ApiException

from . import jackson_json
from .conditions import ReconcileError, warning
from .configmap_writer import write_list_configmap
from .connect_client import ConnectRestError, ConnectUnreachable
from .kube import GROUP, PLURALS, api_error_text

ANNO_OFFSETS = "strimzi.io/connector-offsets"
ANNO_MM2_CONNECTOR = "strimzi.io/mirrormaker-connector"
ENUM_CLASS = "io.strimzi.operator.cluster.model.KafkaConnectorOffsetsAnnotation"
OPERATIONS = ("none", "list", "alter", "reset")
KAFKA_CONNECTOR_KEY = "offsets.json"


class InvalidAnnotations(Exception):
    """Strimzi's InvalidResourceException from the MM2 annotation pair check; becomes a ManageOffsets Warning."""


class StepFailure(Exception):
    """A failed step of list/alter/reset; its text is the ``<cause>`` after the Warning's message prefix."""


@dataclass
class OffsetsTarget:
    cr: dict            # the custom resource as read at the start of this reconcile (carries resourceVersion)
    connector: str      # connector name in Connect
    spec: dict          # connector spec holding listOffsets / alterOffsets
    configmap_key: str  # offsets.json or <src>--<tgt>.<Type>.json
    annotations: tuple  # keys removed on success (§2.8)

    @property
    def kind(self):
        return self.cr["kind"]

    @property
    def namespace(self):
        return self.cr["metadata"]["namespace"]


def parse_operation(value):
    """Exact, case-sensitive enum lookup; anything else fails the reconcile (§2.2/§2.3)."""
    if value in OPERATIONS:
        return value
    raise ReconcileError("IllegalArgumentException", f"No enum constant {ENUM_CLASS}.{value}")


def connector_operation(cr):
    """KafkaConnector: absent annotation means ``none``; the MM2 connector annotation is ignored (§2.2)."""
    annotations = cr["metadata"].get("annotations") or {}
    if ANNO_OFFSETS not in annotations:
        return "none"
    return parse_operation(annotations[ANNO_OFFSETS])


def mm2_operation(cr, connector_name):
    """KafkaMirrorMaker2, evaluated once per generated connector (§2.2)."""
    meta = cr["metadata"]
    annotations = meta.get("annotations") or {}
    has_offsets, has_connector = ANNO_OFFSETS in annotations, ANNO_MM2_CONNECTOR in annotations
    resource = f"KafkaMirrorMaker2 resource {meta['namespace']}/{meta['name']}"
    if has_offsets and not has_connector:
        raise InvalidAnnotations(f"{resource} is missing annotation {ANNO_MM2_CONNECTOR}")
    if has_connector and not has_offsets:
        raise InvalidAnnotations(f"{resource} is missing annotation {ANNO_OFFSETS}")
    if not has_offsets or annotations[ANNO_MM2_CONNECTOR] != connector_name:
        # A name that matches no connector is a silent no-op forever (§2.3).
        return "none"
    return parse_operation(annotations[ANNO_OFFSETS])


def manage_connector_offsets(ctx, target, operation_fn):
    """Returns the Warning conditions of this pass; raises ReconcileError for an invalid annotation value."""
    if ctx.faults.ignore_offsets:
        return []
    try:
        operation = operation_fn()
    except InvalidAnnotations as err:
        ctx.decide(target.cr, f"connector {target.connector}: ManageOffsets warning: {err}")
        return [warning("ManageOffsets", f"Encountered error getting connector offsets annotation. {err}")]
    if operation == "none":
        return []
    if ctx.faults.delay_seconds > 0:
        ctx.decide(target.cr, f"connector {target.connector}: fault delay {ctx.faults.delay_seconds}s before {operation}")
        _delay(ctx, ctx.faults.delay_seconds)
    handler = {"list": _list, "alter": _alter, "reset": _reset}[operation]
    return handler(ctx, target)


def _delay(ctx, seconds):
    """The ``delay_seconds`` knob: sleep that long, or until a write of the faults file clears the knob, so a test
    can hold the lock for as long as its scenario takes and let go when it is ready, not by a guessed margin."""
    deadline = time.monotonic() + seconds
    while (left := deadline - time.monotonic()) > 0:
        time.sleep(min(0.2, left))
        try:
            ctx.faults.reload()
        except ValueError:
            continue  # a file being rewritten: keep the knob as it was
        if ctx.faults.delay_seconds <= 0:
            return


# ----------------------------------------------------------------------------------------------- list (§2.4)

def _list(ctx, target):
    list_offsets = target.spec.get("listOffsets")
    if not list_offsets:
        return _warn(ctx, target, "ListOffsets",
                     f"Failed to list the connector offsets due to missing property listOffsets in {target.kind} CR.")
    try:
        body = _rest(lambda: ctx.connect.get_offsets_raw(target.connector))
        text = jackson_json.dumps(body)
        cm_name = (list_offsets.get("toConfigMap") or {}).get("name")
        if not cm_name:
            raise StepFailure("ConfigMap name must be specified in listOffsets.toConfigMap.name")
        _kube(ctx, "PATCH", f"api/v1/namespaces/{target.namespace}/configmaps/{cm_name}",
              lambda: write_list_configmap(ctx.kube, target.cr, cm_name, target.configmap_key, text, ctx.profile))
        _remove_annotations(ctx, target)
    except StepFailure as err:
        return _warn(ctx, target, "ListOffsets", f"Encountered error listing connector offsets. {err}")
    ctx.decide(target.cr, f"connector {target.connector}: list -> ConfigMap {target.namespace}/{cm_name} "
                          f"key {target.configmap_key}, annotation removed")
    return []


# ----------------------------------------------------------------------------------------------- alter/reset (§2.5)

def _alter(ctx, target):
    alter_offsets = target.spec.get("alterOffsets")
    if not alter_offsets:
        return _warn(ctx, target, "AlterOffsets",
                     f"Failed to alter the connector offsets due to missing property alterOffsets in {target.kind} CR.")
    try:
        _verify_stopped(ctx, target)
        raw = _offsets_for_alter(ctx, target, (alter_offsets.get("fromConfigMap") or {}).get("name"))
        _rest(lambda: ctx.connect.patch_offsets(target.connector, raw))
        _remove_annotations(ctx, target)
    except StepFailure as err:
        return _warn(ctx, target, "AlterOffsets", f"Encountered error altering connector offsets. {err}")
    ctx.decide(target.cr, f"connector {target.connector}: alter -> PATCH offsets ok, annotation removed")
    return []


def _reset(ctx, target):
    try:
        _verify_stopped(ctx, target)
        _rest(lambda: ctx.connect.delete_offsets(target.connector))
        _remove_annotations(ctx, target)
    except StepFailure as err:
        return _warn(ctx, target, "ResetOffsets", f"Encountered error resetting connector offsets. {err}")
    ctx.decide(target.cr, f"connector {target.connector}: reset -> DELETE offsets ok, annotation removed")
    return []


def _verify_stopped(ctx, target):
    """``verifyConnectorStopped``: Connect's *live* state, not ``spec.state`` (§2.5 step 2, §2.13 item 3)."""
    status = _rest(lambda: ctx.connect.status(target.connector))
    state = ((status or {}).get("connector") or {}).get("state")
    if not isinstance(state, str):
        raise StepFailure("JSON response lacked $.connector.state")
    if state.upper() != "STOPPED":
        raise StepFailure("Connector is not in STOPPED state")


def _offsets_for_alter(ctx, target, cm_name):
    """``getOffsetsForAlterRequest``: the raw string, after a Jackson-lenient JSON syntax check (§2.5 step 3)."""
    prefix = "Encountered error fetching offsets to use in alter operation."
    cm = None
    if cm_name:
        cm = _kube(ctx, "GET", f"api/v1/namespaces/{target.namespace}/configmaps/{cm_name}",
                   lambda: ctx.kube.get_configmap(target.namespace, cm_name))
    if cm is None:
        raise StepFailure(f"{prefix} ConfigMap {target.namespace}/{cm_name} does not exist.")
    data = cm.get("data") or {}  # binaryData is not consulted
    if target.configmap_key not in data:
        raise StepFailure(f"{prefix} Data field {target.configmap_key} is missing.")
    raw = data[target.configmap_key]
    error = jackson_parse_error(raw)
    if error:
        raise StepFailure(f"Failed to parse contents of {target.configmap_key} as JSON: {error}")
    return raw


def jackson_parse_error(text):
    """None if ``ObjectMapper.readValue(text, Object.class)`` would accept the text, else a Jackson-like message.

    Jackson accepts any JSON value and, with default features, ignores content after the first value.
    """
    stripped = text.lstrip(" \t\r\n")
    if not stripped:
        return "No content to map due to end-of-input"
    try:
        json.JSONDecoder().raw_decode(stripped)
    except json.JSONDecodeError as err:
        return (f"{err.msg}\n at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); "
                f"line: {err.lineno}, column: {err.colno}]")
    return None


# ----------------------------------------------------------------------------------------------- helpers

def _remove_annotations(ctx, target):
    meta = target.cr["metadata"]
    plural_path = f"apis/{GROUP}/{ctx.kube.version}/namespaces/{meta['namespace']}/{PLURALS[target.kind]}/{meta['name']}"
    _kube(ctx, "PATCH", plural_path, lambda: ctx.kube.remove_annotations(
        target.kind, meta["namespace"], meta["name"], meta["resourceVersion"], target.annotations))


def _rest(call):
    try:
        return call()
    except ConnectRestError as err:
        raise StepFailure(err.message) from err
    except ConnectUnreachable as err:
        # Java concatenates getMessage(): "... offsets. null" when the exception has no message.
        raise StepFailure("null" if err.message is None else err.message) from err


def _kube(ctx, method, path, call):
    try:
        return call()
    except ApiException as err:
        url = f"{ctx.kube.api_client.configuration.host}/{path}"
        raise StepFailure(api_error_text(err, method, url)) from err


def _warn(ctx, target, reason, message):
    ctx.decide(target.cr, f"connector {target.connector}: Warning {reason}: {message.splitlines()[0]}")
    return [warning(reason, message)]
