package audit

import (
	"strconv"
	"strings"
	"testing"
)

// Shapes of the third held-out check (issue 37), written for these tests:
// each with its near miss.

// layerList is "line attempts" per layer ("line unbounded" when it is).
func layerList(ls []Layer) string {
	var got []string
	for _, l := range ls {
		n := strconv.Itoa(l.Attempts)
		if l.Unbounded {
			n = "unbounded"
		}
		got = append(got, strconv.Itoa(l.Line)+" "+n)
	}
	return strings.Join(got, ",")
}

const flagLoopPy = `import time
import openai


def ask(messages, model="gpt-4"):
    again = True
    while again:
        try:
            reply = openai.ChatCompletion.create(model=model, messages=messages)
            again = False
        except Exception as err:
            print("busy, waiting", err)
            time.sleep(20)
    return reply


def ask_forever(client, prompt):
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(5)


def ask_counted(client, prompt):
    tries = 0
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            tries += 1
            if tries > 4:
                raise
            time.sleep(5)


def wait_for_port(sock):
    up = True
    while up:
        try:
            sock.connect(("localhost", 8080))
            up = False
        except OSError:
            time.sleep(1)


def ask_once_then_stop(client, prompt):
    while True:
        try:
            return client.chat.completions.create(model="m", messages=[prompt])
        except Exception:
            time.sleep(5)
            raise
`

// A loop that sends a model call again after every error and counts
// nothing never stops: an unbounded layer, a critical finding. One that
// counts, one that waits for a port and one whose handler raises are not.
func TestFlagLoopUnbounded(t *testing.T) {
	ls := scanPython("gen/main_no_queue.py", []byte(flagLoopPy))
	if got, want := layerList(ls), "7 unbounded,18 unbounded"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
}
