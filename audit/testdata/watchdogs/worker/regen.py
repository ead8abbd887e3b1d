import asyncio
import logging

import anthropic

log = logging.getLogger(__name__)
client = anthropic.AsyncAnthropic(max_retries=0)

STALL_SECONDS = 300


async def _draft(prompt: str) -> str:
    msg = await client.messages.create(
        model="claude-sonnet-4-5", max_tokens=4096, messages=[{"role": "user", "content": prompt}]
    )
    return msg.content[0].text


async def draft(prompt: str, regenerations: int = 2) -> str:
    # A turn that stalls past STALL_SECONDS is thrown away and generated
    # again from scratch.
    for attempt in range(regenerations + 1):
        try:
            return await asyncio.wait_for(_draft(prompt), timeout=STALL_SECONDS)
        except asyncio.TimeoutError:
            log.warning("draft stalled after %ss (attempt %d), regenerating", STALL_SECONDS, attempt + 1)
    raise RuntimeError("draft stalled on every attempt")


async def outline(prompt: str) -> str:
    try:
        return await asyncio.wait_for(_draft("Outline: " + prompt), timeout=120)
    except (asyncio.TimeoutError, anthropic.APITimeoutError):
        log.info("outline stalled; asking once more")
        return await asyncio.wait_for(_draft("Outline: " + prompt), timeout=120)
