import asyncio
import logging
import time

import requests

from .providers import complete, pick_tools_by_rule

log = logging.getLogger(__name__)


async def chat(messages, stream=False, websocket=None):
    max_attempts = 1 if (stream and websocket is not None) else 6
    for attempt in range(1, max_attempts + 1):
        try:
            return await complete(messages, stream=stream)
        except Exception as exc:
            log.warning("attempt %d/%d failed: %s", attempt, max_attempts, exc)
            await asyncio.sleep(min(2 ** (attempt - 1), 8))
    raise RuntimeError("no answer")


async def plan(prompt, limit):
    try:
        response = await complete([{"role": "user", "content": prompt}])
    except Exception as e:
        log.warning("planner failed (%s); once more with a smaller budget", e)
        try:
            response = await complete([{"role": "user", "content": prompt}], max_tokens=limit)
        except Exception:
            response = await complete([{"role": "user", "content": "Briefly: " + prompt}])
    return response


async def choose_tools(prompt, tools):
    try:
        answer = await complete([{"role": "user", "content": prompt}])
        if not answer:
            return pick_tools_by_rule(tools)
        return answer
    except Exception as e:
        log.error("tool choice failed: %s", e)
        return pick_tools_by_rule(tools)


def parse(text):
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return json.loads(text.strip("` \n"))


def fetch(url):
    for attempt in (1, 2):
        try:
            return requests.get(url, timeout=10)
        except requests.RequestException:
            if attempt == 1:
                time.sleep(1)
                continue
            return None
