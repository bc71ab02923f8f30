package contentuse

import "strings"

// ietfLabels maps the IETF vocabulary's labels, in the drafts seen so far,
// to normalised uses. "all" was the Automated Processing label before
// "bots"; "ai-use" and "ai-output" name use in AI outputs, which is
// closest to Cloudflare's ai-input.
var ietfLabels = map[string]string{
	"bots":        Bots,
	"all":         Bots,
	"train-ai":    AITrain,
	"train-genai": AITrainGenAI,
	"search":      Search,
	"ai-use":      AIInput,
	"ai-output":   AIInput,
}

// ParseContentUsage reads an IETF AI Preferences expression (a Content-Usage
// header or robots.txt rule value): a Structured Fields dictionary whose
// keys are labels and whose Token values y and n allow and disallow. Other
// values, parameters and unknown labels state nothing for the vocabulary;
// unknown labels with y or n are kept under their label. A dictionary that
// does not parse (uppercase keys included: the format is case-sensitive)
// states nothing at all.
func ParseContentUsage(expr, source string) Statement {
	s := Statement{Source: source}
	members, ok := parseDict(expr)
	if !ok {
		return s
	}
	for _, m := range members {
		v := Unspecified
		switch m.token {
		case "y":
			v = Yes
		case "n":
			v = No
		}
		if v == Unspecified {
			continue
		}
		use, known := ietfLabels[m.key]
		if !known {
			use = m.key
		}
		s.set(use, v)
	}
	return s
}

// signalLabels maps Cloudflare's Content Signals to normalised uses.
var signalLabels = map[string]string{
	"search":   Search,
	"ai-train": AITrain,
	"ai-input": AIInput,
}

// maxSignalLen bounds a Content-Signal value read; longer ones are cut.
const maxSignalLen = 4 << 10

// ParseContentSignal reads a Cloudflare Content-Signal value:
// comma-separated "name=yes|no" pairs. Names and values are compared
// ignoring case and surrounding white space; an item without "=" or with
// another value states nothing and the other items still count. Unknown
// names with yes or no are kept under their name in lower case.
func ParseContentSignal(value, source string) Statement {
	s := Statement{Source: source}
	if len(value) > maxSignalLen {
		value = value[:maxSignalLen]
	}
	for _, item := range strings.Split(value, ",") {
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			continue
		}
		name = strings.ToLower(strings.TrimSpace(name))
		var v Value
		switch strings.ToLower(strings.TrimSpace(val)) {
		case "yes":
			v = Yes
		case "no":
			v = No
		default:
			continue
		}
		if name == "" || strings.ContainsAny(name, " \t") {
			continue
		}
		use, known := signalLabels[name]
		if !known {
			use = name
		}
		s.set(use, v)
	}
	return s
}

// ParseTDM reads a TDMRep tdm-reservation value (header or meta tag): "1"
// reserves text and data mining rights (tdm=no), "0" does not (tdm=yes);
// anything else states nothing. policy, the tdm-policy value if any, is
// added to the source so that the export shows where to ask.
func ParseTDM(reservation, policy, source string) Statement {
	s := Statement{Source: source}
	switch strings.TrimSpace(reservation) {
	case "1":
		s.set(TDM, No)
	case "0":
		s.set(TDM, Yes)
	default:
		return s
	}
	if p := strings.TrimSpace(policy); p != "" && len(p) <= 2048 {
		s.Source += " (tdm-policy " + p + ")"
	}
	return s
}

// FromDirectives reads the robots directives of a page (meta robots and
// X-Robots-Tag, lower-cased, as the extractor gives them): noai says no to
// AI training, noimageai to AI training on the page's images. Other
// directives state nothing.
func FromDirectives(directives []string, source string) Statement {
	s := Statement{Source: source}
	for _, d := range directives {
		switch d {
		case "noai":
			s.set(AITrain, No)
		case "noimageai":
			s.set(AITrainImages, No)
		}
	}
	return s
}
