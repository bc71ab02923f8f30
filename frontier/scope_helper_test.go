package frontier

import "github.com/politecrawl/politecrawl/frontier/scope"

// hostScope is a scope of exact hosts, as scope.hosts lists them.
func hostScope(hosts []string) (*scope.Scope, error) {
	return scope.Compile(scope.Config{Hosts: hosts})
}
