package contentuse

import (
	"strings"
	"testing"
)

func TestCombine(t *testing.T) {
	robots := ParseContentSignal("search=yes, ai-train=no", "robots.txt line 2: Content-Signal")
	usage := ParseContentUsage("bots=y, train-ai=y, x-new=n", "header Content-Usage")
	tdm := ParseTDM("1", "", "header tdm-reservation")
	noai := FromDirectives([]string{"noimageai"}, "meta robots")
	u := Combine([]Statement{robots, usage, tdm, noai})
	for _, tc := range []struct {
		use    string
		want   Value
		source string
	}{
		{Bots, Yes, "header Content-Usage"},
		{Search, Yes, "robots.txt line 2: Content-Signal"}, // first yes is the source
		{TDM, No, "header tdm-reservation"},
		{AIInput, No, "header tdm-reservation"},            // through its parent, tdm
		{AITrain, No, "robots.txt line 2: Content-Signal"}, // any no wins over the header's yes
		{AITrainGenAI, No, "robots.txt line 2: Content-Signal"},
		{AITrainImages, No, "robots.txt line 2: Content-Signal"},
		{"x-new", No, "header Content-Usage"}, // unknown label kept
	} {
		if got := u[tc.use]; got.Value != tc.want || got.Source != tc.source {
			t.Errorf("%s = %v (%s), want %v (%s)", tc.use, got.Value, got.Source, tc.want, tc.source)
		}
	}
	if none := Combine(nil); len(none) != len(Known) || none[Search].Value != Unspecified {
		t.Errorf("Combine(nil) = %v, want every known use unspecified", none)
	}
	// A child's own preference beats its parent's within one statement.
	u = Combine([]Statement{ParseContentUsage("bots=n, search=y", "h")})
	if u[Search].Value != Yes || u[AITrain].Value != No {
		t.Errorf("bots=n, search=y: search %v ai-train %v, want yes no", u[Search].Value, u[AITrain].Value)
	}
}

func TestRefuses(t *testing.T) {
	u := Combine([]Statement{
		ParseContentSignal("search=yes, ai-train=no", "robots.txt line 3: Content-Signal"),
		FromDirectives([]string{"noimageai"}, "X-Robots-Tag"),
	})
	for _, tc := range []struct {
		purpose string
		image   bool
		refused bool
		use     string
	}{
		{"", false, false, ""},
		{Archive, false, false, ""},
		{Search, false, false, ""},
		{AIInput, false, false, ""},
		{AITrain, false, true, AITrain},
		{AITrainGenAI, false, true, AITrainGenAI},
		{AITrain, true, true, AITrainImages},
		{TDM, false, false, ""},
	} {
		r, refused := u.Refuses(tc.purpose, tc.image)
		if refused != tc.refused || r.Use != tc.use {
			t.Errorf("Refuses(%q, image %v) = %v %+v, want %v %s", tc.purpose, tc.image, refused, r, tc.refused, tc.use)
		}
	}
	r, _ := u.Refuses(AITrain, false)
	if want := "content-use: ai-train=no (robots.txt line 3: Content-Signal) refuses purpose ai-train"; r.String() != want {
		t.Errorf("Refusal = %q, want %q", r, want)
	}
}

func TestCheckPurpose(t *testing.T) {
	for _, p := range append([]string{""}, Purposes...) {
		if err := CheckPurpose(p); err != nil {
			t.Errorf("CheckPurpose(%q) = %v", p, err)
		}
	}
	err := CheckPurpose("ai_train")
	if err == nil || !strings.Contains(err.Error(), "ai-train") || !strings.Contains(err.Error(), "archive") {
		t.Errorf("CheckPurpose(ai_train) = %v, want an error naming the known purposes", err)
	}
}

func TestUsesString(t *testing.T) {
	u := Combine([]Statement{ParseContentSignal("search=yes", "s")})
	if got, want := u.String(), "search=yes (s)"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}
