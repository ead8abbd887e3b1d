import asyncio

import anthropic
import httpx
import openai


class LLMClient:
    async def call(self, convo, max_retries: int = 3):
        remaining_retries = max_retries
        while True:
            if remaining_retries == 0:
                raise RuntimeError("the model did not answer")
            remaining_retries -= 1
            try:
                return await self._make_request(convo)
            except (openai.APIConnectionError, anthropic.APIConnectionError):
                continue
            except httpx.ReadTimeout:
                continue
            except (openai.RateLimitError, anthropic.RateLimitError):
                await asyncio.sleep(5)
                continue


class Grounding:
    async def act(self, messages):
        parsed = []
        try_times = 4
        while not parsed:
            if try_times <= 0:
                return []
            try:
                response = await self.client.chat.completions.create(model="ui", messages=messages)
                text = response.choices[0].message.content
            except Exception:
                text = None
                try_times -= 1
            parsed = self.parse(text)
        return parsed


def drain(queue):
    # near miss: a countdown of items, no retry in its name, no model
    left = len(queue)
    while True:
        if left == 0:
            return
        left -= 1
        try:
            queue.pop()
        except IndexError:
            return
