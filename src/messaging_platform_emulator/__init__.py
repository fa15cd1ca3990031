"""Local stand-in of the messaging platform API v2.1: FastAPI app, uvicorn server and CLI.

Platform routes live under ``/api/v2.1``; emulator controls (seed, reset, faults, request record, clock,
schedule lifecycle, generated contacts, keywords and keys) under ``/_emulator``. Nothing here imports Airflow.
"""

from .app import create_app
from .connection import connection_uri
from .emulator import Emulator
from .server import EmulatorServer
from .state import Seed

__all__ = ["Emulator", "EmulatorServer", "Seed", "connection_uri", "create_app"]
