import OpenAI from "openai";

const openai = new OpenAI({ maxRetries: 0 });

// Near miss: the timeout aborts and reports; nothing is sent again.
export async function classify(text: string): Promise<string> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), 30_000);
  try {
    const res = await openai.chat.completions.create(
      { model: "gpt-4o-mini", messages: [{ role: "user", content: text }] },
      { signal: controller.signal },
    );
    return res.choices[0]?.message?.content ?? "";
  } catch (err) {
    if ((err as Error).name === "AbortError") {
      throw new Error("classification timed out after 30 s");
    }
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
