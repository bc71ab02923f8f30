//go:build race

package storage

// The race detector adds allocations of its own: allocation counts are
// checked without it.
const raceEnabled = true
