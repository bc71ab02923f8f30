package storage

// ForEachURLAfter calls fn for up to limit URL records in key order,
// starting after the key after ("" for the first). It returns the last key
// visited and whether records remain. Reading a large file in such pages,
// each in its own short transaction, lets a running crawl keep writing
// (a long read transaction would hold back bbolt's file growth).
func (t *Tx) ForEachURLAfter(after string, limit int, fn func(r *URLRecord) error) (last string, more bool, err error) {
	c := t.b(bucketURLs).Cursor()
	var k, v []byte
	if after == "" {
		k, v = c.First()
	} else {
		k, v = c.Seek([]byte(after))
		if k != nil && string(k) == after {
			k, v = c.Next()
		}
	}
	for n := 0; k != nil; k, v = c.Next() {
		if n == limit {
			return last, true, nil
		}
		r, err := t.decodeURL(k, v)
		if err != nil {
			return last, false, err
		}
		if err := fn(r); err != nil {
			return last, false, err
		}
		last = string(k)
		n++
	}
	return last, false, nil
}

// ForEachURLWithPrefix calls fn for every URL record whose URL starts with
// prefix (such as an origin's "https://host/"), in key order. fn must not
// write to the URL bucket while it runs; collect and write afterwards.
func (t *Tx) ForEachURLWithPrefix(prefix string, fn func(r *URLRecord) error) error {
	c := t.b(bucketURLs).Cursor()
	p := []byte(prefix)
	for k, v := c.Seek(p); k != nil && len(k) >= len(p) && string(k[:len(p)]) == prefix; k, v = c.Next() {
		r, err := t.decodeURL(k, v)
		if err != nil {
			return err
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	return nil
}
