package extract

// distinct holds strings in the order added, each once. While it holds
// few it finds a repeat by scanning them: most pages have a few dozen
// links, and a map per page (two, with the resolved links) cost more
// allocations than the rest of a small page's links did. Past
// distinctScan strings it indexes them in a map. The zero value is empty
// and ready to use.
type distinct struct {
	items []string
	index map[string]struct{} // nil until items outgrows distinctScan
}

// distinctScan is how many strings distinct scans before it keeps a map.
const distinctScan = 32

func (d *distinct) has(s string) bool {
	if d.index != nil {
		_, ok := d.index[s]
		return ok
	}
	for _, x := range d.items {
		if x == s {
			return true
		}
	}
	return false
}

// add appends s, which must not be held already (see has).
func (d *distinct) add(s string) {
	d.items = append(d.items, s)
	switch {
	case d.index != nil:
		d.index[s] = struct{}{}
	case len(d.items) > distinctScan:
		d.index = make(map[string]struct{}, 2*len(d.items))
		for _, x := range d.items {
			d.index[x] = struct{}{}
		}
	}
}
