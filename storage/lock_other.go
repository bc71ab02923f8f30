//go:build !unix

package storage

// heldByWriter cannot tell without flock: an open waits Options.Timeout
// for any lock, as bbolt does.
func heldByWriter(path string) bool { return false }
