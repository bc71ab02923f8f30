//go:build !unix

package main

import "io/fs"

// fileOwner is unknown here.
func fileOwner(fs.FileInfo) (string, bool) { return "", false }
