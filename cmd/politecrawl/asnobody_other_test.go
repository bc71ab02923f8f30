//go:build !unix

package main

import "testing"

// asNobodyEnv: see the Unix rerunAsNobody.
const asNobodyEnv = "POLITECRAWL_TEST_AS_NOBODY"

// rerunAsNobody: there is no user nobody to switch to here.
func rerunAsNobody(t *testing.T, name string) {
	t.Skip("running as another user needs a Unix system")
}
