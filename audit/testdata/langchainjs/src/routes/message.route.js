const { aiQueue } = require("../queues/ai.queue");

async function onMessage(req, res) {
  await aiQueue.add(
    "generate-ai-response",
    { ticketId: req.params.id },
    {
      attempts: 3,
      backoff: { type: "exponential", delay: 2000 },
    }
  );
  res.json({ ok: true });
}

module.exports = { onMessage };
