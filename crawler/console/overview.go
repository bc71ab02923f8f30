package console

import (
	"sort"
	"strconv"

	"github.com/politecrawl/politecrawl/crawler/status"
)

// overview is the overview page's figures beyond the counts.
type overview struct {
	States  []stateCount
	Pages   chart
	Bytes   chart
	BucketS float64
	Codes   []codeCount
	Errors  []status.Error
}

type stateCount struct {
	State string
	N     int
}

type codeCount struct {
	Code string
	N    int
}

func newOverview(st *status.Status) *overview {
	o := &overview{}
	byState := map[string]int{}
	for i := range st.PerHost {
		if s := st.PerHost[i].State; s != "" {
			byState[s]++
		}
	}
	for s, n := range byState {
		o.States = append(o.States, stateCount{s, n})
	}
	sort.Slice(o.States, func(i, j int) bool { return o.States[i].State < o.States[j].State })
	a := st.Activity
	if a == nil {
		a = &status.ActivityView{BucketS: status.BucketWidth.Seconds()}
	}
	o.BucketS = a.BucketS
	pages, bytes := make([]float64, len(a.Series)), make([]float64, len(a.Series))
	for i, p := range a.Series {
		pages[i], bytes[i] = float64(p.Pages)/a.BucketS, float64(p.Bytes)/a.BucketS
	}
	o.Pages = newChart("pages/s", "pages", pages)
	o.Bytes = newChart("bytes/s", "bytes", bytes)
	for code, n := range a.Codes {
		o.Codes = append(o.Codes, codeCount{code, n})
	}
	sort.Slice(o.Codes, func(i, j int) bool { return codeKey(o.Codes[i].Code) < codeKey(o.Codes[j].Code) })
	o.Errors = a.Errors
	return o
}

// codeKey sorts HTTP statuses by number, "error" last.
func codeKey(c string) int {
	if n, err := strconv.Atoi(c); err == nil {
		return n
	}
	return 1000
}

// chart is a bar chart drawn as SVG on the server: one bar per bucket,
// scaled to the series' peak.
type chart struct {
	Label, Class string
	W, H         int
	Bars         []bar
	Max, Now     float64
}

type bar struct{ X, Y, W, H float64 }

const chartW, chartH, chartTop = 600, 100, 16

func newChart(label, class string, series []float64) chart {
	c := chart{Label: label, Class: class, W: chartW, H: chartH}
	for _, v := range series {
		c.Max = max(c.Max, v)
	}
	if n := len(series); n > 0 {
		c.Now = series[n-1]
	}
	if c.Max == 0 || len(series) == 0 {
		return c
	}
	w := float64(chartW) / float64(len(series))
	for i, v := range series {
		if v <= 0 {
			continue
		}
		h := v / c.Max * float64(chartH-chartTop)
		c.Bars = append(c.Bars, bar{X: float64(i) * w, Y: float64(chartH) - h, W: w * 0.85, H: h})
	}
	return c
}
