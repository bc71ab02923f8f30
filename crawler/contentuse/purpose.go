package contentuse

import (
	"fmt"
	"strings"
)

// Archive is the purpose of an archiving crawl: see doc.go's caveats.
const Archive = "archive"

// Purposes lists the purposes a crawl may declare (policy.purpose); ""
// declares none.
var Purposes = []string{Archive, Search, AIInput, AITrain, AITrainGenAI, TDM, Bots}

// CheckPurpose returns an error naming the known purposes when p is not
// one of them (or ""). An unknown purpose is an error rather than a free
// label: a misspelt "ai_train" would otherwise honour nothing, silently.
func CheckPurpose(p string) error {
	if p == "" || contains(Purposes, p) {
		return nil
	}
	return fmt.Errorf("unknown purpose %q: one of %s, or empty for none", p, strings.Join(Purposes, ", "))
}

// Refusal is why a declared purpose may not use a URL or a response.
type Refusal struct {
	Purpose string
	Use     string // the use whose no refused it
	Source  string
}

func (r Refusal) String() string {
	return fmt.Sprintf("content-use: %s=no (%s) refuses purpose %s", r.Use, r.Source, r.Purpose)
}

// Refuses reports whether u says no to purpose. image says the response
// is an image: then a no to ai-train-images (noimageai) refuses ai-train
// too. The archive purpose and "" are refused by nothing.
func (u Uses) Refuses(purpose string, image bool) (Refusal, bool) {
	if purpose == "" || purpose == Archive {
		return Refusal{}, false
	}
	use := purpose
	if image && (purpose == AITrain || purpose == AITrainGenAI) {
		if x := u[AITrainImages]; x.Value == No {
			return Refusal{purpose, AITrainImages, x.Source}, true
		}
	}
	if x := u[use]; x.Value == No {
		return Refusal{purpose, use, x.Source}, true
	}
	return Refusal{}, false
}
