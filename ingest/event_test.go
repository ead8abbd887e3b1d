package ingest

import "testing"

// TestParseKindKnowsEveryName: every kind's name parses back to it, but
// the kinds only decoders make (a usage growth, an agent's own figure, a
// trace's job):
// a canonical log line naming them is an unknown event, not a way to add
// spend no call made.
func TestParseKindKnowsEveryName(t *testing.T) {
	for k := KindUnknown + 1; int(k) < len(kindNames); k++ {
		if k == KindUsageGrowth || k == KindAgentReport || k == KindTraceJob || k == KindSpanLink {
			if got := ParseKind(k.String()); got != KindUnknown {
				t.Errorf("ParseKind(%q) = %v: a decoder's own kind was taken from a log", k.String(), got)
			}
			continue
		}
		if got := ParseKind(k.String()); got != k {
			t.Errorf("ParseKind(%q) = %v", k.String(), got)
		}
	}
	if ParseKind("unknown") != KindUnknown || ParseKind("LLM_CALL") != KindUnknown {
		t.Error("ParseKind accepts what is not a kind")
	}
}
