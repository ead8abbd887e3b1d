import OpenAI from "openai";

// The LLM gateway is reached through the mesh: baseURL is the in-cluster
// Service that the ServiceProfile below describes.
const openai = new OpenAI({ baseURL: "http://llm-gateway.ai.svc.cluster.local/v1", maxRetries: 1 });

export async function summarize(text: string) {
  const res = await openai.chat.completions.create({ model: "gpt-4o-mini", messages: [{ role: "user", content: text }] });
  return res.choices[0]?.message?.content ?? "";
}
