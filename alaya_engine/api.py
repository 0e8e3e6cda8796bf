"""The method table: each request name ("recall", "ingest", …) mapped to an engine call and its JSON document.

Every face reaches the store through :func:`call` — the CLI and the explorer through a backend (the owner
server or in-process), the MCP server and the OpenClaw plugin through the server — so each gets the very same
document for the same request: what ``--json`` prints is what a person's screen is rendered from.
"""

from __future__ import annotations

import base64
import binascii
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .foundations.disk import disk_full, is_disk_full
from .foundations.errors import AlayaError
from .foundations.json_input import has_lone_surrogate, without_lone_surrogates

if TYPE_CHECKING:
    from .engine import Engine

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None] | None
Handler = Callable[["Engine", dict, Progress], dict]
METHODS: dict[str, Handler] = {}
WRITES = frozenset({"ingest", "distill", "link", "unlink", "introspect", "restore", "review.approve", "review.reject",
                    "review.undo", "backup", "import_memex", "remote.add", "remote.remove", "push", "pull"})
"""Methods that change the store (the server runs them one at a time)."""


def method(name: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        METHODS[name] = handler
        return handler

    return register


def call(engine: "Engine", name: str, params: dict[str, Any], progress: Progress = None) -> dict:
    handler = METHODS.get(name)
    if handler is None:
        raise AlayaError("unknown_method", f"unknown method '{name}'; known: {', '.join(sorted(METHODS))}")
    if not isinstance(params, dict):
        raise AlayaError("bad_request", "params must be a JSON object")
    try:
        return handler(engine, params, progress)
    except AlayaError:
        raise
    except Exception as error:
        if not is_disk_full(error, engine.layout.home):
            raise
        log.error("%s stopped: the disk is full (%s)", name, error)
        raise disk_full(error, engine.layout.home) from None


def _texts(params: dict, key: str) -> list[str]:
    """A list of strings ([] when absent): a lone string is refused, never walked as characters (``"paths":
    "/etc/passwd"`` once made ingest scan ``/``)."""
    value = params.get(key)
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise AlayaError("bad_request", f"{key} must be a list of strings")
    return value


def _card_id(params: dict, key: str = "card_id") -> str:
    """The card id under ``key``: every method that looks a card up by id reads it here."""
    return _utf8(str(params.get(key, "")), "card id", "bad_id", "card ids come from recall")


def _utf8(text: str, what: str, code: str, remedy: str) -> str:
    """``text``, refused as bad input when it is not UTF-8: a command-line argument of other bytes arrives holding
    lone surrogates, which the graph store's binding cannot take as a query parameter and no file can hold (they
    failed as an unexpected RuntimeError or UnicodeEncodeError, with a traceback in the log)."""
    if has_lone_surrogate(text):
        raise AlayaError(code, f"{what} '{without_lone_surrogates(text)}' is not valid UTF-8 text; {remedy}")
    return text


def _base64(params: dict, key: str) -> bytes | None:
    value = params.get(key)
    if value is None:
        return None
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, TypeError, ValueError):
        raise AlayaError("bad_request", f"{key} must be base64 text") from None


@method("ingest")
def _ingest(engine: "Engine", params: dict, progress: Progress) -> dict:
    stdin = _base64(params, "stdin_b64")
    report = engine.ingest(_texts(params, "paths"), replace=bool(params.get("replace")), stdin=stdin,
                           progress=progress)
    fresh = [o.session_id for o in report.outcomes if o.status in ("ingested", "replaced", "unchanged")]
    distilled = None
    if fresh and (params.get("distill") or engine.config["distill"]["auto_distill"]):
        distilled = engine.distill(fresh, progress=progress).to_json()
    return {**report.to_json(), "distill": distilled}


@method("distill")
def _distill(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.distill(_texts(params, "sessions") or None, force=bool(params.get("force")),
                          dry_run=bool(params.get("dry_run")), progress=progress).to_json()


@method("introspect")
def _introspect(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.introspect(_texts(params, "steps") or None, dry_run=bool(params.get("dry_run")), progress=progress)


@method("restore")
def _restore(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.restore(_card_id(params))


@method("review.list")
def _review_list(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.review_list(params.get("status"))


@method("review.show")
def _review_show(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.review_show(str(params.get("id", "")))


@method("review.approve")
def _review_approve(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.review_decide(_texts(params, "ids"), approve=True)


@method("review.reject")
def _review_reject(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.review_decide(_texts(params, "ids"), approve=False)


@method("review.undo")
def _review_undo(engine: "Engine", params: dict, progress: Progress) -> dict:
    suggestion_id = params.get("id")
    return engine.review_undo(None if suggestion_id is None else str(suggestion_id))


@method("recall")
def _recall(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.recall(params.get("request", {})).to_json()


@method("status")
def _status(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.status().to_json()


@method("overview")
def _overview(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.overview()


@method("neighbourhood")
def _neighbourhood(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .graph.neighbourhood import DEFAULT_LIMIT, MAX_HOPS

    return engine.neighbourhood(_card_id(params), params.get("hops", MAX_HOPS), params.get("limit", DEFAULT_LIMIT))


@method("timeline")
def _timeline(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .maintenance.timeline import DEFAULT_SESSIONS

    return engine.timeline(params.get("by", "day"), params.get("sessions", DEFAULT_SESSIONS))


@method("browse")
def _browse(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.browse(params)


@method("card.heat")
def _card_heat(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .introspect.heat_history import DEFAULT_DAYS

    return engine.card_heat(_card_id(params), params.get("days", DEFAULT_DAYS))


@method("schema")
def _schema(engine: "Engine", params: dict, progress: Progress) -> dict:
    relations, node_types = bool(params.get("relations")), bool(params.get("node_types"))
    document = {}
    if relations or not node_types:
        document["relations"] = engine.schema_relations().to_json()
    if node_types or not relations:
        document["node_types"] = engine.schema_node_types().to_json()
    return document


@method("backup")
def _backup(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.backup(params.get("out")).to_json()


@method("verify")
def _verify(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.verify().to_json()


@method("card")
def _card(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.card(_card_id(params))


@method("trace")
def _trace(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.trace(_card_id(params)).to_json()


@method("entity")
def _entity(engine: "Engine", params: dict, progress: Progress) -> dict:
    return engine.entity(params.get("name"))


@method("session.turns")
def _session_turns(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .raw.turn_range import DEFAULT_COUNT, session_turns

    document = session_turns(engine.raw, params.get("session_id"), params.get("first", 0),
                             params.get("count", DEFAULT_COUNT))
    return {**document, "cards": engine.session_cards(document["session_id"])}


@method("link")
def _link(engine: "Engine", params: dict, progress: Progress) -> dict:
    fields = {"source": params.get("source"), "target": params.get("target"),
              "relation": params.get("relation", "RELATES_TO"), "reason": params.get("reason", "")}
    wrong = [name for name, value in fields.items() if not isinstance(value, str)
             and not (name == "relation" and value is None)]  # None: not chosen, refused by the engine
    weight = params.get("weight", 1.0)
    if wrong or isinstance(weight, bool) or not isinstance(weight, (int, float)):
        raise AlayaError("bad_request", f"link needs text for {', '.join(wrong) or 'its fields'} and a number weight")
    reason = _utf8(fields["reason"], "the reason", "bad_request", "set the terminal to UTF-8 and type it again")
    return engine.link(_card_id(params, "source"), _card_id(params, "target"), fields["relation"], reason,
                       float(weight), new_relation=params.get("new_relation") is True).to_json()


@method("unlink")
def _unlink(engine: "Engine", params: dict, progress: Progress) -> dict:
    if not isinstance(params.get("relation"), str):
        raise AlayaError("missing_relation", "say which relation to remove: --rel NAME (alaya trace CARD lists a "
                                             "card's edges)")
    return engine.unlink(_card_id(params, "source"), _card_id(params, "target"), params["relation"]).to_json()


@method("export")
def _export(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .export import export_store

    return export_store(engine, params.get("out") or None, progress=progress)


@method("import_memex")
def _import_memex(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .memex.importer import import_memex

    return import_memex(engine, str(params.get("path") or ""), progress=progress)


def _remote_name(params: dict, required: bool = False) -> str | None:
    name = params.get("name")
    if name is None and not required:
        return None
    if not isinstance(name, str) or not name:
        raise AlayaError("bad_request", "name must be the remote's name (text)")
    return name


@method("remote.add")
def _remote_add(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .sync.remotes import add_remote

    url = params.get("url")
    if not isinstance(url, str):
        raise AlayaError("bad_request", "url must be text")
    return add_remote(engine.layout, engine.config, _remote_name(params, required=True), url)


@method("remote.list")
def _remote_list(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .sync.remotes import list_remotes

    return list_remotes(engine.layout, engine.config)


@method("remote.remove")
def _remote_remove(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .sync.remotes import remove_remote

    return remove_remote(engine.layout, engine.config, _remote_name(params, required=True))


@method("push")
def _push(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .sync.push import push

    return push(engine.layout, engine.config, _remote_name(params), dry_run=bool(params.get("dry_run")))


@method("pull")
def _pull(engine: "Engine", params: dict, progress: Progress) -> dict:
    from .sync.pull import pull

    return pull(engine, lambda paths, replace: engine.ingest(paths, replace=replace),
                lambda sessions: engine.distill(sessions), _remote_name(params))
