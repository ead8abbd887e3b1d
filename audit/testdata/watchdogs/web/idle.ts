import Anthropic from "@anthropic-ai/sdk";

const anthropic = new Anthropic({ maxRetries: 0 });

const IDLE_MS = 300_000;
const MAX_REGENERATIONS = 1;

// Streams a draft; a stream that sends nothing for IDLE_MS is aborted and
// the draft regenerated from the start (the partial text is dropped).
export async function streamDraft(prompt: string): Promise<string> {
  for (let attempt = 0; attempt <= MAX_REGENERATIONS; attempt++) {
    const controller = new AbortController();
    let timer = setTimeout(() => controller.abort(), IDLE_MS);
    try {
      let text = "";
      const stream = anthropic.messages.stream(
        { model: "claude-sonnet-4-5", max_tokens: 4096, messages: [{ role: "user", content: prompt }] },
        { signal: controller.signal },
      );
      for await (const event of stream) {
        clearTimeout(timer);
        timer = setTimeout(() => controller.abort(), IDLE_MS);
        if (event.type === "content_block_delta" && event.delta.type === "text_delta") text += event.delta.text;
      }
      return text;
    } catch (err) {
      if (!controller.signal.aborted || attempt === MAX_REGENERATIONS) throw err;
      console.warn(`stream idle for ${IDLE_MS / 1000}s, regenerating (attempt ${attempt + 2})`);
    } finally {
      clearTimeout(timer);
    }
  }
  throw new Error("unreachable");
}
