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

REDACTED = "[REDACTED]"


class SecretFilter(logging.Filter):
    def __init__(self, secrets: list[str]):
        super().__init__()
        self.secrets = [secret for secret in secrets if len(secret) >= 4]

    def filter(self, record: logging.LogRecord) -> bool:
        if self.secrets:
            message = record.getMessage()
            for secret in self.secrets:
                message = message.replace(secret, REDACTED)
            record.msg, record.args = message, None
        return True


def configured_secrets(config: dict[str, Any]) -> list[str]:
    names = {config["embedding"].get("api_key_env"), config["distill"].get("api_key_env")}
    return [os.environ[name] for name in names if name and os.environ.get(name)]


def setup_logging(home: Path, config: dict[str, Any]) -> None:
    """Send the ``alaya_engine`` logger to the configured rotating file (once per process)."""
    settings = config["logging"]
    logger = logging.getLogger("alaya_engine")
    logger.setLevel(settings["level"].upper())
    path = Path(settings["file"]).expanduser()
    path = path if path.is_absolute() else home / path
    for handler in list(logger.handlers):
        if getattr(handler, "baseFilename", None) == str(path):
            return
        logger.removeHandler(handler)
        handler.close()
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = RotatingFileHandler(path, maxBytes=settings["max_bytes"], backupCount=settings["backups"], encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(process)d %(levelname)s %(name)s: %(message)s"))
    handler.addFilter(SecretFilter(configured_secrets(config)))
    logger.addHandler(handler)
    logger.propagate = False
