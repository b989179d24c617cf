"""``kubectl offsets recover``: finish or roll back an interrupted operation from the journal it left.

It sits above every declaration that can leave a journal (``steps.ALTER``, the MirrorMaker 2 full reset, the delete
of ``lifecycle``), picks the one that wrote it, and lets the engine resume from the journal against it."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ... import strimzi
from ...conventions import ANNOTATION_JOURNAL
from ...errors import InputError, NotFoundError, PreconditionError
from ...model import Options
from ...progress import Progress, SilentProgress
from . import lifecycle, mm2_full_reset
from .engine import Run
from .journal import Journal
from .steps import ALTER
from .targets import TargetSpec, resolve

if TYPE_CHECKING:
    from ...adapters.kube import Kube


def recover(kube: Kube, spec: TargetSpec, *, namespace: str | None = None, rollback: bool = False, force: bool = False,
            wait: bool = False, options: Options | None = None, progress: Progress | None = None) -> str:
    """Finish (or with ``rollback`` undo the state changes of) an interrupted operation, from its journal.
    ``force``: take over even though its owner's heartbeat is fresh (the owner is known to be gone); ``wait``:
    wait until that heartbeat's lease runs out instead."""
    options, progress = options or Options(), progress or SilentProgress()
    live = resolve(kube, spec, namespace)
    text = ((live.resource.get("metadata") or {}).get("annotations") or {}).get(ANNOTATION_JOURNAL)
    if text is None:
        raise NotFoundError(f"no interrupted kubectl-offsets operation on {live.target.display}",
                            advice="nothing to recover; kubectl offsets list shows the current offsets")
    journal = Journal.from_annotation(text)
    if journal.connector != live.target.connector_name:
        raise PreconditionError(f"the interrupted operation is on connector '{journal.connector}'",
                                next_command=journal.recover_command(live.target.namespace))
    if options.dry_run:
        return _recover_plan(journal, live.target, rollback, force)
    run = mm2_full_reset.for_recover(kube, live, journal, options, progress)
    if run is None:
        if options.mm2 is not None and options.mm2.offset_syncs_bootstrap:
            raise InputError("--bootstrap-server is for the recover of a MirrorMaker 2 full reset (its offset-syncs "
                             f"topic); the interrupted operation on {live.target.display} is a {journal.operation}",
                             advice="run recover without it",
                             next_command=journal.recover_command(live.target.namespace))
        run = lifecycle.for_recover(kube, live, journal, options, progress) or \
            Run(ALTER, kube, live.target, live.kind, options.wait, progress, resume=options.resume)
    return run.recover(journal, rollback=rollback, force=force, wait=wait)


def _recover_plan(journal: Journal, target: strimzi.ConnectorTarget, rollback: bool, force: bool) -> str:
    """recover --dry-run: what recover would do with this journal (the same decision Run.recover takes)."""
    if journal.owner_alive() and not force:
        return (f"dry run: recover would refuse: {journal.presence()}; it may still be working on {target.display} "
                f"(--force takes over)")
    action = "roll back" if rollback or not journal.past_point_of_no_return else "finish"
    return f"dry run: recover would {action} the {journal.describe()} on {target.display}"
