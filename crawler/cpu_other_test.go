//go:build !unix

package crawler

import "time"

// processCPU is not measured here: cpu_us/req reads 0.
func processCPU() time.Duration { return 0 }
