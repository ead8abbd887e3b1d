package ingest

import "testing"

// TestParseKindKnowsEveryName: every kind's name parses back to it.
func TestParseKindKnowsEveryName(t *testing.T) {
	for k := KindUnknown + 1; int(k) < len(kindNames); k++ {
		if got := ParseKind(k.String()); got != k {
			t.Errorf("ParseKind(%q) = %v", k.String(), got)
		}
	}
	if ParseKind("unknown") != KindUnknown || ParseKind("LLM_CALL") != KindUnknown {
		t.Error("ParseKind accepts what is not a kind")
	}
}
