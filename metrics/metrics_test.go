package metrics

import (
	"strings"
	"testing"
)

// TestReplicaNames: a replica label is a short name; the host name default
// always is one, however long or odd the host name.
func TestReplicaNames(t *testing.T) {
	for _, ok := range []string{"burnrate-a", "host.example.com", "10.0.0.1:9464", "a_b"} {
		if err := CheckReplica(ok); err != nil {
			t.Errorf("%q: %v", ok, err)
		}
	}
	for _, bad := range []string{"", strings.Repeat("a", 65), "a b", "a\x1b[31m", "ä", `a"b`} {
		if err := CheckReplica(bad); err == nil {
			t.Errorf("%q taken", bad)
		}
	}
	if err := CheckReplica(DefaultReplica()); err != nil {
		t.Errorf("the default %q: %v", DefaultReplica(), err)
	}
}
