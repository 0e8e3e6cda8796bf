"""The commands that connect agents to Alaya: ``alaya mcp``, ``alaya sync openclaw|claude-code|codex`` and
``alaya skill [install]``.

Added to the command line by :mod:`alaya_cli.app`; each is a thin layer over :mod:`alaya_engine.integrations`
(or :mod:`alaya_mcp`), imported only when the command runs (``mcp`` alone costs seconds to import). ``sync`` runs
in the owner server when the command line is forwarded there, with the client's paths and environment; ``mcp``
and ``skill`` run in the client.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from alaya_engine.foundations.errors import RUNTIME, USAGE

from . import terminal
from .shared import RUNTIME_CODES, JsonFlag, emit, failed_distillation, refusal, say, say_failed_sessions

if TYPE_CHECKING:
    from alaya_engine.integrations.runtime_sync import Runtime

commands = typer.Typer()
sync_app = typer.Typer(help="Bring in sessions from agent runtimes (OpenClaw, Claude Code, Codex); safe to run "
                            "from cron.",
                       no_args_is_help=True)
skill_app = typer.Typer()
commands.add_typer(sync_app, name="sync")
commands.add_typer(skill_app, name="skill")


@commands.command()
def mcp(ctx: typer.Context) -> None:
    """Serve Alaya's tools to an agent over the Model Context Protocol (stdio): recall, trace, schema, link,
    ingest, distill, status. Mount it in Claude Code, Cursor, VS Code, Codex or OpenClaw as the command
    `alaya mcp` (add --home PATH for another store)."""
    terminal.run_in_client()
    from alaya_mcp.server import serve

    raise typer.Exit(serve(ctx.obj["home"], ctx.obj["no_server"]))


DistillFlag = Annotated[bool, typer.Option("--distill", help="Distill what was ingested.")]
IncludeActiveFlag = Annotated[bool, typer.Option("--include-active", help=(
    "Re-ingest changed sessions now, without waiting until they are quiet for sync.session_idle_minutes."))]


@sync_app.command("openclaw")
def sync_openclaw(
    ctx: typer.Context,
    state_dir: Annotated[Optional[str], typer.Option("--state-dir", metavar="DIR", help=(
        "OpenClaw's state folder (default: $OPENCLAW_STATE_DIR or ~/.openclaw).")) ] = None,
    agent: Annotated[Optional[str], typer.Option("--agent", metavar="NAME", help="Only this agent's sessions.")] = None,
    distill: DistillFlag = False,
    include_active: IncludeActiveFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Ingest OpenClaw transcripts (agents/*/sessions/*.jsonl) that are new or changed since the last sync."""
    from alaya_engine.integrations.openclaw_sync import DEFAULT_STATE_DIR, OPENCLAW, STATE_DIR_ENV

    _sync(ctx, OPENCLAW, state_dir, STATE_DIR_ENV, DEFAULT_STATE_DIR, agent, distill, include_active, as_json)


@sync_app.command("claude-code")
def sync_claude_code(
    ctx: typer.Context,
    folder: Annotated[Optional[str], typer.Option("--dir", metavar="DIR", help=(
        "Claude Code's config folder (default: $CLAUDE_CONFIG_DIR or ~/.claude).")) ] = None,
    distill: DistillFlag = False,
    include_active: IncludeActiveFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Ingest Claude Code sessions (projects/*/*.jsonl) that are new or changed since the last sync."""
    from alaya_engine.integrations.claude_code_sync import CLAUDE_CODE, DEFAULT_DIR, DIR_ENV

    _sync(ctx, CLAUDE_CODE, folder, DIR_ENV, DEFAULT_DIR, None, distill, include_active, as_json)


@sync_app.command("codex")
def sync_codex(
    ctx: typer.Context,
    folder: Annotated[Optional[str], typer.Option("--dir", metavar="DIR", help=(
        "The Codex home folder (default: $CODEX_HOME or ~/.codex).")) ] = None,
    distill: DistillFlag = False,
    include_active: IncludeActiveFlag = False,
    as_json: JsonFlag = False,
) -> None:
    """Ingest Codex CLI sessions (sessions/YYYY/MM/DD/rollout-*.jsonl) that are new or changed since the last sync."""
    from alaya_engine.integrations.codex_sync import CODEX, DEFAULT_DIR, DIR_ENV

    _sync(ctx, CODEX, folder, DIR_ENV, DEFAULT_DIR, None, distill, include_active, as_json)


def _sync(ctx: typer.Context, runtime: Runtime, folder: str | None, env_name: str, default: str, agent: str | None,
          distill: bool, include_active: bool, as_json: bool) -> None:
    """One sync run for the client: its folder (option, else its environment, else the default), its output."""
    from alaya_engine.integrations.runtime_sync import run_sync

    here = terminal.current()
    chosen = here.path(folder or here.env(env_name) or default)
    document = run_sync(runtime, ctx.obj["home"], ctx.obj["no_server"], state_dir=chosen, agent=agent,
                        distill=distill, include_active=include_active, backend=here.backend)
    if as_json:
        emit(document, refusal(document["changes"], "path", "transcripts") or failed_distillation(document["distill"]))
    else:
        print_sync(document)
    for warning in document["warnings"]:
        say(f"warning: {warning}", error=True)
    refused = [change for change in document["changes"] if change["status"] == "refused"]
    for change in refused:
        say(f"error: {change['path']}: {change['error']['message']}", error=True)
    say_failed_sessions(document["distill"])
    if refused:
        raise typer.Exit(RUNTIME if {c["error"]["code"] for c in refused} <= RUNTIME_CODES else USAGE)
    if document["distill"] and document["distill"]["sessions_failed"]:
        raise typer.Exit(RUNTIME)


@skill_app.callback(invoke_without_command=True)
def skill(ctx: typer.Context) -> None:
    """Print the agent skill (SKILL.md) that teaches an agent to use Alaya; `alaya skill install` installs it."""
    terminal.run_in_client()
    if ctx.invoked_subcommand is None:
        from alaya_engine.skills import skill_text

        sys.stdout.write(skill_text())


@skill_app.command("install")
def skill_install(
    openclaw_dir: Annotated[Optional[str], typer.Option("--openclaw-dir", metavar="DIR", help=(
        "Install into DIR/skills/alaya/ (default: OpenClaw's managed skills, $OPENCLAW_STATE_DIR or ~/.openclaw; "
        "give a workspace folder to install for one agent only).")) ] = None,
    as_json: JsonFlag = False,
) -> None:
    """Copy SKILL.md where OpenClaw loads skills (a different SKILL.md already there is kept as SKILL.md.bak)."""
    from alaya_engine.integrations.skill_install import install_skill

    outcome = install_skill(openclaw_dir).to_json()
    if as_json:
        return emit(outcome)
    verb = {"installed": "Installed", "updated": "Updated", "unchanged": "Already up to date:"}[outcome["status"]]
    print(f"✓ {verb} {outcome['path']}" + (f" (previous version kept as {outcome['backup']})"
                                          if outcome["backup"] else ""))


def print_sync(document: dict) -> None:
    """What changed, one line per file, then the totals (rendered from the ``--json`` document)."""
    if document["busy"]:
        print(document["busy"])
        return
    agents_dir = Path(document["transcripts_dir"])
    for change in document["changes"]:
        print(_change_line(change, agents_dir, document["idle_minutes"]))
    counts = [f"{document[key]} {key}" for key in ("ingested", "replaced", "refused", "waiting") if document[key]]
    counts.append(f"{document['unchanged']} unchanged")
    if document["skipped"]:
        reasons = ", ".join(f"{count} {reason}" for reason, count in document["skipped"].items())
        counts.append(f"{sum(document['skipped'].values())} skipped ({reasons})")
    head = "" if document["changes"] else "nothing changed: "
    print(f"{head}{' · '.join(counts)} · {agents_dir} ({', '.join(document['agents'])}) · "
          f"{document['elapsed_ms']:.0f} ms")
    if document["distill"]:
        from alaya_engine.foundations.human import plural

        distilled = document["distill"]
        print(f"distilled {plural(distilled['sessions_distilled'], 'session')}: "
              f"{plural(distilled['cards_created'], 'card')}, {plural(distilled['links_created'], 'link')}"
              + (f", {distilled['sessions_failed']} failed" if distilled["sessions_failed"] else ""))


def _change_line(change: dict, agents_dir: Path, idle_minutes: int) -> str:
    where = str(Path(change["path"]).relative_to(agents_dir))
    status = change["status"]
    if status == "waiting":
        return (f"… {where}: {change['change']}, active {change['idle_s'] // 60} min ago → ingested once quiet "
                f"for {idle_minutes} min (or --include-active)")
    if status == "refused":
        return f"✗ {where}: {change['change']} → refused: {change['error']['message']}"
    mark = {"ingested": "+", "replaced": "~", "unchanged": "="}[status]
    return f"{mark} {where}: {change['change']} → {status} session {change['session_id']}"
