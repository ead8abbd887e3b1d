package scenario

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"strings"
	"testing"
)

// TestCommittedSamplesMatchGenerator: the committed logs are exactly what
// the generator writes, so golden reports and the generator cannot drift.
func TestCommittedSamplesMatchGenerator(t *testing.T) {
	for name, gen := range Samples {
		var want bytes.Buffer
		if err := Write(&want, gen()); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open("../sample-logs/" + name)
		if err != nil {
			t.Fatalf("%v: run go run ./sample-logs/gen -out sample-logs", err)
		}
		var r io.Reader = f
		if strings.HasSuffix(name, ".gz") {
			if r, err = gzip.NewReader(f); err != nil {
				t.Fatal(err)
			}
		}
		got, err := io.ReadAll(r)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Errorf("sample-logs/%s is stale: run go run ./sample-logs/gen -out sample-logs", name)
		}
	}
}

func TestCommittedFormatFixturesMatchGenerator(t *testing.T) {
	for name, gen := range FormatFixtures {
		got, err := os.ReadFile("../sample-logs/formats/" + name)
		if err != nil || string(got) != gen() {
			t.Errorf("sample-logs/formats/%s is stale (%v): run go run ./sample-logs/gen -out sample-logs", name, err)
		}
		if n := strings.Count(gen(), "\n"); n < 50 {
			t.Errorf("%s has %d lines; fixtures need at least 50", name, n)
		}
	}
}
