package budget

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestEmitDeadlineIsAGoDuration: red team — a worst case of 278 h or more
// was written as job_deadline = "1.0008e+06s", which burnrate's own config
// loader refuses; past what a duration holds it is a comment, not a line.
func TestEmitDeadlineIsAGoDuration(t *testing.T) {
	line := regexp.MustCompile(`job_deadline = "([^"]+)"`)
	for _, s := range []float64{30, 1000800, 9.2e9} {
		var b bytes.Buffer
		if err := EmitConfig(&b, "toml", EmitValues{MaxCalls: 4, DeadlineS: s}); err != nil {
			t.Fatal(err)
		}
		m := line.FindStringSubmatch(b.String())
		if m == nil {
			t.Fatalf("%g s: no job_deadline line:\n%s", s, b.String())
		}
		if d, err := time.ParseDuration(m[1]); err != nil || d.Seconds() < s {
			t.Errorf("%g s: job_deadline %q: %v", s, m[1], err)
		}
	}
	var b bytes.Buffer
	EmitConfig(&b, "toml", EmitValues{MaxCalls: 4, DeadlineS: 1e12})
	if strings.Contains(b.String(), "job_deadline =") {
		t.Errorf("a deadline past what a duration holds was written:\n%s", b.String())
	}
}
