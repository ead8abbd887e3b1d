package decode

import (
	"fmt"
	"strings"
	"testing"

	"github.com/burnrate-dev/burnrate/ingest"
)

// TestAnnouncedPastTheBoundCountsOnce (F8): announcements past the bound
// — by count, and by bytes (long job IDs, 3 KB each, hold a few
// thousand) — are let go as calls and their answers complete them as
// usage: n announced and n answered are n calls, and the hint counts
// them. A job announced again after being let go starts a new call.
func TestAnnouncedPastTheBoundCountsOnce(t *testing.T) {
	for _, c := range []struct {
		name string
		n    int
		pad  int
	}{{"count", maxAnnounced + 500, 0}, {"bytes", 12000, 3000}} {
		t.Run(c.name, func(t *testing.T) {
			d := NewDecoder(FormatAuto, nil, Options{})
			calls, growths := 0, 0
			emit := func(e *ingest.Event) {
				switch e.Kind {
				case ingest.KindLLMCall:
					calls++
				case ingest.KindUsageGrowth:
					growths++
				}
			}
			pad := strings.Repeat("x", c.pad)
			for i := range c.n {
				d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":"%s%d","model":"claude-sonnet-4-5","msg":"calling model"}`, 1796642058118+i, pad, i), emit)
			}
			for i := range c.n {
				d.Decode(fmt.Appendf(nil, `{"time":%d,"job_id":"%s%d","model":"claude-sonnet-4-5","request_id":"req_%08d","status":200,"input_tokens":10,"output_tokens":5,"msg":"model call ok"}`, 1796642158118+i, pad, i, i), emit)
			}
			d.(Flusher).Flush(emit)
			if calls != c.n || growths == 0 {
				t.Errorf("%d announced and answered: %d calls, %d usage growths; want %d calls, the answers past the bound as growths", c.n, calls, growths, c.n)
			}
			h := d.(Hinter).Hint(int64(calls))
			if !strings.Contains(h, fmt.Sprintf("%d answer(s) that came later completed them", growths)) || strings.Contains(h, "counted twice") {
				t.Errorf("hint %q", h)
			}
		})
	}
}
