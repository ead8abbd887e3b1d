package audit

import (
	"strings"
	"testing"
)

// Round 9's re-sends (issue 37, resends9.go): the call sent again with a
// longer timeout, and a poll loop that sends a failed call again until
// its error budget is spent; near misses stay no layer.

const resendsTS = `import { logger } from "./logger";

export async function scrapeDocument(url: string, options: { timeout: number; single: boolean }) {
  try {
    return await attemptScrape(url, options.timeout);
  } catch (error) {
    logger.warn("scrape failed", { error });
    if (options.single) {
      return await attemptScrape(url, options.timeout * 2);
    }
    throw error;
  }
}

export async function scrapeOnce(url: string, options: { timeout: number }) {
  try {
    return await attemptScrape(url, options.timeout);
  } catch (error) {
    return await fallbackPage(url, options.timeout * 2);
  }
}

export async function waitForJob(jobId: string) {
  const errorLimit = 3;
  const errors: unknown[] = [];
  let status: string | undefined = undefined;
  while (status === undefined) {
    if (errors.length >= errorLimit) {
      throw new Error("Error limit hit", { cause: { errors } });
    }
    try {
      status = await checkStatus(jobId);
    } catch (error) {
      errors.push(error);
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return status;
}

export async function drain(queue: string[]) {
  const seen: string[] = [];
  while (queue.length > 0) {
    if (seen.length >= 100) {
      break;
    }
    try {
      seen.push(queue.shift()!);
    } catch (error) {
      seen.push(String(error));
    }
  }
}
`

func TestResendsWithLongerTimeoutAndErrorBudget(t *testing.T) {
	r := scanOne(t, "src/scrape.ts", resendsTS)
	if l := layerAt(t, r, "src/scrape.ts", 9); l.Attempts != 2 || !strings.Contains(l.Setting, "options.timeout * 2") {
		t.Errorf("doubled timeout: attempts=%d setting=%q, want 2", l.Attempts, l.Setting)
	}
	noLayerAt(t, r, "src/scrape.ts", 19, "another function is called in the catch")
	if l := layerAt(t, r, "src/scrape.ts", 27); l.Attempts != 3 || !strings.Contains(l.Setting, "error budget") {
		t.Errorf("error budget: attempts=%d setting=%q, want 3", l.Attempts, l.Setting)
	}
	noLayerAt(t, r, "src/scrape.ts", 47, "a budget of seen items, not of errors")
}

func TestPythonResendWithLongerTimeout(t *testing.T) {
	r := scanOne(t, "app/fetch.py", `import httpx


async def fetch_page(client, url, timeout=30):
    try:
        return await client.get(url, timeout=timeout)
    except httpx.HTTPError:
        return await client.get(url, timeout=timeout * 2)
`)
	if l := layerAt(t, r, "app/fetch.py", 8); l.Attempts != 2 {
		t.Errorf("doubled timeout: attempts=%d, want 2", l.Attempts)
	}
}

// A function that calls itself with one try fewer sends the request as
// many times as it is given: its default, or what a call in another file
// passes in its object argument. Pagination that calls itself with the
// next page is no retry.
func TestSelfCallCountingTriesDown(t *testing.T) {
	r := scanTree(t, map[string]string{
		"src/lib/fetch.ts": `export async function robustFetch({ url, tryCount = 1 }: { url: string; tryCount?: number }): Promise<string> {
  let res: Response;
  try {
    res = await fetch(url);
  } catch (error) {
    if (tryCount > 1) {
      return await robustFetch({ url, tryCount: tryCount - 1 });
    }
    throw error;
  }
  return await res.text();
}

export async function fetchAll(url: string, page = 1): Promise<string[]> {
  const res = await fetch(url + "?page=" + page);
  const more = res.headers.get("x-more") === "1";
  return more ? [await res.text(), ...(await fetchAll(url, page + 1))] : [await res.text()];
}
`,
		"src/engines/scrape.ts": `import { robustFetch } from "../lib/fetch";

export async function scrape(url: string) {
  return await robustFetch({ url, tryCount: 3 });
}
`,
		"src/lib/ping.ts": `export async function ping(url: string, attempts = 4): Promise<boolean> {
  try {
    await fetch(url);
    return true;
  } catch {
    return attempts > 1 ? ping(url, attempts - 1) : false;
  }
}
`,
	})
	if l := layerAt(t, r, "src/lib/fetch.ts", 7); l.Attempts != 3 || !strings.Contains(l.Setting, "src/engines/scrape.ts") {
		t.Errorf("robustFetch: attempts=%d setting=%q, want 3 from scrape.ts", l.Attempts, l.Setting)
	}
	noLayerAt(t, r, "src/lib/fetch.ts", 17, "the next page is no retry")
	if l := layerAt(t, r, "src/lib/ping.ts", 6); l.Attempts != 4 {
		t.Errorf("ping: attempts=%d, want 4 (the parameter's default)", l.Attempts)
	}
}

// httpx's transport retries a connection that cannot be made, never a
// sent request: retries=3 is 4 attempts on connect errors, no 400 sent
// again; retries unset or 0 is no layer.
func TestHTTPXTransportRetriesConnectOnly(t *testing.T) {
	r := scanOne(t, "app/client.py", `import httpx
from httpx import AsyncHTTPTransport

sync_client = httpx.Client(transport=httpx.HTTPTransport(retries=3))
async_client = httpx.AsyncClient(transport=AsyncHTTPTransport(retries=2, http2=True))
plain = httpx.Client(transport=httpx.HTTPTransport(verify=False))
none = httpx.Client(transport=httpx.HTTPTransport(retries=0))


class MistralChat:
    max_retries: int = 5

    def client(self):
        return httpx.AsyncClient(transport=httpx.AsyncHTTPTransport(retries=self.max_retries))
`)
	l := layerAt(t, r, "app/client.py", 4)
	if l.Attempts != 4 || l.Retries4xx || !strings.Contains(l.Note, "connect errors only") {
		t.Errorf("HTTPTransport(retries=3): attempts=%d 4xx=%v note=%q, want 4 on connect errors only", l.Attempts, l.Retries4xx, l.Note)
	}
	if l := layerAt(t, r, "app/client.py", 5); l.Attempts != 3 {
		t.Errorf("AsyncHTTPTransport(retries=2): attempts=%d, want 3", l.Attempts)
	}
	if l := layerAt(t, r, "app/client.py", 14); l.Attempts != 6 {
		t.Errorf("retries=self.max_retries (5): attempts=%d, want 6", l.Attempts)
	}
	noLayerAt(t, r, "app/client.py", 6, "retries unset: one connection attempt")
	noLayerAt(t, r, "app/client.py", 7, "retries=0")
}

// A counter's default past the plausible cap is unbounded, as a loop's
// bound is, never a count of 100,000 tries.
func TestSelfCallHugeDefaultIsUnbounded(t *testing.T) {
	r := scanOne(t, "src/poll.ts", `export async function poll(url: string, tryCount = 100000): Promise<string> {
  try {
    return await (await fetch(url)).text();
  } catch (e) {
    return await poll(url, tryCount - 1);
  }
}
`)
	if l := layerAt(t, r, "src/poll.ts", 5); !l.Unbounded {
		t.Errorf("tryCount = 100000: attempts=%d unbounded=%v, want unbounded", l.Attempts, l.Unbounded)
	}
}
