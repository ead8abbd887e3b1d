package ui

import (
	"testing"

	"github.com/burnrate-dev/burnrate/correlate"
)

// A finding withdrawn from an ambiguous job (issue 39) is no assumption
// broken: the header's warning counts only the rows that hold.
func TestAssumptionBadgeSkipsAmbiguousRows(t *testing.T) {
	amb := correlate.FindingReport{Kind: "assumption_violated", Severity: correlate.SeverityInfo, Count: 2, Ambiguous: true}
	if long, _, bad := assumptionBadge([]correlate.FindingReport{amb}); long != "" || bad {
		t.Fatalf("badge %q (bad %t) from an ambiguous row alone", long, bad)
	}
	held := correlate.FindingReport{Kind: "assumption_violated", Severity: correlate.SeverityCritical, Count: 1}
	if long, _, bad := assumptionBadge([]correlate.FindingReport{amb, held}); long != "⚠ assumptions: 1 violated (report --format md)" || !bad {
		t.Fatalf("badge %q (bad %t), want the one that holds", long, bad)
	}
}
