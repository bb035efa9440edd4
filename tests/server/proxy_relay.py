"""A TCP relay on loopback that speaks the PROXY protocol to the server behind it, as HAProxy
with `send-proxy` (v1) or `send-proxy-v2` does: `python proxy_relay.py SERVER_PORT v1|v2`.
It prints the port it listens on, then relays each client to the server, the header first."""

from __future__ import annotations

import asyncio
import ipaddress
import struct
import sys

SIGNATURE = b"\r\n\r\n\x00\r\nQUIT\n"


def header(version: str, client: tuple[str, int], server: tuple[str, int]) -> bytes:
    source, target = ipaddress.ip_address(client[0]), ipaddress.ip_address(server[0])
    if version == "v1":
        family = "TCP4" if source.version == 4 else "TCP6"
        return f"PROXY {family} {source} {target} {client[1]} {server[1]}\r\n".encode()
    family = 0x11 if source.version == 4 else 0x21
    body = source.packed + target.packed + struct.pack("!HH", client[1], server[1])
    return SIGNATURE + bytes([0x21, family]) + struct.pack("!H", len(body)) + body


async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except ConnectionError:
        pass
    finally:
        writer.close()


async def main(server_port: int, version: str) -> None:
    async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection("127.0.0.1", server_port)
        up_writer.write(header(version, writer.get_extra_info("peername")[:2],
                               ("127.0.0.1", server_port)))
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))

    listening = await asyncio.start_server(relay, "127.0.0.1", 0)
    print(listening.sockets[0].getsockname()[1], flush=True)
    async with listening:
        await listening.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(int(sys.argv[1]), sys.argv[2]))
