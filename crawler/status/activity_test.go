package status

import (
	"fmt"
	"testing"
	"time"
)

// TestActivity: fetches land in their bucket, buckets older than an hour
// are gone, codes are counted, the newest errors come first and only the
// last maxErrors are kept.
func TestActivity(t *testing.T) {
	a := NewActivity()
	t0 := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	a.Fetch(t0, 200, 1000)
	a.Fetch(t0.Add(time.Second), 404, 10)
	a.Fetch(t0.Add(40*time.Minute), 200, 500)
	a.Fetch(t0.Add(70*time.Minute), 0, 0) // an hour after the first two
	for i := range maxErrors + 5 {
		a.Error(t0, fmt.Sprintf("http://a.test/%d", i), "timeout")
	}
	v := a.View(t0.Add(70 * time.Minute))
	if len(v.Series) != nBuckets {
		t.Fatalf("%d points, want %d", len(v.Series), nBuckets)
	}
	var pages, bytes int64
	for _, p := range v.Series {
		pages += p.Pages
		bytes += p.Bytes
	}
	if pages != 2 || bytes != 500 {
		t.Errorf("the last hour: %d pages, %d bytes; want 2, 500 (the first two are older)", pages, bytes)
	}
	if last := v.Series[len(v.Series)-1]; last.Pages != 1 {
		t.Errorf("the current bucket: %+v, want the error fetch", last)
	}
	if v.Codes["200"] != 2 || v.Codes["404"] != 1 || v.Codes["error"] != 1 {
		t.Errorf("codes %v", v.Codes)
	}
	if len(v.Errors) != maxErrors || v.Errors[0].URL != fmt.Sprintf("http://a.test/%d", maxErrors+4) || v.Errors[maxErrors-1].URL != "http://a.test/5" {
		t.Errorf("errors: %d, first %s, last %s", len(v.Errors), v.Errors[0].URL, v.Errors[len(v.Errors)-1].URL)
	}
}
