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

// TestJobSeqIsInALineTheLookAheadLoads: the synchronized-retries detector
// reads Job.Seq for every retry; resolve loads the line of RunID ahead of
// applying, so Seq in that line costs no miss of its own (in the cold
// fourth line it was one per retry on the uniform log, issue 38).
func TestJobSeqIsInALineTheLookAheadLoads(t *testing.T) {
	var j Job
	if seq, run := unsafe.Offsetof(j.Seq)/64, unsafe.Offsetof(j.RunID)/64; seq != run {
		t.Fatalf("Job.Seq is in cache line %d, RunID (which resolve loads) in %d", seq, run)
	}
}
