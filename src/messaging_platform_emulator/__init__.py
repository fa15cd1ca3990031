"""Local stand-in of the messaging platform API v2.1: FastAPI app, uvicorn server, CLI and control client.

Platform routes live under ``/api/v2.1``; emulator controls (seed, reset, accounts, faults, request record, clock,
schedule lifecycle, generated contacts, keywords and keys, simulated events and their callback deliveries) under
``/_emulator``, which ``EmulatorControl`` calls from Python. Nothing here imports Airflow.
"""

from .app import create_app
from .connection import connection_uri
from .control_client import EmulatorControl, EmulatorControlError
from .emulator import Emulator
from .server import EmulatorServer
from .services.accounts import Seed

__all__ = [
    "Emulator",
    "EmulatorControl",
    "EmulatorControlError",
    "EmulatorServer",
    "Seed",
    "connection_uri",
    "create_app",
]
