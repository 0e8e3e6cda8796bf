"""The commands that share a memory between machines through a git remote: ``alaya remote add|list|remove``,
``alaya push`` and ``alaya pull``.

Each is one engine call (:mod:`alaya_engine.sync`), run where other writes run (the owner server, or in-process
under the store lock); what they print is rendered from the same document ``--json`` prints.
"""

from __future__ import annotations

from typing import Annotated, Optional

import typer

from .shared import JsonFlag, call, emit, say

commands = typer.Typer()
remote_app = typer.Typer(help="The git remotes this store shares its memory through (any git host: a bare "
                              "repository over SSH, GitHub, Gitea).", no_args_is_help=True)
commands.add_typer(remote_app, name="remote")

RemoteName = Annotated[Optional[str], typer.Argument(metavar="[NAME]", help=(
    "The remote (default: the only one, or 'origin').")) ]


@remote_app.command("add")
def remote_add(ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="NAME")],
               url: Annotated[str, typer.Argument(metavar="URL", help=(
                   "A git URL: git@host:team/memory.git, https://host/team/memory.git, or a bare repository's "
                   "path."))],
               as_json: JsonFlag = False) -> None:
    """Add a remote to push to and pull from; checks that it answers (with your SSH key or token)."""
    document = call(ctx, "remote.add", {"name": name, "url": url})
    emit(document) if as_json else say(f"added remote {document['name']}: {document['url']}")


@remote_app.command("list")
def remote_list(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """The remotes, with when this machine last pushed to and pulled from each."""
    document = call(ctx, "remote.list")
    if as_json:
        return emit(document)
    from .views import when_or_never

    say(f"this machine: {document['machine']}")
    for remote in document["remotes"]:
        say(f"{remote['name']}\t{remote['url']}\tlast push {when_or_never(remote['last_push'])}\t"
            f"last pull {when_or_never(remote['last_pull'])}")
    if not document["remotes"]:
        say("no remote yet; add one: alaya remote add origin URL")


@remote_app.command("remove")
def remote_remove(ctx: typer.Context, name: Annotated[str, typer.Argument(metavar="NAME")],
                  as_json: JsonFlag = False) -> None:
    """Forget a remote here; the remote and what was pulled from it stay."""
    document = call(ctx, "remote.remove", {"name": name})
    emit(document) if as_json else say(f"removed remote {document['name']} ({document['url']})")


@commands.command()
def push(ctx: typer.Context, name: RemoteName = None,
         dry_run: Annotated[bool, typer.Option("--dry-run", help=(
             "Say what would be sent and what the masker would hide (kind and place, never the secret); send "
             "nothing."))] = False,
         as_json: JsonFlag = False) -> None:
    """Send this machine's shared sessions, their cards, journal and review decisions to a remote, with secrets
    masked in the copy sent (the local store keeps the original)."""
    document = call(ctx, "push", {"name": name, "dry_run": dry_run})
    if as_json:
        return emit(document)
    for item in document["masked"] if dry_run else ():  # a push names them all once, at its dry run
        say(f"would mask {item['kind']} in {item['in']}, {item['where']} at {item['offset']}")
    head = "would push" if dry_run else ("pushed" if document["commit"] else "up to date:")
    say(f"{head} {document['sessions_shared']} shared sessions ({document['sessions_private']} private kept "
        f"here), {document['journal_events']} journal events, {len(document['masked'])} secrets masked → "
        f"{document['remote'] or 'a remote'}"
        + (f" ({document['changed_files']} files changed)" if document["commit"] else ""))


@commands.command()
def pull(ctx: typer.Context, name: RemoteName = None, as_json: JsonFlag = False) -> None:
    """Bring in what other machines pushed: their sessions and cards, journal events and review decisions."""
    document = call(ctx, "pull", {"name": name})
    if as_json:
        return emit(document)
    sessions = ", ".join(f"{count} {status}" for status, count in sorted(document["sessions"].items())) or "none new"
    say(f"pulled from {document['remote']}: sessions {sessions}; {document['records']} distilled records, "
        f"{document['journal_events']} journal events, {document['review_decisions']} review decisions")
    for conflict in document["conflicts"]:
        say(f"kept the local session {conflict['session_id']}: {conflict['from']} pushed another session with "
            "this id", error=True)
