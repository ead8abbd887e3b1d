//go:build !race

package follow

const raceEnabled = false
