// Package archive writes the crawl's WARC 1.1 files (ISO 28500:2017): the
// records, their digests, file rotation, recovery after a crash, and the
// CDXJ index that pywb reads.
//
// # Basics
//
// A Writer owns a directory. Open recovers whatever a killed process left
// there, then the first Write starts a file named
// PREFIX-TIMESTAMP-SERIAL-HOST.warc.gz (the IIPC naming guideline) under
// the temporary name ….warc.gz.open, beginning with a warcinfo record.
// SERIAL continues from the highest already in the directory for PREFIX,
// so the files of successive runs make one sequence.
// Write takes one Exchange (the raw request and response bytes of one HTTP
// request, as fetch captured them at the connection) and appends its
// records in order: request, then response (or revisit), then metadata,
// all in the same file, each a gzip member of its own when Compress is
// set. When a file reaches MaxSize the next Write closes it (fsync,
// rename to drop .open, and its CDXJ index written beside it as
// NAME.cdxj) and starts the next. Index and Files read closed files back.
//
// Sync makes everything written so far durable. The crawler calls it
// before the state-file commit that records the URLs whose records were
// written, so a URL recorded as fetched always has its records on disk.
//
// Revisits: a 304 answer is a revisit record with the server-not-modified
// profile; a payload whose digest was archived before (the Writer keeps a
// digest index, which the caller persists and reloads with Remember) is a
// revisit with the identical-payload-digest profile, referring to the
// first capture. Empty and truncated payloads are never deduplicated.
//
// Digests are SHA-1 in base32 ("sha1:…"), as other WARC tools write
// them. The payload digest is over the entity body: the bytes after the
// HTTP headers with the chunked transfer coding removed and any
// Content-Encoding kept; the record block itself keeps the chunk framing
// as it came off the wire.
//
// # Caveats
//
// A Writer is safe for concurrent use: Write, Sync and Close serialise on
// one mutex, so the records of one exchange are never interleaved with
// another's. Recovery (Open, Recover) must not run while another process
// writes the same directory.
package archive
