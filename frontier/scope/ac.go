package scope

// acMachine is an Aho-Corasick automaton over lower-cased bytes, built
// into a full transition table over byte classes (the bytes the literals
// use, and one class for every other byte): a scan is one table lookup
// per byte of input and allocates nothing.
type acMachine struct {
	class   [256]uint8 // byte (lower-cased) -> class; 0 is "no literal uses it"
	nclass  int
	next    []int32 // state*nclass + class -> state
	outputs [][]int // state -> patterns whose literal ends here (its suffixes' included)
}

func newACMachine(lits []string, owner []int) acMachine {
	var m acMachine
	m.nclass = 1
	for _, l := range lits {
		for i := 0; i < len(l); i++ {
			if m.class[l[i]] == 0 && m.nclass < 255 {
				m.class[l[i]] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	// The trie: goto edges, -1 where none.
	edge := [][]int32{newRow(m.nclass)}
	m.outputs = [][]int{nil}
	for k, l := range lits {
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := m.class[l[i]]
			if edge[s][c] < 0 {
				edge = append(edge, newRow(m.nclass))
				m.outputs = append(m.outputs, nil)
				edge[s][c] = int32(len(edge) - 1)
			}
			s = edge[s][c]
		}
		m.outputs[s] = append(m.outputs[s], owner[k])
	}
	m.build(edge)
	return m
}

func newRow(n int) []int32 {
	r := make([]int32, n)
	for i := range r {
		r[i] = -1
	}
	return r
}

// build turns the trie into the full table, breadth first, with failure
// links folded in.
func (m *acMachine) build(edge [][]int32) {
	n := len(edge)
	m.next = make([]int32, n*m.nclass)
	fail := make([]int32, n)
	queue := make([]int32, 0, n)
	for c := 0; c < m.nclass; c++ {
		if t := edge[0][c]; t >= 0 {
			m.next[c] = t
			queue = append(queue, t)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		m.outputs[s] = append(m.outputs[s], m.outputs[fail[s]]...)
		for c := 0; c < m.nclass; c++ {
			t := edge[s][c]
			if t < 0 {
				m.next[int(s)*m.nclass+c] = m.next[int(fail[s])*m.nclass+c]
				continue
			}
			m.next[int(s)*m.nclass+c] = t
			fail[t] = m.next[int(fail[s])*m.nclass+c]
			queue = append(queue, t)
		}
	}
}

// scan sets in cand the bit of every pattern one of whose literals occurs
// in s (compared in lower case). It reports false, having stopped, at a
// byte past ASCII: Unicode case folding (K, the Kelvin sign, matches k
// under (?i)) is more than lower-casing bytes, so every pattern must run.
// Normal URLs are ASCII.
func (m *acMachine) scan(s string, cand []uint64) bool {
	if len(m.next) == 0 {
		return true
	}
	st := int32(0)
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b >= 0x80 {
			return false
		}
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		st = m.next[int(st)*m.nclass+int(m.class[b])]
		for _, p := range m.outputs[st] {
			cand[p/64] |= 1 << (p % 64)
		}
	}
	return true
}
