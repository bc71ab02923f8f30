package crawler

import (
	"context"
	"fmt"
	"time"

	"github.com/politecrawl/politecrawl/crawler/robotscache"
	"github.com/politecrawl/politecrawl/crawler/status"
	"github.com/politecrawl/politecrawl/frontier"
	"github.com/politecrawl/politecrawl/frontier/urlnorm"
)

// watch is what status shows of a run besides the state file and the
// frontier: when it started and its recent activity. The coordinator
// owns it.
type watch struct {
	started  time.Time
	activity *status.Activity
}

// fetched notes a page request's answer (status 0: none, errText says
// why; 5xx and 429 are errors too).
func (w *watch) fetched(t task, code, bytes int, errText string, now time.Time) {
	w.activity.Fetch(now, code, bytes)
	switch {
	case errText != "":
		w.activity.Error(now, t.url, errText)
	case code == 429 || code >= 500:
		w.activity.Error(now, t.url, fmt.Sprintf("HTTP %d", code))
	}
}

// liveHosts is the coordinator's part of a status: copied on the
// coordinator goroutine, as plainly as it can be (a slice of views, the
// robots.txt state of the few origins not simply usable), so the state
// file is read, and the snapshot built, without holding it.
type liveHosts struct {
	now      time.Time
	started  time.Time
	inFlight int
	activity *status.ActivityView
	views    []liveView
	robots   map[string]status.Robots // by host; hosts whose robots.txt is fetching or unreachable
	delays   frontier.Adaptive        // the adaptive delay's policy, for hosts known only to the state file
}

type liveView struct {
	host string
	view frontier.HostView
}

// liveHosts copies, on the coordinator, every host's view, the robots.txt
// state of the origins that hold their hosts back, and the run's activity.
func (c *Crawler) liveHosts() liveHosts {
	now := c.cfg.Now()
	l := liveHosts{now: now, started: c.watch.started, inFlight: c.work.gate.Busy(),
		activity: c.watch.activity.View(now), views: make([]liveView, 0, c.front.HostCount()), robots: map[string]status.Robots{},
		delays: c.cfg.delayPolicy().Adaptive()}
	c.front.Views(now, func(host string, v frontier.HostView) {
		l.views = append(l.views, liveView{host, v})
	})
	c.robots.Each(func(origin string, o *robotscache.Origin) {
		unreachable := o.Outcome() == robotscache.Unreachable
		if !o.Fetching() && !o.GaveUp() && !unreachable {
			return
		}
		host := urlnorm.Authority(origin)
		r := l.robots[host]
		r.Fetching = r.Fetching || o.Fetching()
		r.GaveUp = r.GaveUp || o.GaveUp()
		if unreachable {
			r.Unreachable, r.RetryAt, r.Reason = true, o.RetryAt(), o.Reason()
		}
		l.robots[host] = r
	})
	return l
}

// liveStatus is status.Read completed with the coordinator's copy.
func (c *Crawler) liveStatus(ctx context.Context, l liveHosts) (*status.Status, error) {
	st, err := status.Read(c.db, l.now, l.delays)
	if err != nil {
		return nil, err
	}
	// Tasks waiting for a worker have no request under way yet.
	st.Running, st.InFlight = true, l.inFlight
	st.Started, st.At, st.Activity = l.started, l.now, l.activity
	if !l.started.IsZero() {
		st.UptimeS = l.now.Sub(l.started).Round(time.Second).Seconds()
	}
	views := make(map[string]*frontier.HostView, len(l.views))
	for i := range l.views {
		views[l.views[i].host] = &l.views[i].view
	}
	for i := range st.PerHost {
		h := &st.PerHost[i]
		v, ok := views[h.Host]
		if !ok {
			h.State = status.StateDone
			continue
		}
		h.InFlight, h.NextRequest, h.IntervalS, h.DelayReason = v.InFlight, v.NextRequest, v.Interval.Seconds(), v.DelayReason
		h.DelayFrom, h.LastStatus = v.DelayFrom, v.LastStatus
		if v.IP != "" {
			h.IP = v.IP
		}
		h.State, h.Until, h.Why = status.Describe(*v, l.robots[h.Host], l.now)
	}
	if c.cfg.Archive != nil {
		st.WARC = status.WARCFiles(c.cfg.Archive.Dir())
	}
	if cv, ok := c.cfg.Node.(clusterViewer); ok {
		if cl, err := cv.ClusterView(ctx); err == nil {
			st.Cluster = cl
		} else {
			c.log.Debug("status: cluster view", "error", err)
		}
	}
	return st, nil
}

// clusterViewer is a cluster node that can say what it sees of the
// cluster (crawler/cluster's Node does).
type clusterViewer interface {
	ClusterView(ctx context.Context) (*status.Cluster, error)
}

// Host reads one host's detail (its robots.txt, latest fetches, queue
// head, refused URLs) from the state file, off the coordinator.
func (c *Crawler) Host(ctx context.Context, host string) (*status.HostDetail, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return status.ReadHost(c.db, host, c.cfg.Agent)
}
