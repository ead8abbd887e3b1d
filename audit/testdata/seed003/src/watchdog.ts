import { client } from "./client.js";

// The streaming idle watchdog: a stream with no events for five minutes is
// aborted and the answer regenerated from scratch — once. Not a resume: the
// text received so far is dropped.
const IDLE_TIMEOUT_MS = 300_000;
const WATCHDOG_ATTEMPTS = 2;

export async function generateStreaming(prompt: string): Promise<string> {
  for (let attempt = 1; attempt <= WATCHDOG_ATTEMPTS; attempt++) {
    const ac = new AbortController();
    let idle = setTimeout(() => ac.abort(new Error("stream idle")), IDLE_TIMEOUT_MS);
    try {
      let out = "";
      const stream = client.messages.stream(
        { model: "claude-sonnet-4-5", max_tokens: 8192, messages: [{ role: "user", content: prompt }] },
        { signal: ac.signal },
      );
      for await (const ev of stream) {
        clearTimeout(idle);
        idle = setTimeout(() => ac.abort(new Error("stream idle")), IDLE_TIMEOUT_MS);
        if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") out += ev.delta.text;
      }
      return out;
    } catch (err) {
      if (!ac.signal.aborted || attempt === WATCHDOG_ATTEMPTS) throw err;
    } finally {
      clearTimeout(idle);
    }
  }
  throw new Error("unreachable");
}
