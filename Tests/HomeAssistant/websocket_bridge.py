"""Home Assistant's websocket API as lines on a pipe, for the tests: run with Home Assistant's own Python (it has
aiohttp) inside the namespace where Home Assistant listens, as `python websocket_bridge.py URL TOKEN`.

It connects (retrying while Home Assistant starts, for up to 180 s), authenticates with the token and prints the
`auth_ok` message; then every JSON line on stdin is sent as one command (the caller numbers them), and every message
Home Assistant sends is printed as one JSON line. It exits when stdin closes or the connection does.
"""

from __future__ import annotations

import asyncio
import json
import sys

import aiohttp


async def connect(session: aiohttp.ClientSession, url: str) -> aiohttp.ClientWebSocketResponse:
    deadline = asyncio.get_running_loop().time() + 180
    while True:
        try:
            return await session.ws_connect(url, max_msg_size=0)
        except (aiohttp.ClientError, OSError):
            if asyncio.get_running_loop().time() > deadline:
                raise
            await asyncio.sleep(0.25)


def emit(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def forward_commands(socket: aiohttp.ClientWebSocketResponse) -> None:
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        if line.strip():
            await socket.send_str(line.strip())
    await socket.close()


async def main(url: str, token: str) -> int:
    async with aiohttp.ClientSession() as session:
        socket = await connect(session, url)
        required = await socket.receive_json()
        if required.get("type") != "auth_required":
            emit(required)
            return 1
        await socket.send_json({"type": "auth", "access_token": token})
        answer = await socket.receive_json()
        emit(answer)
        if answer.get("type") != "auth_ok":
            return 1
        commands = asyncio.create_task(forward_commands(socket))
        async for message in socket:
            if message.type != aiohttp.WSMsgType.TEXT:
                break
            payload = json.loads(message.data)
            for item in payload if isinstance(payload, list) else [payload]:
                emit(item)
        commands.cancel()
        emit({"type": "bridge_closed"})
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1], sys.argv[2])))
