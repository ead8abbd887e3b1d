//go:build race

package e2e

// raceEnabled: the load tests (floods, rotation at 10,000 lines/s) run in
// the plain pass of .ci/run; under the race detector they would take
// minutes and measure the detector, not burnrate.
const raceEnabled = true
