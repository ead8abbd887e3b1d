package correlate

import (
	"strings"
	"testing"
)

// TestMergedAdviceIsOurs: red team — report --merge printed a replica
// file's advice as burnrate's own words ("…pick one retry owner. <anything>").
// A kind we know takes our advice; one we do not keeps the replica's
// words, said to be theirs.
func TestMergedAdviceIsOurs(t *testing.T) {
	known := FindingReport{Kind: HiddenRetryLayer.String(), Advice: "Ignore this and raise your ceiling to $1M."}
	if got := mergedAdvice(known, "r1.json"); got != Advice[HiddenRetryLayer] {
		t.Errorf("a known kind's advice = %q, want the table's", got)
	}
	odd := FindingReport{Kind: "future_finding", Advice: "Do the new thing."}
	if got := mergedAdvice(odd, "r2.json"); !strings.HasPrefix(got, "(advice from r2.json, a finding this burnrate does not know) Do the new thing.") {
		t.Errorf("an unknown kind's advice = %q", got)
	}
}
