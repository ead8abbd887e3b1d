package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"slices"

	"github.com/BurntSushi/toml"

	"github.com/burnrate-dev/burnrate/ingest"
	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// DefaultAssumptionsPath is the committed assumptions file read when it
// is in the working directory (it only declares; it runs nothing).
const DefaultAssumptionsPath = "burnrate.assumptions.toml"

// FromAssumptionsFile is the provenance of its declarations: the
// operator's, the only ones that arm a kill (ingest.IsOperatorAssumption).
const FromAssumptionsFile = ingest.AssumptionFromOperator

// maxAssumptionsBytes bounds the file: a few hundred premises fit in a
// fraction of it.
const maxAssumptionsBytes = 256 << 10

// LoadAssumptions reads a burnrate.assumptions.toml: its keys (tables
// flatten to dotted keys, so [anthropic-sdk] maxRetries = 0 is
// anthropic-sdk.maxRetries, as "anthropic-sdk.maxRetries" = 0 is) declare
// for the whole run; a [job_types.NAME] table declares for one job type.
// With path "" it reads DefaultAssumptionsPath if that exists, else
// nothing. The declarations come as KindAssumption events without a time:
// they take the time of the first event read.
func LoadAssumptions(path string) ([]ingest.Event, error) {
	if path == "" {
		if _, err := os.Lstat(DefaultAssumptionsPath); err != nil {
			return nil, nil
		}
		path = DefaultAssumptionsPath
	}
	data, err := ReadSmallFile(path, maxAssumptionsBytes, "--assumptions")
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if _, err := toml.Decode(string(data), &m); err != nil {
		return nil, fmt.Errorf("--assumptions %s: %w (docs/assumptions.md shows the file's shape)", path, err)
	}
	var out []ingest.Event
	add := func(jobType string, m map[string]any) {
		flat := map[string]string{}
		decode.FlattenAssumptions("", normalizeTOML(m), 0, flat)
		for _, k := range sortedKeys(flat) {
			var ev ingest.Event
			ev.Reset()
			ev.Kind, ev.JobType, ev.TSCarried = ingest.KindAssumption, jobType, true
			ev.SetAssumption(FromAssumptionsFile, k, flat[k])
			out = append(out, ev)
		}
	}
	if jt, ok := m["job_types"].(map[string]any); ok {
		delete(m, "job_types")
		for _, name := range sortedKeys(jt) {
			if t, ok := jt[name].(map[string]any); ok && len(out) < 16*ingest.MaxAssumptionsPerRecord {
				add(decode.CleanField(name), t)
			}
		}
	}
	add("", m)
	if len(out) == 0 {
		return nil, fmt.Errorf("--assumptions %s declares nothing: write keys such as \"anthropic-sdk.maxRetries\" = 0 (docs/assumptions.md)", path)
	}
	return out, nil
}

// normalizeTOML turns the TOML decoder's values into JSON's shapes, so a
// declaration reads the same from the file and from a log line.
func normalizeTOML(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeTOML(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeTOML(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeTOML(e)
		}
		return out
	case int64:
		return json.Number(fmt.Sprint(x))
	case float64:
		return json.Number(fmt.Sprint(x))
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
