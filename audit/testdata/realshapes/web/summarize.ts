import OpenAI from "openai";

const openai = new OpenAI({ maxRetries: 0 });

export async function summarize(text: string): Promise<string> {
  let attempt = 0;
  const maxAttempts = 3;
  while (attempt < maxAttempts) {
    try {
      const res = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: text }] });
      return res.choices[0]?.message?.content ?? "";
    } catch (err) {
      attempt++;
      console.warn(`summarize failed (${attempt}/${maxAttempts})`, err);
    }
  }
  throw new Error("summarize failed");
}
