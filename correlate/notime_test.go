package correlate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest/decode"
)

// TestFindingsWithoutTimesSayTheyHaveNone (issue 36): SDK lines with no
// time of their own trip the shadow breaker; its example said "opened at :
// 50%". A finding's words never end on a blank time.
func TestFindingsWithoutTimesSayTheyHaveNone(t *testing.T) {
	b, err := os.ReadFile(fixtures + "python-sdk-mixed.log")
	if err != nil {
		t.Fatal(err)
	}
	var sdk []string
	for _, line := range strings.Split(string(b), "\n") {
		if _, rest, ok := strings.Cut(line, "] "); ok && strings.HasPrefix(line, "[") {
			sdk = append(sdk, rest) // the SDK's line without its logger's time
		}
	}
	p := filepath.Join(t.TempDir(), "sdk.log")
	if err := os.WriteFile(p, []byte(strings.Join(sdk, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	st, _ := readWith(t, p, decode.Options{})
	r := st.Report()
	f := finding(r, "breaker_open")
	if f == nil {
		t.Fatalf("no breaker_open finding in %d attempts", r.Totals.Attempts)
	}
	if strings.Contains(f.Example, "at :") || !strings.Contains(f.Example, "time unknown") {
		t.Errorf("example %q: say the time is unknown", f.Example)
	}
}
