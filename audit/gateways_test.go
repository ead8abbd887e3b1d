package audit

import (
	"os"
	"path/filepath"
	"testing"
)

// scanOne writes one file under a fresh root and audits it.
func scanOne(t *testing.T, rel, body string) *Result {
	t.Helper()
	dir := t.TempDir()
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return scan(t, dir)
}

func TestHAProxyDefaultsAndRetryOn(t *testing.T) {
	for _, c := range []struct {
		name, cfg  string
		attempts   int
		configured bool
		retries4xx bool
		layer      bool
	}{
		// Nothing set: CONN_RETRIES 3, connection failures only.
		{"default", "backend llm\n    server a 10.0.0.1:80\n", 4, false, false, true},
		// A defaults section's retries reach every backend after it.
		{"inherited", "defaults\n    retries 1\nbackend llm\n    server a 10.0.0.1:80\n", 2, true, false, true},
		{"4xx", "backend llm\n    retry-on conn-failure 404 503\n    server a 10.0.0.1:80\n", 4, true, true, true},
		{"none", "backend llm\n    retry-on none\n    server a 10.0.0.1:80\n", 0, false, false, false},
		{"retries 0", "backend llm\n    retries 0\n    server a 10.0.0.1:80\n", 0, false, false, false},
		// A backend without servers, and a frontend, retry nothing.
		{"no server", "frontend api\n    bind :80\nbackend empty\n    retries 9\n", 0, false, false, false},
		{"commented", "backend llm\n    # retries 50\n    server a 10.0.0.1:80\n", 4, false, false, true},
	} {
		r := scanOne(t, "haproxy.cfg", c.cfg)
		if c.name == "default" {
			// HAProxy's examples are named for what they show
			// (examples/content-sw-sample.cfg): any .cfg is read.
			if o := scanOne(t, "examples/edge.cfg", c.cfg); len(o.Layers) != 1 {
				t.Errorf("a .cfg not named haproxy: %v", layersOf(o))
			}
		}
		if !c.layer {
			if len(r.Layers) != 0 {
				t.Errorf("%s: layers %v, want none", c.name, layersOf(r))
			}
			continue
		}
		if len(r.Layers) != 1 {
			t.Fatalf("%s: layers %v", c.name, layersOf(r))
		}
		l := r.Layers[0]
		if l.Attempts != c.attempts || l.Configured != c.configured || l.Retries4xx != c.retries4xx {
			t.Errorf("%s: %d attempts configured %v 4xx %v, want %d %v %v", c.name, l.Attempts, l.Configured, l.Retries4xx, c.attempts, c.configured, c.retries4xx)
		}
	}
}

// TestOtherCfgFilesAreNoLayers: setup.cfg and tox-style files have no
// backend with a server.
func TestOtherCfgFilesAreNoLayers(t *testing.T) {
	r := scanOne(t, "setup.cfg", "[metadata]\nname = app\n[options]\nretries = 3\nserver = x\n")
	if len(r.Layers) != 0 {
		t.Errorf("layers %v", layersOf(r))
	}
}

func TestEnvoyRetryPolicy(t *testing.T) {
	r := scanOne(t, "envoy.yaml", "routes:\n  - route:\n      retry_policy:\n        retry_on: retriable-4xx\n")
	if len(r.Layers) != 1 || r.Layers[0].Attempts != 2 || r.Layers[0].Configured || !r.Layers[0].Retries4xx {
		t.Errorf("retry_on without num_retries is 1 retry, and retriable-4xx retries a 409: %+v", r.Layers)
	}
	// The word in a comment, or a policy with nothing to retry on, is none.
	r = scanOne(t, "envoy.yaml", "# retry_policy: {retry_on: 5xx, num_retries: 9}\nroutes: []\n")
	if len(r.Layers) != 0 {
		t.Errorf("a comment is no layer: %v", layersOf(r))
	}
}

func TestCodexConfig(t *testing.T) {
	r := scanOne(t, ".codex/config.toml", "model = \"gpt-5-codex\"\n")
	if len(r.Layers) != 1 || r.Layers[0].Attempts != 5 || r.Layers[0].Configured || r.Layers[0].Confidence != ConfidenceLow {
		t.Errorf("no provider retries: Codex's default 4 retries, low confidence: %+v", r.Layers)
	}
	r = scanOne(t, ".codex/config.toml", "[model_providers.x]\nname = \"X\"\nrequest_max_retries = 5000\n")
	if len(r.Layers) != 1 || r.Layers[0].Attempts != 101 {
		t.Errorf("Codex caps request_max_retries at 100: %+v", r.Layers)
	}
	// A config.toml outside .codex is not Codex's.
	r = scanOne(t, "app/config.toml", "[model_providers.x]\nrequest_max_retries = 3\n")
	if len(r.Layers) != 0 {
		t.Errorf("layers %v", layersOf(r))
	}
	r = scanOne(t, ".codex/config.toml", "this is = = not toml")
	if len(r.Layers) != 0 || len(r.Skipped) == 0 {
		t.Errorf("broken TOML is counted as not parsed: %v %+v", layersOf(r), r.Skipped)
	}
}

func TestLiteLLMProxyDefault(t *testing.T) {
	r := scanOne(t, "config.yaml", "model_list:\n  - model_name: gpt-4o\n    litellm_params:\n      model: openai/gpt-4o\n")
	if len(r.Layers) != 1 || r.Layers[0].DefaultID != "litellm-proxy" || r.Layers[0].Attempts != 3 || r.Layers[0].Configured {
		t.Errorf("a proxy config without num_retries: the Router's 2 retries: %+v", layersOf(r))
	}
	// model_list as a plain key of some other file is no proxy.
	r = scanOne(t, "values.yaml", "model_list: gpt-4o,claude\n")
	if len(r.Layers) != 0 {
		t.Errorf("layers %v", layersOf(r))
	}
}
