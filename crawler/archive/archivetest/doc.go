// Package archivetest checks WARC files with an independent reader,
// Webrecorder's warcio.js, for tests (like net/http/httptest). It needs
// Node and the warcio package pinned in tools/warcio (make deps installs
// both). Without them its helpers skip the test, except under CI=true,
// where they fail it: CI must never pass by not checking.
package archivetest
