package audit

import (
	"strconv"

	yaml "go.yaml.in/yaml/v3"
)

// stateMachines finds Amazon States Language definitions anywhere in a
// document (a .asl.json file, a serverless.yml or SAM template) and makes a
// layer of each state with retriers: its worst retrier, MaxAttempts
// retries (3 when unset).
func stateMachines(rel string, n *yaml.Node, depth int) []Layer {
	if n == nil || depth > 64 {
		return nil
	}
	var out []Layer
	if n.Kind == yaml.MappingNode && mapValue(n, "StartAt") != nil {
		if states := mapValue(n, "States"); states != nil && states.Kind == yaml.MappingNode {
			for i := 1; i < len(states.Content); i += 2 {
				st := states.Content[i]
				retry := mapValue(st, "Retry")
				if retry == nil || retry.Kind != yaml.SequenceNode {
					continue
				}
				if len(retry.Content) > 0 {
					out = append(out, worstRetrier(rel, states.Content[i-1].Value, retry))
				}
			}
		}
	}
	for _, c := range n.Content {
		out = append(out, stateMachines(rel, c, depth+1)...)
	}
	return out
}

// stepFunctions: the state machines of every document of a YAML or JSON
// file.
func stepFunctions(f *file) []Layer {
	return perDocument(f, func(rel string, top *yaml.Node) []Layer { return stateMachines(rel, top, 0) })
}

// worstRetrier is the layer of a state's worst retrier (retry holds at
// least one).
func worstRetrier(rel, state string, retry *yaml.Node) Layer {
	var worst Layer
	for j, r := range retry.Content {
		l := newLayer("step-functions", rel, r.Line, "config", ConfidenceHigh)
		l.Setting = "MaxAttempts not set (3 retries)"
		if ma := mapValue(r, "MaxAttempts"); ma != nil {
			if v, err := strconv.Atoi(ma.Value); err == nil && v >= 0 && v <= 1_000_000 {
				l.set(v, "MaxAttempts: "+ma.Value)
			} else {
				l.setUnknown("MaxAttempts: " + ma.Value)
			}
		}
		all := false
		if eq := mapValue(r, "ErrorEquals"); eq != nil {
			for _, e := range eq.Content {
				all = all || e.Value == "States.ALL" || e.Value == "States.TaskFailed"
			}
		}
		l.Retries4xx = all
		l.Note = "state " + state
		if j == 0 || worse(l, worst) {
			worst = l
		}
	}
	return worst
}
