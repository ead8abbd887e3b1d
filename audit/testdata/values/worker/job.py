import os
import time

import anthropic

MAX_ATTEMPTS = int(os.getenv("JOB_MAX_ATTEMPTS", "4"))


class Settings:
    max_retries: int = 6


settings = Settings()
client = anthropic.Anthropic(max_retries=settings.max_retries)


def run(task):
    for attempt in range(MAX_ATTEMPTS):
        try:
            return task()
        except anthropic.APIError:
            time.sleep(2**attempt)
    raise RuntimeError("gave up")
