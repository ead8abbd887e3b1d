const { generateImage } = require("./images-backend");
const { isAbortError } = require("./signals");

// An endpoint: a guard returns 400 before the call; the catch of an abort
// ends the response, any other error answers 500 — the same
// response.status(…) as the guard, which is not the call.
async function imagesEndpoint(request, response) {
  try {
    const prompt = request.body?.prompt;
    if (!prompt) return response.status(400).json({ error: "A prompt is required." });
    const controller = new AbortController();
    response.on("close", () => controller.abort());
    const result = await generateImage({ prompt: String(prompt), signal: controller.signal });
    return response.status(200).json({ data: result });
  } catch (e) {
    if (isAbortError(e)) return response.end();
    console.error(e.message);
    return response.status(500).json({ error: e.message });
  }
}

module.exports = { imagesEndpoint };
