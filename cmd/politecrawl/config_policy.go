package main

import (
	"fmt"

	"github.com/politecrawl/politecrawl/crawler/contentuse"
)

// policyConfig is the policy section of the config file: what the crawl
// declares about itself to the sites it reads.
type policyConfig struct {
	// Purpose is what the crawl's content is for (see contentuse.Purposes);
	// "" declares none, and the content-use signals are only recorded.
	Purpose string `mapstructure:"purpose"`
}

func init() { defaults["policy.purpose"] = "" }

func (p policyConfig) validate() []error {
	if err := contentuse.CheckPurpose(p.Purpose); err != nil {
		return []error{fmt.Errorf("policy.purpose: %w", err)}
	}
	return nil
}
