package alerts

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkJournalAppendPast16MiB is issue 21's case: a journal over the
// compaction threshold. Before, every append rewrote and fsync'd all of
// it (629 ms per kill); now an append is one write and one fsync, whether
// the old records are moot (pruned at open) or live (the threshold is
// twice what the last compaction left).
func BenchmarkJournalAppendPast16MiB(b *testing.B) {
	for _, tc := range []struct {
		name  string
		state string
		age   time.Duration
	}{{"moot", "would_fire", time.Hour}, {"live", "acknowledged", time.Hour}} {
		b.Run(tc.name, func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "journal.jsonl")
			f, _ := os.Create(path)
			at := time.Now().Add(-tc.age).UTC().Format(time.RFC3339Nano)
			pad := strings.Repeat("p", 1000)
			var size int64
			for i := 0; size <= 17<<20; i++ {
				n, _ := fmt.Fprintf(f, `{"time":%q,"key":"k-%d","action":"kill_webhook","state":%q,"stderr":%q}`+"\n", at, i, tc.state, pad)
				size += int64(n)
			}
			f.Close()
			j, err := OpenJournal(path)
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			b.ResetTimer()
			for i := range b.N {
				if err := j.Append(Record{Key: fmt.Sprintf("new-%d", i), Action: actionKillWebhook, State: StateAcknowledged}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
