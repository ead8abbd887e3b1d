import asyncio
import logging

log = logging.getLogger(__name__)


async def title(client, text: str) -> str | None:
    # Near miss: a deadline whose expiry returns no title.
    try:
        msg = await asyncio.wait_for(
            client.messages.create(model="claude-haiku-4-5", max_tokens=64, messages=[{"role": "user", "content": text}]),
            timeout=20,
        )
        return msg.content[0].text
    except asyncio.TimeoutError:
        log.warning("title timed out; leaving it empty")
        return None


async def drain(queue: asyncio.Queue, handle) -> None:
    # Near miss: a poll. The timeout only wakes the loop to check for
    # shutdown; nothing is sent again.
    while True:
        try:
            job = await asyncio.wait_for(queue.get(), timeout=1.0)
        except asyncio.TimeoutError:
            continue
        await handle(job)
