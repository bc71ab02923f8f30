// Package archivetest checks WARC files with an independent reader,
// Webrecorder's warcio.js, for tests (like net/http/httptest). It needs
// Node and the warcio package pinned in its folder warcio/ (package.json
// and package-lock.json; make deps installs it under warcio/node_modules).
// Without them its helpers skip the test, except under CI=true, where
// they fail it: CI must never pass by not checking.
package archivetest
