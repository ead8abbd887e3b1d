import asyncio

DEFAULT_MAX_ATTEMPT = 3


def retry_async(*, interval: float = 0.5, max_attempt: int = DEFAULT_MAX_ATTEMPT):
    def decorator(fn):
        async def wrapped(*args, **kwargs):
            for attempt in range(1, max_attempt + 1):
                try:
                    return await fn(*args, **kwargs)
                except Exception:
                    if attempt >= max_attempt:
                        raise
                    await asyncio.sleep(interval * attempt)

        return wrapped

    return decorator
