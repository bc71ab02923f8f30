//go:build !unix

package archive

import "os"

// lockDir does nothing where flock is missing: one crawl per directory is
// then up to the operator.
func lockDir(string) (*os.File, error) { return nil, nil }
