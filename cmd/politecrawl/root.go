package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

// Exit codes. 2 is for usage errors (bad flags, bad config), as most CLIs do.
const (
	exitOK      = 0
	exitFailure = 1
	exitUsage   = 2
)

// usageError marks errors that are the caller's: wrong flags or arguments,
// a bad config. They exit with status 2 and one line of explanation.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// Main runs the CLI with args (without the program name) and returns the
// exit status. Tests call it directly with their own writers.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	root := newRootCmd(stdout, stderr)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintf(stderr, "politecrawl: %v%s\n", err, damagedHint(err))
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return exitUsage
	}
	return exitFailure
}

func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:           "politecrawl",
		Short:         "A polite, resumable web crawler that obeys robots.txt to the letter",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(newRobotsCmd(stdout), newRunCmd(stdout, stderr), newStatusCmd(stdout),
		newExportCmd(stdout), newDemoCmd(stdout, stderr), newSeedCmd(stdout), newVersionCmd(stdout), newStateCmd(stdout), newWhyCmd(stdout),
		newHostCmd(stdout, stderr))
	return root
}

// isCobraUsage recognises cobra's own argument errors (unknown command,
// wrong argument count), which it returns as plain errors.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "accepts ", "requires at least", "unknown flag", "unknown shorthand"} {
		if len(msg) >= len(p) && contains(msg, p) {
			return true
		}
	}
	return false
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}
