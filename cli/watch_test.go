package cli

import "testing"

// TestCarryable: files read from the start are read again at a restart,
// so only --from-end, stdin and OTLP alone are carried (the process-level
// half is internal/e2e's TestFilesReadFromTheStartAreNotCarried).
func TestCarryable(t *testing.T) {
	if !carryable([]string{"a.jsonl"}, true) || carryable([]string{"a.jsonl"}, false) || !carryable([]string{"-"}, false) || !carryable(nil, false) {
		t.Errorf("carryable: files from the start are read again; --from-end, stdin and OTLP alone are not")
	}
}
