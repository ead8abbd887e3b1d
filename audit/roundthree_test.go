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


def flush_each(q, send):
    for attempt in range(3):
        try:
            q.flush(send)
        finally:
            q.reset()


def give_up(call):
    for attempt in range(3):
        try:
            return call()
        except ValueError:
            break


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

// The AWS SDK for Go v2: each service client built from a config is a
// layer at the standard retryer's 3 attempts, or what RetryMaxAttempts
// says; loading the config, and a v1 client, are not this row.
func TestAWSGoV2Clients(t *testing.T) {
	src := `package llm

import (
	"context"

	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go/service/s3"
)

type Runtime struct{ c *bedrockruntime.Client }

func New(ctx context.Context, region string) (*Runtime, error) {
	cfg, err := awsconfig.LoadDefaultConfig(ctx, awsconfig.WithRegion(region))
	if err != nil {
		return nil, err
	}
	fast := bedrockruntime.NewFromConfig(cfg, func(o *bedrockruntime.Options) {
		o.RetryMaxAttempts = 1
	})
	_ = fast
	_ = s3.New(nil)
	return &Runtime{c: bedrockruntime.NewFromConfig(cfg)}, nil
}
`
	ls, err := scanGo("llm/runtime.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range ls {
		got = append(got, l.DefaultID+" "+strconv.Itoa(l.Line)+" "+strconv.Itoa(l.Attempts))
	}
	want := "aws-sdk-go-v2 18 1,aws-sdk-go-v2 23 3"
	if strings.Join(got, ",") != want {
		t.Fatalf("layers %v, want %s", got, want)
	}
}

// Groq's Python client, imported under another name, is a layer at its
// default; the repository's own class named Groq (a wrapper imported from
// a module of its own) is not.
func TestGroqPythonClient(t *testing.T) {
	client := `from groq import Groq as _Groq


class Groq:
    def __init__(self, api_key):
        self.client = _Groq(api_key=api_key)
        self.fast = _Groq(api_key=api_key, max_retries=0)
`
	registry := `from .groq_client import Groq

MODELS = {"GROQ": Groq()}
`
	var got []string
	for _, f := range []struct{ rel, src string }{{"llm/groq_client.py", client}, {"llm/registry.py", registry}} {
		for _, l := range scanPython(f.rel, []byte(f.src)) {
			got = append(got, f.rel+":"+strconv.Itoa(l.Line)+" "+l.DefaultID+" "+strconv.Itoa(l.Attempts))
		}
	}
	want := "llm/groq_client.py:6 groq-python 3,llm/groq_client.py:7 groq-python 1"
	if strings.Join(got, ",") != want {
		t.Fatalf("layers %v, want %s", got, want)
	}
}
