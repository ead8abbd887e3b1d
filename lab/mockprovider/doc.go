// Package mockprovider is the lab's LLM provider: Anthropic Messages
// (POST /v1/messages), OpenAI Chat Completions (/v1/chat/completions) and
// Responses (/v1/responses), streamed (the real SSE event sequences) or not,
// with the real response headers, usage with cache reads and writes, and a
// seeded, deterministic failure schedule per job. Every HTTP request it
// receives is one line of its ledger, the lab's truth (docs/lab.md): the
// wire, not any log, says how many calls a job made and what they cost.
//
// A job is named by the request's x-job-id header, else by the body's
// metadata (Anthropic's metadata.user_id, OpenAI's metadata.job_id).
package mockprovider
