//go:build unix

package main

import (
	"io/fs"
	"os/user"
	"strconv"
	"syscall"
)

// fileOwner is the name of fi's owner (its uid when it has no name).
func fileOwner(fi fs.FileInfo) (string, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return "", false
	}
	id := strconv.FormatUint(uint64(st.Uid), 10)
	if u, err := user.LookupId(id); err == nil {
		return u.Username, true
	}
	return "uid " + id, true
}
