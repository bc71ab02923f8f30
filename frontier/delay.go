package frontier

import "time"

// Delay is the spacing between request starts for one host:
// max(defaultDelay, crawlDelay, rateInterval), capped at maxDelay. Zero
// crawlDelay or rateInterval means the site named none. A zero or negative
// maxDelay means no cap.
func Delay(defaultDelay, maxDelay, crawlDelay, rateInterval time.Duration) time.Duration {
	d := max(defaultDelay, crawlDelay, rateInterval, 0)
	if maxDelay > 0 && d > maxDelay {
		d = maxDelay
	}
	return d
}
