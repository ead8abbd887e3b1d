package alerts

import (
	"errors"
	"slices"
	"testing"
)

// TestSplitWords: the one splitter of the kill command's template and the
// docs' examples; a value is never read as shell syntax.
func TestSplitWords(t *testing.T) {
	for _, tc := range []struct {
		in     string
		refuse string
		want   []string
		err    bool
	}{
		{"kubectl delete job {job_id}", "", []string{"kubectl", "delete", "job", "{job_id}"}, false},
		{`sh -c 'echo "$HOME"'`, "", []string{"sh", "-c", `echo "$HOME"`}, false},
		{"a\tb\nc", "", []string{"a", "b", "c"}, false},
		{`''`, "", []string{""}, false},
		{`'open`, "", nil, true},
		{"report x | tail", "|", nil, true},
		{"report '--pattern' 'a|b'", "|", []string{"report", "--pattern", "a|b"}, false},
	} {
		got, err := SplitWords(tc.in, tc.refuse)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("SplitWords(%q, %q) = %q, %v", tc.in, tc.refuse, got, err)
		}
	}
	if _, err := SplitWords("a;b", ";"); !errors.Is(err, ErrRefusedChar) {
		t.Errorf("a refused character: %v", err)
	}
}
