package cluster

import "encoding/json"

// stamp is the value a node writes into its lease and member keys: who it is
// and which run of it (a restarted node is a new session).
type stamp struct {
	Node    string `json:"node"`
	Session string `json:"session"`
}

func parseStamp(b []byte) stamp {
	var s stamp
	_ = json.Unmarshal(b, &s) // a foreign value parses as the zero stamp
	return s
}
