package frontier

import "time"

// Delay is the spacing between request starts for one host:
// max(defaultDelay, crawlDelay, rateInterval), capped at maxDelay. Zero
// crawlDelay or rateInterval means the site named none. A zero or negative
// maxDelay means no cap.
func Delay(defaultDelay, maxDelay, crawlDelay, rateInterval time.Duration) time.Duration {
	d, _ := DelayWhy(defaultDelay, maxDelay, crawlDelay, rateInterval)
	return d
}

// DelayWhy is Delay and the reason for it: WhyDefault, WhyCrawlDelay,
// WhyRequestRate or WhyMaxDelay (the cap cut a longer one).
func DelayWhy(defaultDelay, maxDelay, crawlDelay, rateInterval time.Duration) (time.Duration, string) {
	d, why := max(defaultDelay, 0), WhyDefault
	if crawlDelay > d {
		d, why = crawlDelay, WhyCrawlDelay
	}
	if rateInterval > d {
		d, why = rateInterval, WhyRequestRate
	}
	if maxDelay > 0 && d > maxDelay {
		d, why = maxDelay, WhyMaxDelay
	}
	return d, why
}
