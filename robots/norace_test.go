//go:build !race

package robots

const raceSlowdown = 1
