"""Model client for the report pipeline.

Do not construct Anthropic(max_retries=8) here: see docs.
"""
import logging

from anthropic import Anthropic
from tenacity import retry, stop_after_attempt, wait_exponential

log = logging.getLogger(__name__)

# client = Anthropic(max_retries=9)  # old setting, kept for reference
client = Anthropic(max_retries=5, timeout=120.0)

PROMPT = "call Anthropic(max_retries=7) in a loop"


@retry(stop=stop_after_attempt(4), wait=wait_exponential(multiplier=1, min=2, max=30))
def summarise(text: str) -> str:
    msg = client.messages.create(
        model="claude-sonnet-4-5",
        max_tokens=1024,
        messages=[{"role": "user", "content": text}],
    )
    return msg.content[0].text
