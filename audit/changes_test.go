package audit

import "testing"

func TestChangesAcross(t *testing.T) {
	for _, c := range []struct {
		from, to string
		n        int
	}{{"3.10.0", "3.53.0", 1}, {"v3.52.0", "v3.52.1", 1}, {"3.53.0", "3.52.0", 1}, {"3.10.0", "3.52.0", 0}, {"3.53.0", "3.60.0", 0}, {"abc", "3.60.0", 0}} {
		if got := ChangesAcross("openai-go", c.from, c.to); len(got) != c.n {
			t.Errorf("%s → %s: %d changes, want %d", c.from, c.to, len(got), c.n)
		}
	}
	for _, c := range DefaultChanges {
		if _, ok := Lookup(c.ID); !ok || c.Source == "" {
			t.Errorf("change %+v: no Defaults row or no source", c)
		}
	}
}
