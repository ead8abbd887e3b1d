package audit

import "testing"

// Shapes of the fifth held-out check (issue 37), written for these tests:
// each with its near miss.

// A catch of an abort that closes a measurement, writes a last chunk or
// answers the client sends nothing again, though the try called the same
// functions: the call a try waits for is its first await — a `for await`
// loop's head, the stream it reads — not an early return of a guard nor
// the bookkeeping in the loop's body (anything-llm's stream handlers and
// image endpoint in round 5: five false watchdogs). A loop whose head asks
// for the stream and whose abort handler asks again is one.
func TestAbortHandlersThatSendNothing(t *testing.T) {
	r := scan(t, "testdata/heldout5/aborts")
	sameLayers(t, r, []want{
		{"provider.js:6", "openai-node", 1, true},
		{"provider.js:46", "stall-watchdog", 2, true},
	})
}

// Python's `async for` is the same: an except of a timeout that tells the
// client the stream stopped sends nothing to the model; one that asks for the stream again
// is a watchdog.
func TestPythonAsyncForHandlerThatSendsNothing(t *testing.T) {
	src := []byte(`import asyncio
from anthropic import AsyncAnthropic

client = AsyncAnthropic(max_retries=0)


async def relay(ws, stream, meter):
    try:
        async for event in stream:
            await ws.send(event.text)
            meter.close(event)
    except asyncio.TimeoutError:
        await ws.send("[the model stopped answering]")
    await ws.close()


async def ask_again(messages):
    try:
        async for event in client.messages.stream(model="m", messages=messages):
            pass
    except asyncio.TimeoutError:
        return await client.messages.stream(model="m", messages=messages)
`)
	if got, want := layerList(scanPython("relay.py", src)), "4 1,21 2"; got != want {
		t.Fatalf("layers %q, want %q", got, want)
	}
}
