package freshness

// Remove takes a page of rate out of the histogram: it left the schedule
// (a scope rule or accept_types skips it now), and its host's budget must
// no longer be shared with it.
func (h *Host) Remove(rate float64) {
	if i := bucketOf(rate); h.Counts[i] > 0 {
		h.Counts[i]--
		h.moved++
	}
}
