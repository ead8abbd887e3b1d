package audit

import (
	"regexp"
	"strconv"
)

// Ruby: Sidekiq job classes.
var (
	rbInclude = regexp.MustCompile(`\binclude\s+Sidekiq::(?:Job|Worker)\b`)
	rbOptions = regexp.MustCompile(`\bsidekiq_options\b[^\n]*`)
	rbRetry   = regexp.MustCompile(`\bretry:\s*(\d+|true|false|nil)`)
)

func sidekiq(f *file) []Layer {
	code, ln, rel := f.blanked(), f.lines(), f.rel
	var out []Layer
	incs := rbInclude.FindAllIndex(code, maxCandidates)
	for i, m := range incs {
		end := len(code)
		if i+1 < len(incs) {
			end = incs[i+1][0]
		}
		l := newLayer("sidekiq", rel, ln.at(m[0]), "ruby", ConfidenceMedium)
		if om := rbOptions.FindIndex(code[m[1]:end]); om != nil {
			opts := code[m[1]+om[0] : m[1]+om[1]]
			if rm := rbRetry.FindSubmatch(opts); rm != nil {
				l.Line = ln.at(m[1] + om[0])
				switch v := string(rm[1]); v {
				case "false", "nil":
					l.setAttempts(1, string(rm[0]))
				case "true":
					l.Configured, l.Setting = true, string(rm[0])
				default:
					n, _ := strconv.Atoi(v)
					l.set(n, string(rm[0]))
				}
			}
		}
		if l.Attempts == 1 && !l.Unbounded {
			continue // retry: false is no layer
		}
		out = append(out, l)
	}
	return out
}
