package audit

import (
	"strings"
	"testing"
)

// Round 9's misses (issue 37), hand loops half: a countdown around an
// embeddings call, a count assigned in a tuple bounding a loop that tests
// the response's status code, a literal range whose timeout handler
// re-raises (not a stall watchdog's loop). Fixtures of our own shape.

const embedLoopsPy = `import random
import time


class Embedder:
    def __init__(self, client, model):
        self.client = client
        self.model = model

    def encode(self, texts):
        out = []
        for i in range(0, len(texts), 16):
            budget_tries = 4
            while budget_tries > 0:
                try:
                    res = self.client.embeddings.create(inputs=texts[i : i + 16], model=self.model)
                    out.extend(d.embedding for d in res.data)
                    break
                except Exception as e:
                    if budget_tries == 1:
                        raise RuntimeError("embedding failed") from e
                    time.sleep(random.uniform(5, 10))
                    budget_tries -= 1
        return out

    def encode_native(self, texts, api):
        out = []
        for i in range(0, len(texts), 4):
            batch, retry_max, wait_s = texts[i : i + 4], 6, 5
            for retry in range(retry_max):
                resp = api.TextEmbedding.call(model=self.model, input=batch)
                if 400 <= resp.status_code < 500 and resp.status_code not in (408, 429):
                    raise ValueError(resp)
                if resp.status_code == 200:
                    break
                if retry < retry_max - 1:
                    time.sleep(wait_s)
                else:
                    raise RuntimeError(resp)
            out.extend(resp.output)
        return out

    def wait_ready(self, api):
        # a poll: a state, not a status code
        for attempt in range(30):
            job = api.status()
            if job.status == "done":
                break
            time.sleep(5)

    def wait_healthy(self, api):
        # a readiness wait: a 200 awaited, nothing given up
        for attempt in range(30):
            resp = api.health()
            if resp.status_code == 200:
                break
            time.sleep(2)
`

const reraiseLastPassPy = `import asyncio
import logging


class Extractor:
    def __init__(self, llm):
        self._llm = llm

    async def ask(self, system, history):
        answer = ""
        for attempt in range(3):
            try:
                answer = await asyncio.wait_for(self._llm.async_chat(system, history), timeout=900)
                if "**ERROR**" in answer:
                    raise RuntimeError(answer)
                break
            except asyncio.TimeoutError:
                logging.warning("the model took too long")
                raise
            except Exception as e:
                logging.exception(e)
                if attempt == 2:
                    raise
        return answer
`

func TestRound9HandLoops(t *testing.T) {
	r := scanTree(t, map[string]string{"emb/embed.py": embedLoopsPy, "graph/extract.py": reraiseLastPassPy})
	for _, c := range []struct {
		file    string
		line, n int
		shown   string
	}{
		{"emb/embed.py", 14, 4, "budget_tries counted down from 4"},
		{"emb/embed.py", 30, 6, "retry_max = 6, value assigned in a tuple at emb/embed.py:29"},
		{"graph/extract.py", 11, 3, "for attempt in range(3)"},
	} {
		l := layerAt(t, r, c.file, c.line)
		if l.Attempts != c.n || !strings.Contains(l.Setting, c.shown) {
			t.Errorf("%s:%d: %d attempts (%s), want %d shown as %q", c.file, c.line, l.Attempts, l.Setting, c.n, c.shown)
		}
	}
	if l := layerAt(t, r, "emb/embed.py", 30); l.Retries4xx {
		t.Errorf("emb/embed.py:30: said to retry a 4xx; it raises on one but 408 and 429")
	}
	noLayerAt(t, r, "emb/embed.py", 49, "a poll of a state")
	noLayerAt(t, r, "emb/embed.py", 53, "a readiness wait for a 200")
}

const whileTrueCtorBoundPy = `import random
import time
from typing import Any, Callable


class Backoff:
    """Sends func again after each failure, up to max_retries times."""

    def __init__(
        self,
        *,
        max_retries: int = 6,  # 2^6 s at most between tries
        base: float = 2.0,
        **kwargs: dict,
    ) -> None:
        self._max_retries = max_retries
        self._base = base
        self._skip = ["BadRequestError", "AuthenticationError"]

    def run(self, *, func: Callable[..., Any], input_args: dict[str, Any]) -> Any:
        retries: int = 0
        delay = 1.0
        while True:
            try:
                return func(**input_args)
            except Exception as e:
                if e.__class__.__name__ in self._skip:
                    raise
                if retries >= self._max_retries:
                    raise
                retries += 1
                delay *= self._base
                time.sleep(delay + random.uniform(0, 1))
`

func TestWhileTrueRaisesPastConstructorDefault(t *testing.T) {
	r := scanTree(t, map[string]string{"llm/retry/backoff.py": whileTrueCtorBoundPy})
	l := layerAt(t, r, "llm/retry/backoff.py", 23)
	if l.Attempts != 7 || !strings.Contains(l.Setting, "max_retries = 6 (default of the parameter at llm/retry/backoff.py:12)") {
		t.Errorf("backoff.py:23: %d attempts (%s), want 7: tested before the count, 6 by the constructor's default", l.Attempts, l.Setting)
	}
	if l.Retries4xx {
		t.Errorf("backoff.py:23: said to retry a 400; its handler raises at once for the errors it names by class")
	}
}

const storageSaveTS = `import { Storage } from "@google-cloud/storage";
import { logger } from "./logger";

const storage = new Storage();

export async function saveReport(id: string, report: object): Promise<void> {
  const file = storage.bucket("reports").file(` + "`${id}.json`" + `);
  for (let i = 0; i < 3; i++) {
    try {
      await file.save(JSON.stringify(report), { contentType: "application/json" });
      break;
    } catch (error) {
      if (i === 2) {
        throw error;
      } else {
        logger.warn("save failed, trying again", { error, id, i });
      }
    }
  }
}

export async function parseFirst(lines: string[]): Promise<object | null> {
  for (let i = 0; i < 4; i++) {
    try {
      return JSON.parse(lines[i]);
    } catch (error) {
      logger.debug("not JSON", { i });
    }
  }
  return null;
}

export async function cachePage(key: string, page: string): Promise<string> {
  const file = storage.bucket("pages").file(key);
  for (let i = 0; i < 4; i++) {
    try {
      await file.save(page);
      logger.info("cached", { key });
      return key;
    } catch (error) {
      if (i === 3) throw error;
    }
  }
  return key;
}

export async function firstReachable(urls: string[]): Promise<string | null> {
  for (let i = 0; i < urls.length; i++) {
    try {
      await fetch(urls[i]);
      return urls[i];
    } catch (error) {
      logger.debug("unreachable", { i });
    }
  }
  return null;
}
`

const goMiddlewareRetry = `package middleware

import (
	"context"
	"time"
)

type Next func(ctx context.Context, req *Request) (*Response, error)

type Request struct{ Prompt string }
type Response struct{ Text string }

// Retry sends a model request again after a failure.
type Retry struct {
	MaxRetries int
	Delay      time.Duration
}

var sleepFunc = func(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func (r *Retry) maxRetries() int {
	if r.MaxRetries > 0 {
		return r.MaxRetries
	}
	return 4
}

func (r *Retry) Wrap(ctx context.Context, req *Request, next Next) (*Response, error) {
	maxRetries := r.maxRetries()
	var lastErr error
	for attempt := 0; attempt <= maxRetries; attempt++ {
		resp, err := next(ctx, req)
		if err == nil {
			return resp, nil
		}
		lastErr = err
		if attempt == maxRetries {
			break
		}
		if !isRetryable(err) {
			return nil, err
		}
		if err := sleepFunc(ctx, r.Delay); err != nil {
			return nil, lastErr
		}
	}
	return nil, lastErr
}

func isRetryable(err error) bool { return err != context.Canceled }
`

func TestRound9LoopsJSAndGo(t *testing.T) {
	r := scanTree(t, map[string]string{"src/lib/save.ts": storageSaveTS, "mw/retry.go": goMiddlewareRetry})
	if l := layerAt(t, r, "src/lib/save.ts", 8); l.Attempts != 3 {
		t.Errorf("save.ts:8: %d attempts, want 3 (a save awaited then left, the catch going on)", l.Attempts)
	}
	noLayerAt(t, r, "src/lib/save.ts", 23, "a search for the first line that parses (nothing awaited)")
	if l := layerAt(t, r, "src/lib/save.ts", 35); l.Attempts != 4 {
		t.Errorf("save.ts:35: %d attempts, want 4 (a save awaited, then a return)", l.Attempts)
	}
	noLayerAt(t, r, "src/lib/save.ts", 48, "a walk over a list of URLs, one try each")
	l := layerAt(t, r, "mw/retry.go", 38)
	if l.Attempts != 5 || !strings.Contains(l.Setting, "maxRetries = 4, returned by maxRetries() when nothing sets it, at mw/retry.go:32") {
		t.Errorf("retry.go:38: %d attempts (%s), want 5 from the getter's default 4", l.Attempts, l.Setting)
	}
	if l.Retries4xx {
		t.Errorf("retry.go:38: said to retry a 400; it returns when isRetryable says no")
	}
}
