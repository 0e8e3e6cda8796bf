"""The commands that manage a store rather than its content: version, init, demo, the explorer, the owner
server, rebuild.

Most of them must run in the client's own process (they open a terminal app, start or stop the server, or
create the store): forwarded to a server, they say so (:func:`.terminal.run_in_client`) and the client runs them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from alaya_engine import __version__
from alaya_engine.foundations.errors import RUNTIME, AlayaError

from . import terminal
from .shared import JsonFlag, emit, say, show, store_home

commands = typer.Typer()
server_app = typer.Typer(help="Manage the store's owner server (pid, uptime, requests, memory).",
                         no_args_is_help=True)
commands.add_typer(server_app, name="server")


@commands.command()
def version(as_json: JsonFlag = False) -> None:
    """Print Alaya's version."""
    emit({"version": __version__}) if as_json else say(f"alaya {__version__}")


@commands.command()
def init(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Create the store: folders, config.json, graph schema, LanceDB tables, core relation embeddings."""
    terminal.run_in_client()
    from alaya_engine.engine import Engine

    show(Engine.init(ctx.obj["home"]).to_json(), as_json, "print_init")


@commands.command()
def demo(
    ctx: typer.Context,
    demo_home: Annotated[Optional[Path], typer.Option("--demo-home", metavar="PATH",
                                                      help="Where to build it (default: --home when it is "
                                                           "new or a demo, else $ALAYA_DEMO_HOME or "
                                                           "~/.alaya-demo).")] = None,
    fresh: Annotated[bool, typer.Option("--fresh", help="Delete an earlier demo store first.")] = False,
    no_tui: Annotated[bool, typer.Option("--no-tui", help="Do not open the explorer afterwards (it opens only on a "
                                                          "terminal, and never with --json).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Build a demo memory from sample sessions shipped with Alaya (offline), show it, then open the explorer on it."""
    terminal.run_in_client()
    from alaya_engine.demo import build_demo, resolve_demo_home
    from alaya_engine.foundations.paths import Layout

    explicit_home = ctx.obj.get("home_option")
    target = resolve_demo_home(demo_home, Path(explicit_home) if explicit_home else None)
    if Layout(target).is_initialised():
        from alaya_engine.server.client import stop_server

        stop_server(target)  # the demo is built in this process: a server of an earlier run lets go of it first
    report = build_demo(target, fresh=fresh).to_json()
    show(report, as_json, "print_demo")
    if not (no_tui or as_json) and terminal.current().stdin_is_tty() and terminal.current().stdout_is_tty():
        _open_explorer(ctx, report["home"])


@commands.command()
def tui(
    ctx: typer.Context,
    card_id: Annotated[Optional[str], typer.Argument(help="Open this card (or window of turns) at once.")] = None,
    query: Annotated[Optional[str], typer.Option("--query", metavar="TEXT",
                                                 help="Recall this at once (the query bar's syntax).")] = None,
) -> None:
    """Open the Alaya explorer (a terminal app) on this store: its home view, a query's results, or a card."""
    terminal.run_in_client()
    _open_explorer(ctx, ctx.obj["home"], query=query, card_id=card_id)


def _open_explorer(ctx: typer.Context, home: str | None, *, query: str | None = None,
                   card_id: str | None = None) -> None:
    from alaya_engine.server.backend import open_backend
    from alaya_tui.app import AlayaApp

    AlayaApp(open_backend(home, ctx.obj["no_server"]), query=query, card_id=card_id).run()


@commands.command()
def serve(
    ctx: typer.Context,
    foreground: Annotated[bool, typer.Option("--foreground", help="Run in this terminal instead of detached.")] = False,
) -> None:
    """Start the owner server for this store (it also starts on demand)."""
    terminal.run_in_client()
    from alaya_engine.foundations.paths import Layout

    layout = Layout(ctx.obj["home"])
    layout.require_initialised()
    if foreground:
        from alaya_engine.server.service import OwnerServer

        raise typer.Exit(OwnerServer(layout.home).run())
    from alaya_engine.server.client import connect, read_server_settings

    client = connect(layout.home, autostart=True, timeout=read_server_settings(layout.home)[1])
    _show_server(client.call("server.status"), as_json=False)


@server_app.command("status")
def server_status(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Is a server running for this store, and how is it doing."""
    terminal.run_in_client()
    from alaya_engine.server.client import ServerClient, owner_pid

    client = ServerClient(store_home(ctx))
    if client.answers():
        document = {"running": True, **client.call("server.status",
                                                    request_timeout=client.settings.connect_timeout)}
    elif (pid := owner_pid(client.home)) is not None:
        raise AlayaError("server_unreachable", f"the server for {client.home} (pid {pid}) holds the store but does "
                                               f"not answer on {client.socket_path}; run: alaya --home {client.home} "
                                               "server stop", RUNTIME)
    else:
        document = {"running": False, "home": str(client.home)}
    _show_server(document, as_json)


@server_app.command("stop")
def server_stop(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Stop the server after the requests in flight (found through its lock even if its socket is gone)."""
    terminal.run_in_client()
    from alaya_engine.server.client import stop_server

    home = store_home(ctx)
    pid = stop_server(home)
    document = {"stopped": pid is not None, "pid": pid, "home": str(home)}
    emit(document) if as_json else say(f"✓ server stopped (pid {pid})" if pid else "no server was running")


@server_app.command("restart")
def server_restart(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Stop the server (if any, even a stopped or stuck one) and start a fresh one."""
    terminal.run_in_client()
    from alaya_engine.server.client import ServerClient, read_server_settings, start_server, stop_server

    client = ServerClient(store_home(ctx))
    stop_server(client.home)
    fresh = start_server(client.home, read_server_settings(client.home)[1])
    _show_server({"running": True, **fresh.call("server.status")}, as_json)


@commands.command()
def rebuild(
    ctx: typer.Context,
    l1: Annotated[bool, typer.Option("--l1", help="Re-embed L1 (vectors) with the configured model.")] = False,
    l2: Annotated[bool, typer.Option("--l2", help="Replay L3 into a fresh L2 (graph).")] = False,
    all_layers: Annotated[bool, typer.Option("--all", help="Both (the default).")] = False,
    as_json: JsonFlag = False,
) -> None:
    """Regenerate L2 and/or L1 from L3 (no model call); also how to switch embedding model or graph engine.

    Maintenance needs the store to itself: a running owner server is stopped first (it starts again on demand).
    """
    _run_rebuild(ctx, {"l1"} if l1 and not (l2 or all_layers) else {"l2"} if l2 and not (l1 or all_layers)
                 else {"l1", "l2"}, as_json)


@commands.command("rebuild-l1")
def rebuild_l1(ctx: typer.Context, as_json: JsonFlag = False) -> None:
    """Another name for: alaya rebuild --l1."""
    _run_rebuild(ctx, {"l1"}, as_json)


def _run_rebuild(ctx: typer.Context, layers: set[str], as_json: bool) -> None:
    terminal.run_in_client()  # it stops the server
    from alaya_engine.engine import Engine
    from alaya_engine.server.client import stop_server

    from .views import progress_bar

    home = store_home(ctx)
    stop_server(home)
    engine = Engine.open(home, for_rebuild=True)
    with progress_bar("Embedding", enabled=not as_json) as advance:
        document = engine.rebuild(layers, advance).to_json()
    show(document, as_json, "print_rebuild")


def _show_server(document: dict, as_json: bool) -> None:
    if as_json:
        return emit(document)
    if not document.get("running", True):
        say(f"no server running for {document['home']}")
        return
    say(f"alaya server {document['version']} · pid {document['pid']} · {document['home']}\n"
          f"up {document['uptime_s']:.0f} s · {document['requests_served']} requests · "
          f"{document['rss_mb']:.0f} MB resident (peak {document['peak_rss_mb']:.0f} MB) · "
          f"graph snapshot {document['graph_snapshot']}")


