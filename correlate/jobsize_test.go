package correlate

import (
	"testing"
	"unsafe"
)

// TestJobFitsItsSizeClass: a night's jobs are visited at random and each
// cache line is a miss; Job is laid out to fill 256 bytes (see Job). A
// field added without finding it room shows here, not as a slower night.
func TestJobFitsItsSizeClass(t *testing.T) {
	if n := unsafe.Sizeof(Job{}); n > 256 {
		t.Fatalf("Job is %d bytes, over its 256-byte budget: find the field room (padding, a narrower type) or a side table", n)
	}
}
