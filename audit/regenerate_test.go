package audit

import (
	"strconv"
	"strings"
	"testing"
)

// Loop shapes of held-out repositories (issue 37, round 3), written for
// these tests: a retry loop that tries again at once (no sleep) with a
// counter named for attempts, a wrapper that regenerates an answer it
// finds invalid (no exception), and a timeout handler that exits rather
// than sending the call again — each with its near miss.

const classifyPy = `import asyncio

CLASSIFY_MAX_RETRIES = 2


async def classify(llm, prompt):
    last = None
    for attempt in range(CLASSIFY_MAX_RETRIES + 1):
        try:
            return await asyncio.wait_for(llm.ainvoke(prompt), timeout=10)
        except Exception as e:
            last = e
            continue
    raise last


def parse_all(rows):
    out = []
    for i in range(len(rows)):
        try:
            out.append(int(rows[i]))
        except ValueError:
            continue
    return out


def first_ok(items):
    for idx in range(3):
        try:
            return items[idx]()
        except KeyError:
            pass
`

const regeneratePy = `import time


def regenerate_until_valid(step):
    def wrapper(*args, **kwargs):
        max_tries = 4
        tries = 0
        while tries < max_tries:
            result = step(*args, **kwargs)
            if result:
                return result
            tries += 1
            time.sleep(1)
        raise RuntimeError("no valid answer")
    return wrapper


def wait_for_export(client, job_id):
    tries = 0
    while tries < 30:
        status = client.status(job_id)
        if status == "done":
            return status
        tries += 1
        time.sleep(5)
`

const exitOnTimeoutPy = `import concurrent.futures
import sys
import time


def infer(pool, send, prompt, notify, limit):
    start = time.time()
    future = pool.submit(send, prompt)
    try:
        while True:
            elapsed = time.time() - start
            notify("inference", {"elapsed": elapsed})
            if elapsed > limit:
                raise concurrent.futures.TimeoutError
            if future.done():
                break
            time.sleep(0.5)
        response = future.result(timeout=limit)
    except concurrent.futures.TimeoutError:
        notify("inference", {"error": "took too long"})
        response = False
        sys.exit()
    return response
`

func TestRoundThreeLoopShapes(t *testing.T) {
	cases := []struct {
		name, src string
		want      []string // "line attempts"
	}{
		{"range loop without a sleep, counter named for attempts", classifyPy, []string{"8 3"}},
		{"a wrapper that regenerates a falsy answer", regeneratePy, []string{"8 4"}},
		{"a timeout handler that exits", exitOnTimeoutPy, nil},
	}
	for _, c := range cases {
		var got []string
		for _, l := range scanPython("x.py", []byte(c.src)) {
			got = append(got, strconv.Itoa(l.Line)+" "+strconv.Itoa(l.Attempts))
		}
		if strings.Join(got, ",") != strings.Join(c.want, ",") {
			t.Errorf("%s: layers %v, want %v", c.name, got, c.want)
		}
	}
}
