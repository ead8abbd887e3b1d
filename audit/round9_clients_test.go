package audit

import (
	"strings"
	"testing"
)

// Round 9's misses (issue 37), clients half: a gRPC service config's
// retryPolicy written in code. Fixtures of our own shape.

const grpcServiceConfigPy = `import json

import grpc

SERVICE_CONFIG = json.dumps(
    {
        "methodConfig": [
            {
                "name": [{"service": "inference.Generator"}],
                "retryPolicy": {
                    "maxAttempts": 4,
                    "initialBackoff": "0.1s",
                    "maxBackoff": "2s",
                    "backoffMultiplier": 2,
                    "retryableStatusCodes": ["UNAVAILABLE", "RESOURCE_EXHAUSTED"],
                },
            }
        ]
    }
)


def channel(target):
    return grpc.aio.insecure_channel(target, options=[("grpc.service_config", SERVICE_CONFIG)])
`

const grpcServiceConfigGo = "package client\n\nimport (\n\t\"google.golang.org/grpc\"\n\t\"google.golang.org/grpc/credentials/insecure\"\n)\n\n" +
	"const serviceConfig = `{\n  \"methodConfig\": [{\n    \"name\": [{\"service\": \"rank.Ranker\"}],\n    \"retryPolicy\": {\n      \"maxAttempts\": 9,\n      \"initialBackoff\": \"0.2s\",\n      \"maxBackoff\": \"1s\",\n      \"backoffMultiplier\": 2,\n      \"retryableStatusCodes\": [\"UNAVAILABLE\"]\n    }\n  }]\n}`\n\n" +
	"func Dial(target string) (*grpc.ClientConn, error) {\n\treturn grpc.NewClient(target, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithDefaultServiceConfig(serviceConfig))\n}\n"

const grpcNoPolicyPy = `# Our retryPolicy is in the load balancer; maxAttempts: 3 there.
import grpc


def channel(target):
    """A plain channel. To retry, pass a service config such as
    {"methodConfig": [{"name": [{}], "retryPolicy": {"maxAttempts": 3}}]}
    """
    return grpc.insecure_channel(target)
`

func TestGRPCServiceConfigRetryPolicy(t *testing.T) {
	r := scanTree(t, map[string]string{"rt/channel.py": grpcServiceConfigPy, "client/dial.go": grpcServiceConfigGo, "rt/plain.py": grpcNoPolicyPy})
	l := layerAt(t, r, "rt/channel.py", 10)
	if l.DefaultID != "grpc-retry-policy" || l.Attempts != 4 || l.Retries4xx || !strings.Contains(l.Note, "UNAVAILABLE, RESOURCE_EXHAUSTED") {
		t.Errorf("channel.py:10: %s %d attempts, 4xx %v, note %q; want the gRPC policy at 4 on UNAVAILABLE, RESOURCE_EXHAUSTED", l.DefaultID, l.Attempts, l.Retries4xx, l.Note)
	}
	if l := layerAt(t, r, "client/dial.go", 11); l.Attempts != 5 || !strings.Contains(l.Setting, "more than 5 as 5") {
		t.Errorf("dial.go:11: %d attempts (%s), want 9 capped at gRPC's 5", l.Attempts, l.Setting)
	}
	noLayerAt(t, r, "rt/plain.py", 1, "a comment")
	noLayerAt(t, r, "rt/plain.py", 7, "an example in a docstring")
}

const innerImportPy = `import numpy as np
from ollama import Client


class LocalEmbed:
    def __init__(self, host):
        self.client = Client(host=host)


class RerankEmbed:
    def __init__(self, key, model):
        from cohere import Client

        self.client = Client(api_key=key)
        self.model = model


class HostedEmbed:
    def __init__(self, token):
        from replicate.client import Client

        self.client = Client(api_token=token)


def local_again(host):
    return Client(host=host)
`

func TestInnerImportWinsInItsFunction(t *testing.T) {
	r := scanTree(t, map[string]string{"llm/embed.py": innerImportPy})
	if l := layerAt(t, r, "llm/embed.py", 14); l.DefaultID != "cohere-python" || l.Attempts != 3 {
		t.Errorf("embed.py:14: %s %d attempts, want cohere's client (its own import in __init__), 3", l.DefaultID, l.Attempts)
	}
	noLayerAt(t, r, "llm/embed.py", 7, "ollama's Client, the module's import")
	noLayerAt(t, r, "llm/embed.py", 22, "replicate's Client, another function's import")
	noLayerAt(t, r, "llm/embed.py", 26, "ollama's Client again, after the functions that import others")
}
