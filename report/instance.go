package report

import (
	"crypto/rand"
	"fmt"
	"time"
)

// InstanceID names the process that writes a report (watch --report-out),
// uniquely: its replica name, its run and its start, and a random part
// (two processes of one host name may start in the same nanosecond in
// containers). report --merge tells two same-named replicas apart by it.
func InstanceID(replica, run string, started time.Time) string {
	var b [4]byte
	rand.Read(b[:])
	return fmt.Sprintf("%s/%s/%s-%x", replica, run, started.UTC().Format("20060102T150405.000000000Z"), b)
}
