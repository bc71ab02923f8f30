//go:build race

package robots

// The race detector slows code 5-20x; time bounds in tests scale with it.
const raceSlowdown = 10
