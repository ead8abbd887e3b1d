package audit

import (
	"strings"
	"testing"
)

// Round 9's false reports and wrong criticals (issue 37), each a general
// rule (notlayers.go) on fixtures of our own shape, with near misses that
// stay layers.

// A search store's connection class: every loop retries the store.
const searchStorePy = `import time

from elastic_transport import ConnectionTimeout
from elasticsearch_dsl import Search

from app.base import StoreBase

ATTEMPTS = 3


class SearchStore(StoreBase):
    def find(self, index, query):
        for i in range(ATTEMPTS):
            try:
                return self.es.search(index=index, body=query)
            except ConnectionTimeout:
                self.log.exception("search timed out")
                self._reconnect()
                continue
        return None

    def bulk(self, index, ops):
        for _ in range(ATTEMPTS):
            try:
                return self.es.bulk(index=index, operations=ops)
            except ConnectionTimeout:
                time.sleep(3)
                self._reconnect()
                continue
            except Exception as e:
                return [str(e)]
`

// A database helper module: a deadlock retry and a tenacity decorator on
// the ORM's errors.
const deadlockPy = `import time
from functools import wraps

from peewee import InterfaceError, OperationalError
from tenacity import retry, retry_if_exception_type, stop_after_attempt, wait_exponential


def retry_deadlock(max_retries=3, delay=0.1):
    def decorator(func):
        @wraps(func)
        def wrapper(*args, **kwargs):
            for attempt in range(max_retries):
                try:
                    return func(*args, **kwargs)
                except OperationalError:
                    if attempt >= max_retries - 1:
                        raise
                    time.sleep(delay * (2 ** attempt))
        return wrapper
    return decorator


def retry_db(func):
    @retry(stop=stop_after_attempt(3), wait=wait_exponential(min=1, max=5),
           retry=retry_if_exception_type((InterfaceError, OperationalError)), reraise=True)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper
`

// A module with no store import that hands its work to the settings'
// document store: the loop retries the store; the one beside it asks a
// model and stays.
const docStoreLoopsPy = `import asyncio
import logging

from app import settings
from app.llm import chat_limiter


async def insert_chunks(batch, index):
    max_retries = 3
    for attempt in range(max_retries):
        try:
            async with chat_limiter:
                await asyncio.to_thread(settings.docStoreConn.insert, batch, index)
            return
        except Exception as e:
            logging.warning("insert failed: %s", e)
            await asyncio.sleep(2 ** attempt)


async def summarize(llm, text):
    max_retries = 3
    for attempt in range(max_retries):
        try:
            return await llm.async_chat(prompt=text)
        except Exception:
            await asyncio.sleep(2 ** attempt)
`

// A Redis health check in TypeScript: a retry helper used on Redis only.
const redisHealthTS = `import { Request, Response } from "express";
import Redis from "ioredis";
import { logger } from "../lib/logger";

export async function redisHealth(req: Request, res: Response) {
  const retryOperation = async (operation: () => Promise<unknown>, retries = 3) => {
    for (let attempt = 1; attempt <= retries; attempt++) {
      try {
        return await operation();
      } catch (error) {
        if (attempt === retries) throw error;
        logger.warn("retrying");
        await new Promise((resolve) => setTimeout(resolve, 2000));
      }
    }
  };
  const redis = new Redis(process.env.REDIS_URL!);
  await retryOperation(() => redis.set("k", "v"));
  res.json({ ok: await retryOperation(() => redis.get("k")) });
}
`

// The same helper beside a fetch: it can reach an API, so it stays.
const redisAndFetchTS = `import Redis from "ioredis";

export async function warm(url: string, retries = 3) {
  const redis = new Redis(process.env.REDIS_URL!);
  for (let attempt = 1; attempt <= retries; attempt++) {
    try {
      const res = await fetch(url);
      await redis.set(url, await res.text());
      return;
    } catch (error) {
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}
`

func TestRound9StoreRetriesAreNoLayers(t *testing.T) {
	r := scanTree(t, map[string]string{
		"app/search_store.py": searchStorePy,
		"app/db_retry.py":     deadlockPy,
		"app/graph_store.py":  docStoreLoopsPy,
		"src/redis-health.ts": redisHealthTS,
		"src/warm.ts":         redisAndFetchTS,
	})
	noLayerAt(t, r, "app/search_store.py", 13, "an Elasticsearch search retried is a store's retry")
	noLayerAt(t, r, "app/search_store.py", 23, "an Elasticsearch bulk retried is a store's retry")
	noLayerAt(t, r, "app/db_retry.py", 12, "a deadlock retry is a database's")
	noLayerAt(t, r, "app/db_retry.py", 24, "tenacity on peewee's errors retries the database")
	noLayerAt(t, r, "app/graph_store.py", 10, "a loop handing its batch to the document store")
	noLayerAt(t, r, "src/redis-health.ts", 7, "a Redis health check's retries")
	layerAt(t, r, "app/graph_store.py", 22) // asks a model
	layerAt(t, r, "src/warm.ts", 5)         // fetches
	for _, f := range r.Findings {
		if f.Severity == SeverityCritical && f.File == "src/redis-health.ts" {
			t.Errorf("critical on a Redis health check: %s", f.Message)
		}
	}
}

// An STS client built to assume a role is not the Bedrock client built
// with its credentials beside it; S3 and Bedrock clients stay.
func TestSTSClientIsNoLayer(t *testing.T) {
	r := scanOne(t, "llm/bedrock.py", `import boto3


class BedrockEmbed:
    def __init__(self, key, region):
        if key.get("mode") == "iam_role":
            sts_client = boto3.client("sts", region_name=region)
            creds = sts_client.assume_role(RoleArn=key["arn"], RoleSessionName="s")["Credentials"]
            self.client = boto3.client(
                service_name="bedrock-runtime",
                aws_access_key_id=creds["AccessKeyId"],
            )
        else:
            iam = boto3.client(service_name="iam")
            self.client = boto3.client("bedrock-runtime", region_name=region)
        self.s3 = boto3.client("s3")
`)
	noLayerAt(t, r, "llm/bedrock.py", 7, "an STS client fetches credentials")
	noLayerAt(t, r, "llm/bedrock.py", 14, "an IAM client")
	for _, n := range []int{9, 15, 16} {
		if l := layerAt(t, r, "llm/bedrock.py", n); l.DefaultID != "botocore" {
			t.Errorf("line %d: %s, want botocore", n, l.DefaultID)
		}
	}
}

// A logger's method called in the guarded call's arguments and again in
// the catch is a log line, not the stalled call made again; the call
// itself made again stays a watchdog.
func TestLoggerCallInCatchIsNoWatchdog(t *testing.T) {
	r := scanOne(t, "src/engine.ts", `import { logger } from "./logger";
import { checkStatus, StillProcessingError, TimeoutError } from "./api";

export async function poll(jobId: string) {
  try {
    return await checkStatus(logger.child({ method: "checkStatus" }), jobId);
  } catch (error) {
    if (error instanceof TimeoutError) {
      logger.child({ method: "poll" }).warn("status timed out", { error });
    }
    throw error;
  }
}

export async function sitemap(url: string) {
  try {
    return await getLinks(url, { timeout: 30000 });
  } catch (error) {
    if (error instanceof TimeoutError) {
      return await getLinks(url, { timeout: 60000 });
    }
    throw error;
  }
}
`)
	noLayerAt(t, r, "src/engine.ts", 7, "logger.child in a catch sends nothing")
	if l := layerAt(t, r, "src/engine.ts", 18); l.DefaultID != "stall-watchdog" {
		t.Errorf("getLinks called again on a timeout: %s, want a stall watchdog", l.DefaultID)
	}
}

const backoffShapesPy = `import backoff
import requests
from dsp import ERRORS
from openai import OpenAI, RateLimitError


class Remote:
    @backoff.on_exception(backoff.expo, ERRORS, max_time=1000)
    def complete(self, prompt):
        response = requests.post(self.url, json={"prompt": prompt})
        response.raise_for_status()
        return response.json()


class Hosted:
    def __init__(self):
        self.client = OpenAI()

    @backoff.on_exception(backoff.expo, ERRORS, max_time=1000)
    def request(self, prompt):
        return self.client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])

    @backoff.on_exception(backoff.expo, (RateLimitError,), max_tries=8)
    def limited(self, prompt):
        return self.client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])

    @backoff.on_exception(backoff.expo, Exception, max_tries=8)
    def everything(self, prompt):
        return self.client.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])

    @backoff.on_exception(backoff.expo, requests.RequestException)
    def forever(self, url):
        return requests.get(url).json()
`

// backoff bounded by max_time is bounded in time, not unbounded; SDK
// exceptions around requests.post never fire; (RateLimitError,) retries
// no 400. Near misses: Exception still retries a 400, and a backoff with
// neither max_tries nor max_time is unbounded.
func TestBackoffDeadlineAndUnraisableExceptions(t *testing.T) {
	r := scanOne(t, "llm/lm.py", backoffShapesPy)
	noLayerAt(t, r, "llm/lm.py", 8, "OpenAI's exceptions around requests.post are never raised")
	l := layerAt(t, r, "llm/lm.py", 19)
	if l.Unbounded || l.Attempts != 2 || !strings.Contains(l.Note, "bounded by 1000 s, not by a count") {
		t.Errorf("max_time=1000: unbounded=%v attempts=%d note=%q, want bounded by 1000 s", l.Unbounded, l.Attempts, l.Note)
	}
	if l := layerAt(t, r, "llm/lm.py", 23); l.Retries4xx || l.Attempts != 8 {
		t.Errorf("(RateLimitError,): retries4xx=%v attempts=%d, want no 400, 8", l.Retries4xx, l.Attempts)
	}
	if l := layerAt(t, r, "llm/lm.py", 27); !l.Retries4xx {
		t.Error("Exception retries a 400 too")
	}
	if l := layerAt(t, r, "llm/lm.py", 31); !l.Unbounded {
		t.Error("no max_tries, no max_time: unbounded")
	}
	for _, f := range r.Findings {
		if f.Kind == FindingUnbounded && f.Line != 31 {
			t.Errorf("unbounded finding at line %d: %s", f.Line, f.Message)
		}
	}
}

// A service that imports its ORM beside a model call keeps its layers:
// the store filter reads the whole file. Its SQL, written by the model
// and run, is written again with the error when it fails (a tuple target
// `tbl, sql = await get_table()`: the call sent again).
func TestORMServiceWithModelCallKeepsLayers(t *testing.T) {
	r := scanOne(t, "services/answer.py", `import logging

from peewee import fn


async def answer(chat_mdl, question, run_sql):
    user_prompt = question

    async def get_table():
        sql = await chat_mdl.async_chat(user_prompt)
        return run_sql(sql), sql

    try:
        tbl, sql = await get_table()
    except Exception as e:
        logging.warning("sql failed: %s", e)
        user_prompt = f"{question}\nThe SQL failed with: {e}\nWrite it again."
        try:
            tbl, sql = await get_table()
        except Exception:
            return None
    return tbl


def count_rows(model):
    return model.select(fn.COUNT(model.id)).scalar()
`)
	if l := layerAt(t, r, "services/answer.py", 15); l.Attempts != 2 || !strings.Contains(l.Setting, "get_table") {
		t.Errorf("SQL written again after its error: attempts=%d setting=%q", l.Attempts, l.Setting)
	}
}

// An STS client built from a session (boto3.Session().client("sts")) is
// no layer either; the session's Bedrock client is.
func TestSessionSTSClientIsNoLayer(t *testing.T) {
	r := scanOne(t, "llm/session.py", `import boto3


def clients(profile):
    sts = boto3.Session(profile_name=profile).client("sts")
    bedrock = boto3.Session(profile_name=profile).client("bedrock-runtime")
    return sts, bedrock
`)
	noLayerAt(t, r, "llm/session.py", 5, "an STS client from a session")
	if l := layerAt(t, r, "llm/session.py", 6); l.DefaultID != "botocore" {
		t.Errorf("bedrock from a session: %s", l.DefaultID)
	}
}
