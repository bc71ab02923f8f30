package cluster

import (
	"context"
	"fmt"
	"log/slog"
)

// serverLog carries the embedded nats-server's log lines into slog, at the
// levels the server gives them, under component=nats-server.
type serverLog struct{ log *slog.Logger }

func (l serverLog) emit(level slog.Level, format string, v []any) {
	l.log.Log(context.Background(), level, fmt.Sprintf(format, v...))
}

func (l serverLog) Noticef(format string, v ...any) { l.emit(slog.LevelInfo, format, v) }
func (l serverLog) Warnf(format string, v ...any)   { l.emit(slog.LevelWarn, format, v) }
func (l serverLog) Fatalf(format string, v ...any)  { l.emit(slog.LevelError, format, v) }
func (l serverLog) Errorf(format string, v ...any)  { l.emit(slog.LevelError, format, v) }
func (l serverLog) Debugf(format string, v ...any)  { l.emit(slog.LevelDebug, format, v) }
func (l serverLog) Tracef(format string, v ...any)  { l.emit(slog.LevelDebug-4, format, v) }
