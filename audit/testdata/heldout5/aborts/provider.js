const { OpenAI } = require("openai");
const { isAbortError } = require("./signals");

class Provider {
  constructor() {
    this.openai = new OpenAI({ apiKey: process.env.KEY, maxRetries: 0 });
  }

  // The stream was requested before the try: the loop reads its chunks.
  // Its catch, on the client leaving, closes the measurement and returns
  // what was read — it sends nothing again.
  handleStream(response, stream) {
    let text = "";
    let usage = {};
    return new Promise(async (resolve) => {
      try {
        for await (const chunk of stream) {
          text += chunk.delta ?? "";
          writeChunk(response, { text: chunk.delta, close: false });
          if (chunk.done) {
            writeChunk(response, { text: "", close: true });
            stream.endMeasurement(usage);
            resolve(text);
            break;
          }
        }
      } catch (e) {
        if (isAbortError(e)) {
          stream.endMeasurement(usage);
          return clientLeft(resolve, text);
        }
        writeChunk(response, { text: "", close: true, error: e.message });
        resolve(text);
      }
    });
  }

  // The near miss that is a watchdog: the loop's head asks for the stream,
  // and the abort's handler asks for it again.
  async streamAgain(messages) {
    let text = "";
    try {
      for await (const chunk of this.openai.chat.completions.create({ model: "m", messages, stream: true })) {
        text += chunk.choices[0]?.delta?.content ?? "";
      }
    } catch (e) {
      if (e.name === "AbortError") {
        const again = await this.openai.chat.completions.create({ model: "m", messages });
        return again.choices[0].message.content;
      }
      throw e;
    }
    return text;
  }
}

function writeChunk(response, data) {
  response.write(JSON.stringify(data));
}

function clientLeft(resolve, text) {
  resolve(text);
}

module.exports = { Provider };
