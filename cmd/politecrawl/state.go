package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/politecrawl/politecrawl/storage"
	"github.com/spf13/cobra"
)

func newStateCmd(stdout io.Writer) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "state",
		Short: "Check a state file, or salvage what is readable from a damaged one",
		Args:  cobra.NoArgs,
	}
	cmd.AddCommand(newStateCheckCmd(stdout), newStateSalvageCmd(stdout))
	return cmd
}

func newStateCheckCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	cmd := &cobra.Command{
		Use:   "check (-c FILE | --state PATH)",
		Short: "Run the full consistency check on the state file",
		Long: `Runs the full consistency check on the state file, whatever its size: the
meta pages and the file's length, a walk of every page, then bbolt's own
check. Prints what it found. Exit status 0 when the file is healthy, 1 when
it is damaged (or cannot be checked: a running crawl holds it).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			path, err := statePath(cmd, &f)
			if err != nil {
				return err
			}
			r, err := storage.Check(path, storage.Options{FullCheck: true, Timeout: 300 * time.Millisecond})
			if errors.Is(err, storage.ErrLocked) {
				return fmt.Errorf("a crawl is running on %s and holds it locked; stop it (SIGTERM) to check the file", path)
			}
			if err != nil {
				return stateFileError(path, err)
			}
			printCheck(stdout, path, r)
			return r.Err(path)
		},
	}
	addCommonFlags(cmd, &f)
	return cmd
}

func printCheck(w io.Writer, path string, r *storage.CheckReport) {
	fmt.Fprintf(w, "state file  %s\n", path)
	if r.PageSize > 0 {
		fmt.Fprintf(w, "size        %d bytes, %d-byte pages\n", r.Size, r.PageSize)
		fmt.Fprintf(w, "contents    %d pages reached, %d buckets, %d keys\n", r.Pages, r.Buckets, r.Keys)
	}
	fmt.Fprintf(w, "checked in  %v\n", r.Took.Round(time.Millisecond))
	if fi, err := os.Stat(storage.BackupPath(path)); err == nil {
		fmt.Fprintf(w, "backup      %s (saved %s)\n", storage.BackupPath(path), fi.ModTime().UTC().Format(time.RFC3339))
	} else {
		fmt.Fprintf(w, "backup      none\n")
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	if len(r.Problems) == 0 {
		fmt.Fprintln(w, "healthy")
	} else {
		fmt.Fprintf(w, "damaged: %d problem(s)\n", len(r.Problems))
	}
}

func newStateSalvageCmd(stdout io.Writer) *cobra.Command {
	var f commonFlags
	var out string
	cmd := &cobra.Command{
		Use:   "salvage (-c FILE | --state PATH) -o NEW",
		Short: "Copy every readable record of a damaged state file into a new file",
		Long: `Copies every record that can still be read from the state file, bucket by
bucket and key by key, into the new state file NEW, skipping damaged pages,
and prints how many records of each bucket were copied and lost. NEW must
not exist. The copy is made consistent (counters recounted, queue repaired)
so that a crawl resumes from it: point state (or --state) at NEW.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if out == "" {
				return usagef("state salvage: -o NEW is required")
			}
			path, err := statePath(cmd, &f)
			if err != nil {
				return err
			}
			if _, err := os.Lstat(out); err == nil {
				return usagef("state salvage: %s already exists; give a new file", out)
			}
			// Opened and closed first: a file the user may not read is
			// reported as such (Salvage's own errors may be about out).
			f, err := os.Open(path)
			if err != nil {
				return stateFileError(path, err)
			}
			f.Close()
			rep, err := storage.Salvage(path, out, storage.Options{Timeout: 300 * time.Millisecond})
			if errors.Is(err, storage.ErrLocked) {
				return fmt.Errorf("a crawl is running on %s and holds it locked; stop it (SIGTERM) first", path)
			}
			if err != nil {
				return err
			}
			printSalvage(stdout, path, out, rep)
			return nil
		},
	}
	addCommonFlags(cmd, &f)
	cmd.Flags().StringVarP(&out, "output", "o", "", "the new state file to write (must not exist)")
	return cmd
}

func printSalvage(w io.Writer, from, to string, rep *storage.SalvageReport) {
	fmt.Fprintf(w, "salvaged %s into %s\n\n", from, to)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUCKET\tCOPIED\tLOST")
	copied, lost, unknown := 0, 0, false
	for _, b := range rep.Buckets {
		l := fmt.Sprint(b.Lost)
		switch {
		case b.Lost < 0 && b.DamagedPages == 0:
			l = "0"
		case b.Lost < 0:
			l = "unknown"
			unknown = true
		default:
			lost += b.Lost
		}
		if b.DamagedPages > 0 {
			l += fmt.Sprintf(" (%d damaged page(s) skipped)", b.DamagedPages)
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\n", b.Name, b.Copied, l)
		copied += b.Copied
	}
	tw.Flush()
	fmt.Fprintln(w)
	for _, p := range rep.Problems {
		fmt.Fprintf(w, "problem: %s\n", p)
	}
	for _, r := range rep.Repairs {
		fmt.Fprintf(w, "repaired: %s\n", r)
	}
	more := ""
	if unknown {
		more = " and an unknown number more"
	}
	fmt.Fprintf(w, "%d records copied, %d known lost%s. To resume from the copy, set state: %s (or pass --state %s).\n",
		copied, lost, more, to, to)
}

// statePath is the state file of a state subcommand: --state, or the
// config file's state.
func statePath(cmd *cobra.Command, f *commonFlags) (string, error) {
	if f.state != "" {
		return f.state, nil
	}
	if f.config == "" {
		return "", usagef("state %s: give -c FILE or --state PATH", cmd.Name())
	}
	cfg, err := loadConfig(f.config, cmd.Flags(), flagBinds)
	if err != nil {
		return "", err
	}
	warnUnknownVariables(cmd.ErrOrStderr(), cfg)
	return cfg.State, nil
}

// damagedHint follows the one-line error of a damaged state file with
// what to do about it.
func damagedHint(err error) string {
	var de *storage.DamagedError
	if !errors.As(err, &de) {
		return ""
	}
	switch {
	case de.Backup != "":
		return fmt.Sprintf(": stop politecrawl and restore it (cp %s %s), or see `politecrawl state salvage -o NEW`", de.Backup, de.Path)
	case de.Empty:
		return "" // nothing to check or salvage: what it says (remove it) is all there is
	}
	return ": see `politecrawl state check` and `politecrawl state salvage -o NEW`"
}
