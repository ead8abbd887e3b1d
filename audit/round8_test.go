package audit

import "testing"

// Round 8's misses (issue 37), clients and queries, each a general rule
// with a fixture of our own shape and its near miss. Round 8 is
// development data from here on.

const ofetchTS = `import { ofetch } from "ofetch";

export async function plans(base: string) {
  return ofetch(base + "/plans");
}

export async function activate(base: string, key: string) {
  return ofetch(base + "/activate", {
    method: "POST",
    retry: 4,
    body: { key },
  });
}

export async function record(base: string, event: string) {
  await ofetch(base + "/events", { method: "POST", body: { event } });
}

export async function quota(base: string) {
  return ofetch<{ left: number }>(base + "/quota", { retry: false });
}

export async function search(url: string, options: Record<string, unknown>) {
  return ofetch(url, options);
}

export async function status(base: string) {
  return ofetch.raw(base + "/status", { headers: { accept: "{" }, method: "GET" });
}
`

// ofetch retries a GET once by default and a POST not at all; retry: N is
// N + 1 attempts whatever the method; retry: false is none (unjs/ofetch
// src/fetch.ts). Chatbox's thirteen calls had no row.
func TestOfetchRetryAndItsDefault(t *testing.T) {
	r := scanTree(t, map[string]string{"src/api.ts": ofetchTS})
	for _, c := range []struct {
		line, attempts int
		conf           Confidence
	}{{4, 2, ConfidenceMedium}, {8, 5, ConfidenceMedium}, {24, 2, ConfidenceLow}, {28, 2, ConfidenceMedium}} {
		l := layerAt(t, r, "src/api.ts", c.line)
		if l.DefaultID != "ofetch" || l.Attempts != c.attempts || l.Confidence != c.conf {
			t.Errorf("src/api.ts:%d: %s %d attempts (%s), want ofetch %d (%s)", c.line, l.DefaultID, l.Attempts, l.Confidence, c.attempts, c.conf)
		}
	}
	noLayerAt(t, r, "src/api.ts", 16, "a POST with no retry is sent once")
	noLayerAt(t, r, "src/api.ts", 20, "retry: false is no retry")
}

// The near miss: a function of the project's own named ofetch, and a fetch
// from another package, are no ofetch calls.
func TestOfetchNearMiss(t *testing.T) {
	r := scanTree(t, map[string]string{"src/own.ts": `import { ofetch } from "./http";
import { $fetch } from "undici-helpers";

export const a = () => ofetch("/x");
export const b = () => $fetch("/y");
`})
	for _, l := range r.Layers {
		if l.DefaultID == "ofetch" {
			t.Errorf("%s:%d reported as ofetch: not the unjs package", l.File, l.Line)
		}
	}
}

const pyClientsRound8 = `import openai
from openai import AsyncClient as Gateway
from httpx import AsyncClient as HttpClient
from anthropic import AnthropicFoundry
from cerebras.cloud.sdk import AsyncCerebras as CerebrasClient
from llama_api_client import LlamaAPIClient
from azure.storage.blob import BlobServiceClient
from azure.storage.blob import BlobProperties


def clients(params, url, cred):
    sync = openai.Client(**params)
    aio = Gateway(base_url=url)
    plain = HttpClient(timeout=5)
    foundry = AnthropicFoundry(resource="r", max_retries=1)
    fast = CerebrasClient()
    llama = LlamaAPIClient(api_key="k")
    blobs = BlobServiceClient(account_url=url, credential=cred)
    again = BlobServiceClient.from_connection_string(url, retry_total=1)
    props = BlobProperties()
    return sync, aio, plain, foundry, fast, llama, blobs, again, props
`

// openai.Client and AsyncClient (the SDK's aliases, under any local name),
// AnthropicFoundry, Cerebras, Llama API and Azure Storage clients: each
// its row (round 8: Langchain-Chatchat's eight, agno's eight). The near
// misses — httpx's AsyncClient under an alias, a storage model class —
// are no clients.
func TestPythonClientsWithNoRowRound8(t *testing.T) {
	r := scanTree(t, map[string]string{"app/clients.py": pyClientsRound8})
	for _, c := range []struct {
		line     int
		id       string
		attempts int
	}{{12, "openai-python", 3}, {13, "openai-python", 3}, {15, "anthropic-python", 2}, {16, "cerebras-python", 3}, {17, "llama-api-python", 3}, {18, "azure-storage-python", 4}, {19, "azure-storage-python", 2}} {
		l := layerAt(t, r, "app/clients.py", c.line)
		if l.DefaultID != c.id || l.Attempts != c.attempts {
			t.Errorf("app/clients.py:%d: %s %d attempts, want %s %d", c.line, l.DefaultID, l.Attempts, c.id, c.attempts)
		}
	}
	noLayerAt(t, r, "app/clients.py", 14, "httpx's AsyncClient is no SDK client")
	noLayerAt(t, r, "app/clients.py", 20, "BlobProperties is no client")
}

const jsClientsRound8 = `import { CohereClient } from "cohere-ai";
import { experimental_generateImage as generateImage } from "ai";
import { generateImage as drawLocally } from "./canvas";

const cohere = new CohereClient({ token: process.env.COHERE_KEY });

export async function draw(model: any, prompt: string) {
  const a = await generateImage({ model, prompt });
  const b = await drawLocally({ prompt });
  return [a, b];
}
`

// cohere-ai's CohereClient (Fern: 2 retries) and the AI SDK's
// generateImage imported under an alias (round 8: chatbox's); the near
// miss, a project's own generateImage, is no layer.
func TestJSClientsWithNoRowRound8(t *testing.T) {
	r := scanTree(t, map[string]string{"src/models.ts": jsClientsRound8})
	if l := layerAt(t, r, "src/models.ts", 5); l.DefaultID != "cohere-ts" || l.Attempts != 3 {
		t.Errorf("src/models.ts:5: %s %d, want cohere-ts 3", l.DefaultID, l.Attempts)
	}
	if l := layerAt(t, r, "src/models.ts", 8); l.DefaultID != "vercel-ai" || l.Attempts != 3 {
		t.Errorf("src/models.ts:8: %s %d, want vercel-ai 3", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "src/models.ts", 9, "a local generateImage is no AI SDK call")
}
