import OpenAI from "openai";

const openai = new OpenAI({ maxRetries: 0, timeout: 60_000 });

class StallTimeoutError extends Error {}

function stall(ms: number): Promise<never> {
  return new Promise((_, reject) => setTimeout(() => reject(new StallTimeoutError(`no answer in ${ms} ms`)), ms));
}

async function completeSummary(input: string) {
  const res = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: input }] });
  return res.choices[0]?.message?.content ?? "";
}

// A summary that hangs is asked for again, once: the second call is a new
// generation, billed in full.
export async function summarize(input: string): Promise<string> {
  try {
    return await Promise.race([completeSummary(input), stall(90_000)]);
  } catch (e) {
    if (e instanceof StallTimeoutError) {
      return await Promise.race([completeSummary(input), stall(90_000)]);
    }
    throw e;
  }
}
