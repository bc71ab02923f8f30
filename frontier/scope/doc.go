// Package scope owns the crawl's scope rules: which URLs a crawl may
// fetch, and which config rule says so. It is compiled once from the
// config's scope section (Compile) and asked one question per URL
// (Decide), at admission and again when a queued URL comes up for a
// request.
//
// # Rules
//
// A URL is in scope when an include rule matches it and no exclude rule
// does (a union of includes, minus excludes):
//
//   - scope.hosts: exact authorities (host, or host:port); a host without
//     a port admits every port.
//   - scope.domains: a domain and all its subdomains, any scheme and port.
//   - scope.prefixes: URL prefixes ("https://docs.example.org/guide/") or
//     SURT prefixes as web archivists write them
//     ("http://(org,example,docs,)/guide/" is the same prefix;
//     "http://(org,example," is the domain example.org with its
//     subdomains).
//   - scope.seed_prefix: everything under each seed's own path (the seed
//     up to the last '/' of its path).
//   - With none of the above, the seeds' hosts, as scope.hosts would list
//     them.
//
// Excludes, checked after includes: scope.exclude (URL or SURT prefixes),
// scope.exclude_patterns (RE2 over the normal URL: linear time, no
// catastrophic backtracking) and scope.skip_extensions (the last path
// segment's extension, case-insensitive).
//
// # Cost
//
// Decide does not loop over rules: hosts are one map lookup, domains one
// lookup per label of the host, prefixes a binary search in a sorted table
// followed up a chain of nested prefixes, extensions one lookup. None of
// these allocate. Exclude patterns are prefiltered: each yields, where its
// syntax allows, literals one of which any match contains, and one
// Aho-Corasick pass over the URL picks the patterns worth running. A
// pattern with no such literal (`^https://[^/]+/\d+$`) runs on every URL
// that the includes admit. BenchmarkScope1000Rules measures it.
//
// # Caveats
//
// A Scope is immutable once compiled and safe for concurrent use. Decide
// expects a URL in urlnorm's normal form; anything else is decided by its
// text as given. The file:line of each rule comes from Config.Where; this
// package reads no file.
package scope
