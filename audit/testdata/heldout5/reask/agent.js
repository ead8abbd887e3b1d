const OpenAI = require("openai");
const { toolComplete } = require("./tools");

class AgentProvider {
  constructor() {
    this.client = new OpenAI({ apiKey: process.env.KEY, maxRetries: 0 });
  }

  // A tool call whose arguments are not JSON is sent back with the parse
  // error, and the model is asked again: as often as it answers badly.
  async complete(messages, functions = []) {
    try {
      const result = await toolComplete(this.client, messages, functions);
      if (result.retryWithError) {
        return this.complete([...messages, result.retryWithError], functions);
      }
      return result;
    } catch (error) {
      if (error instanceof OpenAI.AuthenticationError) throw error;
      throw error;
    }
  }

  // Near miss: a count is passed on — bounded by the guard above it.
  async completeCounted(messages, attempt = 0) {
    if (attempt >= 3) throw new Error("the model would not answer in JSON");
    const result = await toolComplete(this.client, messages, []);
    if (result.retryWithError) return this.completeCounted([...messages, result.retryWithError], attempt + 1);
    return result;
  }

  // Near miss: pages of a listing, a recursion that asks for the next page.
  async listModels(cursor = null, seen = []) {
    const page = await this.client.models.list({ after: cursor });
    seen.push(...page.data);
    if (page.hasMore) return this.listModels(page.lastId, seen);
    return seen;
  }

  // Near miss: another object's method of the same name.
  async summarize(messages) {
    const result = await toolComplete(this.client, messages, []);
    if (result.invalid) return this.fallback.summarize(messages);
    return result;
  }
}

module.exports = { AgentProvider };

class CountingProvider {
  constructor(client) {
    this.client = client;
    this.retries = 0;
  }

  // Near miss: the retries are counted in the object, a guard throws past
  // a bound — bounded, by a test this rule does not read.
  async complete(messages) {
    if (this.retries++ > 3) throw new Error("the model would not answer in JSON");
    const result = await toolComplete(this.client, messages, []);
    if (result.retryWithError) {
      return this.complete([...messages, result.retryWithError]);
    }
    this.retries = 0;
    return result;
  }
}

class LabelProvider {
  constructor(client) {
    this.client = client;
  }

  async label(messages) {
    const reply = await this.client.chat.completions.create({ model: "m", messages });
    const text = reply.choices[0].message.content;
    if (text === "yes" || text === "no") {
      return text;
    } else {
      return this.label([...messages, { role: "user", content: "Answer yes or no." }]);
    }
  }

  // near miss: an else that walks a tree, the conversation not extended
  render(node) {
    if (node.leaf) return node.text;
    else return this.render(node.children[0]);
  }
}
