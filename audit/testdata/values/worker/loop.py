import random
import time

import anthropic

from .config import cfg


def call_with_retry(fn):
    """Exponential-backoff retry, bounded by the config (anthropics/claude-quickstarts' shape)."""
    for attempt in range(cfg.api_retry_max_attempts):
        try:
            return fn()
        except anthropic.APIStatusError:
            time.sleep(cfg.api_retry_base_delay * 2**attempt + random.random())
    raise RuntimeError("gave up")


def poll(check, tries):
    # The bound is a parameter without a default: no count, no layer.
    for attempt in range(tries):
        try:
            return check()
        except Exception:
            time.sleep(1)
