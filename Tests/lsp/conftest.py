"""Fixtures for driving `handsh --lsp` with a real language client.

pytest-lsp (on pygls and lsprotocol) starts the server as editors do, talks
to it over stdin and stdout, and checks every answer against the protocol's
types. The binary is `$HANDSH_BIN`, else `<repo>/.build/debug/handsh`. Each
test gets its own server and its own temporary folder of documents.
Run with `python3 -m pytest -q -p no:cacheprovider Tests/lsp`.
"""

import asyncio
import os
import sys
from pathlib import Path

import pytest

try:
    import pytest_lsp
    from lsprotocol import types
    from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities
except ImportError as error:  # fail loudly: never skip the whole suite
    raise ImportError(
        "the language server tests need pytest-lsp: pip install pytest-lsp"
    ) from error

from wire import READ_TIMEOUT

REPO = Path(__file__).resolve().parents[2]
HANDSH = os.environ.get("HANDSH_BIN") or str(REPO / ".build" / "debug" / "handsh")
ENV = {"SWIFT_BACKTRACE": "enable=no", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}


def bounded(client):
    """Every request of `client` answered within READ_TIMEOUT seconds, or
    the test that asked fails at once: a deaf server never waits for the
    suite's own limit. Notifications awaited are bounded where awaited."""
    protocol = client.protocol
    unbounded = protocol.send_request_async

    async def send_request_async(method, params=None, *args, **kwargs):
        return await asyncio.wait_for(
            unbounded(method, params, *args, **kwargs), READ_TIMEOUT
        )

    protocol.send_request_async = send_request_async
    return client


def initialize_params(utf8=False):
    capabilities = client_capabilities("neovim")
    capabilities.general = types.GeneralClientCapabilities(
        position_encodings=[types.PositionEncodingKind.Utf16]
    )
    if utf8:
        capabilities.general = types.GeneralClientCapabilities(
            position_encodings=[
                types.PositionEncodingKind.Utf8,
                types.PositionEncodingKind.Utf16,
            ]
        )
    return types.InitializeParams(capabilities=capabilities)


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[HANDSH, "--lsp"], server_env=ENV))
async def client(lsp_client: LanguageClient):
    bounded(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=ClientServerConfig(server_command=[HANDSH, "--lsp"], server_env=ENV))
async def utf8_client(lsp_client: LanguageClient):
    bounded(lsp_client)
    lsp_client.init_result = await lsp_client.initialize_session(initialize_params(utf8=True))
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=[HANDSH, "--lsp", "--ascii"], server_env=ENV)
)
async def ascii_client(lsp_client: LanguageClient):
    bounded(lsp_client)
    await lsp_client.initialize_session(initialize_params())
    yield
    await lsp_client.shutdown_session()
