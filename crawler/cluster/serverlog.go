package cluster

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
)

// serverLog carries the embedded nats-server's log lines into slog, at the
// levels the server gives them, under component=nats-server; its notices
// while it starts (some 25 lines: a banner, versions, limits, paths) at
// debug level, as the crawler says in one line that it runs.
type serverLog struct {
	log      *slog.Logger
	starting *atomic.Bool
}

func (l serverLog) emit(level slog.Level, format string, v []any) {
	l.log.Log(context.Background(), level, fmt.Sprintf(format, v...))
}

func (l serverLog) Noticef(format string, v ...any) {
	level := slog.LevelInfo
	if l.starting.Load() {
		level = slog.LevelDebug
	}
	l.emit(level, format, v)
}
func (l serverLog) Warnf(format string, v ...any)  { l.emit(slog.LevelWarn, format, v) }
func (l serverLog) Fatalf(format string, v ...any) { l.emit(slog.LevelError, format, v) }
func (l serverLog) Errorf(format string, v ...any) { l.emit(slog.LevelError, format, v) }
func (l serverLog) Debugf(format string, v ...any) { l.emit(slog.LevelDebug, format, v) }
func (l serverLog) Tracef(format string, v ...any) { l.emit(slog.LevelDebug-4, format, v) }
