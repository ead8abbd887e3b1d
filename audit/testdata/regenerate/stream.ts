import Anthropic from "@anthropic-ai/sdk";

const client = new Anthropic({ maxRetries: 2 });
const MAX_REGENERATIONS = 1;

// A stalled stream is aborted and the answer regenerated from scratch,
// once: a retry layer, not a resume.
export async function generate(prompt: string): Promise<string> {
  let retries = 0;
  for (;;) {
    try {
      return await streamWithIdleTimeout(prompt, 300_000);
    } catch (err) {
      if (!(err instanceof StallError)) throw err;
      if (++retries > MAX_REGENERATIONS) throw err;
    }
  }
}

export function tally(rows: string[]) {
  let count = 0;
  for (const r of rows) {
    count += 1;
    if (count > 1000) throw new Error("too many rows");
  }
}
