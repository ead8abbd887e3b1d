import OpenAI from "openai";

const openai = new OpenAI({ maxRetries: 0 });

// Near miss: a progress timer that only reports while the call runs, and a
// per-item deadline whose expiry moves on to the next item.
export async function translateAll(items: string[], onProgress: (s: string) => void): Promise<string[]> {
  const started = Date.now();
  const ticker = setInterval(() => onProgress(`still working, ${Math.round((Date.now() - started) / 1000)} s`), 5_000);
  const out: string[] = [];
  try {
    for (const item of items) {
      try {
        const res = await openai.chat.completions.create(
          { model: "gpt-4o-mini", messages: [{ role: "user", content: item }] },
          { signal: AbortSignal.timeout(20_000) },
        );
        out.push(res.choices[0]?.message?.content ?? "");
      } catch (err) {
        if ((err as Error).name === "TimeoutError") {
          out.push("");
          continue;
        }
        throw err;
      }
    }
  } finally {
    clearInterval(ticker);
  }
  return out;
}
