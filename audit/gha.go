package audit

import (
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// ghaRetry reads a GitHub Actions workflow's nick-fields/retry steps.
func ghaRetry(f *file) []Layer {
	rel := f.rel
	var doc yaml.Node
	if err := yaml.Unmarshal(f.raw, &doc); err != nil {
		f.fail(err)
		return nil
	}
	if len(doc.Content) == 0 {
		return nil
	}
	jobs := mapValue(doc.Content[0], "jobs")
	if jobs == nil || jobs.Kind != yaml.MappingNode {
		return nil
	}
	var out []Layer
	for i := 1; i < len(jobs.Content); i += 2 {
		steps := mapValue(jobs.Content[i], "steps")
		if steps == nil || steps.Kind != yaml.SequenceNode {
			continue
		}
		for _, st := range steps.Content {
			uses := mapValue(st, "uses")
			if uses == nil || !strings.HasPrefix(uses.Value, "nick-fields/retry@") {
				continue
			}
			l := newLayer("gha-retry", rel, uses.Line, "config", ConfidenceHigh)
			if ma := mapValue(mapValue(st, "with"), "max_attempts"); ma != nil {
				l.Line = ma.Line
				if n, err := strconv.Atoi(ma.Value); err == nil && n > 0 && n <= 1_000_000 {
					l.setAttempts(n, "max_attempts: "+ma.Value)
				} else {
					l.setUnknown("max_attempts: " + ma.Value)
				}
			}
			out = append(out, l)
		}
	}
	return out
}
