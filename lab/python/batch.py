"""An asyncio batch on httpx, tenacity and structlog (Debian's packages).

The official anthropic SDK is not a Debian package, so the client below
does what its AsyncAPIClient does on the wire (max_retries 2, its backoff,
x-stainless-retry-count, retry-after-ms/retry-after) and prints its log
lines as src/anthropic/_base_client.py writes them: the same logger name,
format, messages and line numbers (anthropic-sdk-python at commit
009b035305e0724ce108ebd796935f91711fc6e1), and httpx's own lines (the
real httpx). The app names its job in an x-job-id header passed per call
(the SDK's extra_headers), which the SDK's "Request options" dump shows
under 'headers' (model_dump(options, exclude_unset=True): method, url,
headers, json_data). Around it, the app's tenacity wrapper (3 attempts)
and structlog JSON lines.

Env: LAB_BASE_URL, JOBS, CONCURRENCY, APP_LOG (the app's lines to a file),
ANTHROPIC_LOG=debug (the SDK's lines, on stderr), LAB_TIMEOUT_MS.
"""
import asyncio
import logging
import os
import random
import sys

import httpx
import structlog
from tenacity import AsyncRetrying, stop_after_attempt, wait_exponential

# The SDK's logging set-up (anthropic/_utils/_logs.py): ANTHROPIC_LOG=debug.
sdk_log = logging.getLogger("anthropic._base_client")
if os.environ.get("ANTHROPIC_LOG") == "debug":
    logging.basicConfig(format="[%(asctime)s - %(name)s:%(lineno)d - %(levelname)s] %(message)s", datefmt="%Y-%m-%d %H:%M:%S")
    logging.getLogger("anthropic").setLevel(logging.DEBUG)
    logging.getLogger("httpx").setLevel(logging.DEBUG)


def sdk(level, lineno, msg, *args, exc_info=None):
    """Log as the SDK's line `lineno` of _base_client.py does."""
    if sdk_log.isEnabledFor(level):
        if exc_info:
            exc_info = sys.exc_info()
        sdk_log.handle(sdk_log.makeRecord(sdk_log.name, level, "_base_client.py", lineno, msg, args, exc_info))


class APIError(Exception):
    def __init__(self, status, request_id):
        super().__init__(f"Error code: {status}")
        self.status, self.request_id = status, request_id


class Messages:
    """AsyncAPIClient.request's loop for POST /v1/messages."""

    def __init__(self, http, max_retries=2):
        self.http, self.max_retries = http, max_retries

    async def create(self, job_id, body):
        for retries_taken in range(self.max_retries + 1):
            remaining = self.max_retries - retries_taken
            sdk(logging.DEBUG, 515, "Request options: %s", {"method": "post", "url": "/v1/messages", "headers": {"x-job-id": job_id}, "json_data": body})
            headers = {"x-stainless-retry-count": str(retries_taken), "x-job-id": job_id, "anthropic-version": "2023-06-01"}
            url = self.http.base_url.join("/v1/messages")
            sdk(logging.DEBUG, 2044, "Sending HTTP Request: %s %s", "POST", url)
            try:
                resp = await self.http.post("/v1/messages", json=body, headers=headers)
            except httpx.TimeoutException:
                sdk(logging.DEBUG, 2053, "Encountered httpx.TimeoutException", exc_info=True)
                if remaining <= 0:
                    raise APIError("timeout", None)
                await self.sleep_for_retry(retries_taken, None)
                continue
            except httpx.TransportError:
                sdk(logging.DEBUG, 2060, "Encountered Exception", exc_info=True)
                if remaining <= 0:
                    raise APIError("connection", None)
                await self.sleep_for_retry(retries_taken, None)
                continue
            sdk(logging.DEBUG, 2063, 'HTTP Response: %s %s "%i %s" %s', "POST", url, resp.status_code, resp.reason_phrase, resp.headers)
            sdk(logging.DEBUG, 2071, "request_id: %s", resp.headers.get("request-id"))
            if resp.is_success:
                return resp.json(), resp.headers.get("request-id")
            if remaining > 0 and self.should_retry(resp):
                await self.sleep_for_retry(retries_taken, resp.headers)
                continue
            raise APIError(resp.status_code, resp.headers.get("request-id"))

    def should_retry(self, resp):
        lineno = {408: 856, 409: 861, 429: 866}.get(resp.status_code, 871 if resp.status_code >= 500 else None)
        if lineno is None:
            sdk(logging.DEBUG, 874, "Not retrying")
            return False
        sdk(logging.DEBUG, lineno, "Retrying due to status code %i", resp.status_code)
        return True

    async def sleep_for_retry(self, retries_taken, headers):
        remaining = self.max_retries - retries_taken
        if remaining == 1:
            sdk(logging.DEBUG, 2080, "1 retry left")
        else:
            sdk(logging.DEBUG, 2082, "%i retries left", remaining)
        timeout = None
        for name, scale in (("retry-after-ms", 1000), ("retry-after", 1)):
            try:
                timeout = float(headers.get(name)) / scale
                break
            except (AttributeError, TypeError, ValueError):
                pass
        if timeout is None or not 0 < timeout <= 60:
            timeout = min(0.5 * 2.0 ** (self.max_retries - remaining), 8.0) * (1 - 0.25 * random.random())
        sdk(logging.INFO, 2085, "Retrying request to %s in %f seconds", "/v1/messages", timeout)
        await asyncio.sleep(timeout)


out = open(os.environ["APP_LOG"], "a", buffering=1) if os.environ.get("APP_LOG") else sys.stdout
structlog.configure(processors=[structlog.processors.add_log_level, structlog.processors.TimeStamper(fmt="iso", utc=True),
                                structlog.processors.JSONRenderer()], logger_factory=structlog.PrintLoggerFactory(file=out))
log = structlog.get_logger()


async def run_job(messages, job_id, slots):
    async with slots:
        try:
            async for attempt in AsyncRetrying(stop=stop_after_attempt(3), wait=wait_exponential(multiplier=0.01, max=0.1), reraise=True):
                with attempt:
                    n = attempt.retry_state.attempt_number
                    log.info("calling model", job_id=job_id, attempt=n, model="claude-sonnet-4-5")
                    try:
                        msg, request_id = await messages.create(job_id, {"model": "claude-sonnet-4-5", "max_tokens": 1024,
                                                                          "messages": [{"role": "user", "content": f"Grade {job_id}."}]})
                    except APIError as err:
                        log.warning("model call failed", job_id=job_id, attempt=n, status=err.status, request_id=err.request_id)
                        raise
                    u = msg["usage"]
                    log.info("model call ok", job_id=job_id, attempt=n, status=200, request_id=request_id, model=msg["model"],
                             input_tokens=u["input_tokens"], output_tokens=u["output_tokens"],
                             cache_read_input_tokens=u["cache_read_input_tokens"], cache_creation_input_tokens=u["cache_creation_input_tokens"])
            log.info("job finished", job_id=job_id, outcome="succeeded")
        except APIError:
            log.error("job failed", job_id=job_id, outcome="failed")


async def main():
    timeout = float(os.environ.get("LAB_TIMEOUT_MS", "600000")) / 1000
    async with httpx.AsyncClient(base_url=os.environ["LAB_BASE_URL"], timeout=timeout) as http:
        messages, slots = Messages(http), asyncio.Semaphore(int(os.environ.get("CONCURRENCY", "4")))
        await asyncio.gather(*(run_job(messages, f"grade-{i:03d}", slots) for i in range(int(os.environ.get("JOBS", "30")))))


asyncio.run(main())
