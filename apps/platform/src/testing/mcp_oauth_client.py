"""Signs in to the platform's MCP endpoint with the Python SDK's OAuthClientProvider, then calls execute_chat.

Driven by mcp-sign-in-e2e.spec.ts: the SDK knows only the MCP URL (and, for a Client ID Metadata Document, the
document's URL). Where a browser would open the authorization URL, this prints `AUTHORIZE <url>`; the test drives
the login and consent pages and writes back the URL the browser was sent to (the redirect URI with the code).
The tool's result is printed as `RESULT <json>`.

Environment: MCP_URL, REDIRECT_URI, PROMPT, and CLIENT_METADATA_URL (absent: dynamic registration).
"""

import asyncio
import json
import os
import sys
from urllib.parse import parse_qs, urlparse

import httpx2
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.session import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)


class MemoryStorage(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client_info: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client_info

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client_info = client_info


async def redirect_handler(authorization_url: str) -> None:
    print(f"AUTHORIZE {authorization_url}", flush=True)


async def callback_handler() -> AuthorizationCodeResult:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    query = parse_qs(urlparse(line.strip()).query)
    if "code" not in query:
        raise RuntimeError(f"the authorization failed: {query}")
    return AuthorizationCodeResult(
        code=query["code"][0],
        state=query.get("state", [None])[0],
        iss=query.get("iss", [None])[0],
    )


async def main() -> None:
    mcp_url = os.environ["MCP_URL"]
    provider = OAuthClientProvider(
        server_url=mcp_url,
        client_metadata=OAuthClientMetadata(
            client_name="Python SDK e2e",
            redirect_uris=[os.environ["REDIRECT_URI"]],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
            token_endpoint_auth_method="none",
        ),
        storage=MemoryStorage(),
        redirect_handler=redirect_handler,
        callback_handler=callback_handler,
        client_metadata_url=os.environ.get("CLIENT_METADATA_URL") or None,
    )
    async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
        async with streamable_http_client(mcp_url, http_client=http) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                result = await session.call_tool("execute_chat", {"prompt": os.environ["PROMPT"]})
                print(f"RESULT {json.dumps(result.structured_content)}", flush=True)


if __name__ == "__main__":
    asyncio.run(main())
