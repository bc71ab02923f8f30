package contentuse

import (
	"fmt"
	"sort"
	"strings"
)

// Value is a preference about one use. The zero value is Unspecified.
type Value uint8

const (
	Unspecified Value = iota
	Yes
	No
)

func (v Value) String() string {
	switch v {
	case Yes:
		return "yes"
	case No:
		return "no"
	}
	return "unspecified"
}

// The normalised uses. See the tree in doc.go.
const (
	Bots          = "bots"
	Search        = "search"
	TDM           = "tdm"
	AIInput       = "ai-input"
	AITrain       = "ai-train"
	AITrainGenAI  = "ai-train-genai"
	AITrainImages = "ai-train-images"
)

// parent is the use each use is a proper subset of; "" for the root.
// ai-train-images has ai-train as parent: a no to ai-train covers images.
var parent = map[string]string{
	Bots:          "",
	Search:        Bots,
	TDM:           Bots,
	AIInput:       TDM,
	AITrain:       TDM,
	AITrainGenAI:  AITrain,
	AITrainImages: AITrain,
}

// Known lists the normalised uses, in a fixed order: every one is present
// in what Combine returns.
var Known = []string{Bots, Search, TDM, AIInput, AITrain, AITrainGenAI, AITrainImages}

// Statement is one preference expression as read from one place: a
// robots.txt line, a header, a meta tag, a tdmrep.json rule.
type Statement struct {
	// Source says where it was read: "robots.txt line 4: Content-Signal",
	// "header Content-Usage", "meta tdm-reservation", "tdmrep.json rule 2".
	Source string
	// Prefs are the preferences it states, by normalised use, or by label
	// as written for labels no vocabulary here defines.
	Prefs map[string]Value
}

func (s *Statement) set(use string, v Value) {
	if s.Prefs == nil {
		s.Prefs = map[string]Value{}
	}
	s.Prefs[use] = v
}

// Empty reports whether s states nothing.
func (s Statement) Empty() bool { return len(s.Prefs) == 0 }

// lookup is s's preference for use: its own, else its parent's (draft
// section 5: a more specific category takes the general one's
// preference when it has none of its own).
func (s Statement) lookup(use string) Value {
	for u := use; ; {
		if v := s.Prefs[u]; v != Unspecified {
			return v
		}
		p, known := parent[u]
		if !known || p == "" {
			return Unspecified
		}
		u = p
	}
}

// Use is the combined preference about one use and the source of the
// statement that decided it ("" when unspecified).
type Use struct {
	Value  Value
	Source string
}

// Uses are the combined preferences of a URL or response: every Known use,
// plus any unknown label some statement gave.
type Uses map[string]Use

// Combine applies every statement to every use: any no wins, then any
// yes; the first statement (in the order given) with the deciding value
// is the source.
func Combine(stmts []Statement) Uses {
	out := Uses{}
	names := append([]string(nil), Known...)
	for _, s := range stmts {
		for l := range s.Prefs {
			if _, known := parent[l]; !known && !contains(names, l) {
				names = append(names, l)
			}
		}
	}
	for _, use := range names {
		var u Use
		for _, s := range stmts {
			v := s.lookup(use)
			if v == No {
				u = Use{No, s.Source}
				break
			}
			if v == Yes && u.Value == Unspecified {
				u = Use{Yes, s.Source}
			}
		}
		out[use] = u
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// String lists the uses that have a preference, sorted: "ai-train=no
// (robots.txt line 3: Content-Signal); search=yes (...)". "" when none has.
func (u Uses) String() string {
	var parts []string
	for _, name := range u.names() {
		if x := u[name]; x.Value != Unspecified {
			parts = append(parts, fmt.Sprintf("%s=%s (%s)", name, x.Value, x.Source))
		}
	}
	return strings.Join(parts, "; ")
}

func (u Uses) names() []string {
	names := make([]string, 0, len(u))
	for n := range u {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
