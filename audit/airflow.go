package audit

import (
	"regexp"
	"strconv"
	"strings"

	yaml "go.yaml.in/yaml/v3"
)

// Airflow: a task's retries (its own, its DAG's default_args, or the
// deployment's default_task_retries), in DAG code, in an environment
// variable of a compose or Helm file, and in airflow.cfg.

var pyAirflowDict = regexp.MustCompile(`['"]retries['"]\s*:\s*([0-9]+|[A-Za-z_][\w.]*)`)

// pyAirflow: retries in default_args dicts and as operator or @task
// arguments; retries=0 is no layer.
func pyAirflow(f *file) []Layer {
	if !importsPrefix(f.pyImports(), "airflow") {
		return nil
	}
	code, raw, ln := f.blanked(), f.raw, f.lines()
	var out []Layer
	add := func(at int, val, written string) {
		l := newLayer("airflow", f.rel, ln.at(at), "python", ConfidenceMedium)
		if n, err := strconv.Atoi(val); err == nil {
			if n == 0 || n > 1_000_000 {
				return
			}
			l.set(n, written)
		} else {
			l.setUnknown(written)
		}
		out = append(out, l)
	}
	for _, m := range pyAirflowDict.FindAllSubmatchIndex(raw, maxCandidates) {
		// The key is a string (blanked in code); the value must be live
		// code, not a comment or a docstring.
		if code[m[2]] == ' ' {
			continue
		}
		add(m[0], string(raw[m[2]:m[3]]), strings.Join(strings.Fields(string(raw[m[0]:m[1]])), " "))
	}
	for _, m := range pyRetries.FindAllSubmatchIndex(code, maxCandidates) {
		if !isKwarg(code, m[0], m[1]) {
			continue // a dict key, an annotation or an assignment, not a keyword argument
		}
		add(m[0], string(code[m[2]:m[3]]), string(code[m[0]:m[1]]))
	}
	return out
}

// isKwarg: the name at [at, end) is written `name=` right after a ( or a ,
// of a call, not `name:` nor a statement of its own.
func isKwarg(code []byte, at, end int) bool {
	i := at + len("retries")
	for i < end && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	if i >= end || code[i] != '=' {
		return false
	}
	j := at - 1
	for j >= 0 && (code[j] == ' ' || code[j] == '\t' || code[j] == '\n' || code[j] == '\r') {
		j--
	}
	return j >= 0 && (code[j] == '(' || code[j] == ',')
}

// airflowRetriesEnv is [core] default_task_retries as an environment
// variable: the default of every task that sets no retries, often in a
// docker-compose file or a Helm values file nobody on the DAG team wrote.
const airflowRetriesEnv = "AIRFLOW__CORE__DEFAULT_TASK_RETRIES"

// airflowEnvLayers finds the variable as a mapping key (docker-compose
// environment:), a KEY=VALUE list item, or a Kubernetes env entry
// {name, value}.
func airflowEnvLayers(rel string, n *yaml.Node, depth int) []Layer {
	if n == nil || depth > 64 {
		return nil
	}
	var out []Layer
	add := func(line int, val string) {
		l := newLayer("airflow", rel, line, "config", ConfidenceHigh)
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		if v, err := strconv.Atoi(val); err == nil && v >= 0 && v <= 1_000_000 {
			if v == 0 {
				return
			}
			l.set(v, airflowRetriesEnv+"="+val)
		} else {
			l.setUnknown(airflowRetriesEnv + "=" + val)
		}
		l.Note = "the default of every task that sets no retries of its own"
		out = append(out, l)
	}
	switch n.Kind {
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == airflowRetriesEnv && n.Content[i+1].Kind == yaml.ScalarNode {
				add(n.Content[i].Line, n.Content[i+1].Value)
			}
		}
		if name := mapValue(n, "name"); name != nil && name.Value == airflowRetriesEnv {
			if v := mapValue(n, "value"); v != nil && v.Kind == yaml.ScalarNode {
				add(v.Line, v.Value)
			}
		}
	case yaml.ScalarNode:
		if k, v, ok := strings.Cut(n.Value, "="); ok && k == airflowRetriesEnv {
			add(n.Line, v)
		}
	}
	for _, c := range n.Content {
		out = append(out, airflowEnvLayers(rel, c, depth+1)...)
	}
	return out
}

// airflowEnv: the variable anywhere in a YAML file's documents.
func airflowEnv(f *file) []Layer {
	return perDocument(f, func(rel string, top *yaml.Node) []Layer { return airflowEnvLayers(rel, top, 0) })
}

var (
	airflowCfgRetries = regexp.MustCompile(`(?m)^[ \t]*default_task_retries[ \t]*=[ \t]*(\S+)`)
	iniCore           = regexp.MustCompile(`(?m)^[ \t]*\[core\][ \t]*$`)
	iniSection        = regexp.MustCompile(`(?m)^[ \t]*\[`)
)

// airflowCfg reads airflow.cfg's [core] default_task_retries.
func airflowCfg(f *file) []Layer {
	code, ln := f.blanked(), f.lines()
	core := iniCore.FindIndex(code)
	if core == nil {
		return nil
	}
	end := len(code)
	if nx := iniSection.FindIndex(code[core[1]:]); nx != nil {
		end = core[1] + nx[0]
	}
	m := airflowCfgRetries.FindSubmatchIndex(code[core[1]:end])
	if m == nil {
		return nil
	}
	l := newLayer("airflow", f.rel, ln.at(core[1]+m[0]), "config", ConfidenceHigh)
	val := string(code[core[1]+m[2] : core[1]+m[3]])
	if v, err := strconv.Atoi(val); err == nil && v >= 0 && v <= 1_000_000 {
		if v == 0 {
			return nil
		}
		l.set(v, "[core] default_task_retries = "+val)
	} else {
		l.setUnknown("[core] default_task_retries = " + val)
	}
	l.Note = "the default of every task that sets no retries of its own"
	return []Layer{l}
}
