"""Logging to a rotating file in the home, with secrets scrubbed from every record.

Whole session contents are only ever logged at debug level; API keys never:
the filter replaces the value of every environment variable the config names
as a key source, whatever code path tried to log it.
"""

from __future__ import annotations

import logging
import os
from logging.handlers import RotatingFileHandler
from pathlib import Path
from typing import Any

from .errors import REDACTED, RUNTIME, AlayaError, hide_secrets


class SecretFilter(logging.Filter):
    def __init__(self, secrets: list[str]):
        super().__init__()
        self.secrets = [secret for secret in secrets if len(secret) >= 4]

    def filter(self, record: logging.LogRecord) -> bool:
        """Scrub the message and any traceback text (formatted here, so the handler prints the scrubbed copy)."""
        if self.secrets:
            record.msg, record.args = self._scrub(record.getMessage()), None
            if record.exc_info and not record.exc_text:
                record.exc_text = logging.Formatter().formatException(record.exc_info)
            if record.exc_text:
                record.exc_text = self._scrub(record.exc_text)
            if record.stack_info:
                record.stack_info = self._scrub(record.stack_info)
        return True

    def _scrub(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, REDACTED)
        return text


def configured_secrets(config: dict[str, Any]) -> list[str]:
    names = {config["embedding"].get("api_key_env"), config["distill"].get("api_key_env")}
    return [os.environ[name] for name in names if name and os.environ.get(name)]


class QuietFileHandler(RotatingFileHandler):
    """A log that cannot be written (a full disk) stays silent: logging would otherwise print a traceback to
    stderr for every record, burying the command's one line."""

    def handleError(self, record: logging.LogRecord) -> None:
        pass


PACKAGES = ("alaya_engine", "alaya_cli", "alaya_mcp", "alaya_tui", "alaya")
"""Alaya's packages: their loggers all write to the store's log file (a face's "details are in the log file"
must be true)."""


def setup_logging(home: Path, config: dict[str, Any]) -> None:
    """Send the loggers of Alaya's packages to the configured rotating file (once per process).

    The configured keys are also hidden from every error message from now on.
    """
    hide_secrets(configured_secrets(config))
    settings = config["logging"]
    path = Path(settings["file"]).expanduser()
    path = path if path.is_absolute() else home / path
    loggers = [logging.getLogger(name) for name in PACKAGES]
    if any(getattr(handler, "baseFilename", None) == str(path) for handler in loggers[0].handlers):
        return
    previous = {handler for logger in loggers for handler in logger.handlers}
    for logger in loggers:
        logger.setLevel(settings["level"].upper())
        for handler in list(logger.handlers):
            logger.removeHandler(handler)
    for handler in previous:
        handler.close()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = QuietFileHandler(path, maxBytes=settings["max_bytes"], backupCount=settings["backups"],
                                      encoding="utf-8", errors="backslashreplace")
    except OSError as exc:
        raise AlayaError("log_unwritable", f"cannot write the log file {path}: {exc.strerror or exc}; "
                                           "fix logging.file in config.json", RUNTIME) from None
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretFilter(configured_secrets(config)))
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
