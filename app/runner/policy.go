package runner

import (
	"net/url"
	"slices"

	"vroom/agents"
)

// runPolicy is the safety policy a run gets, whichever face starts it:
// the Settings' navigation (allowed and blocked hosts, asking before
// leaving the run's sites) under the face's own (vroom run's flags), with
// the run's first sites — the hosts the task names and the attached tabs'
// origins — and the API key, which never leaves the sites without the
// person.
func runPolicy(spec RunSpec, key string) agents.Policy {
	p := spec.Policy
	nav := spec.Settings.Navigation
	p.Allow = append(slices.Clone(nav.AllowedHosts), p.Allow...)
	p.Block = append(slices.Clone(nav.BlockedHosts), p.Block...)
	p.ConfirmLeaveOrigin = p.ConfirmLeaveOrigin || nav.AskBeforeLeaving
	p.Sites = append(slices.Clone(p.Sites), agents.HostsNamed(spec.Task)...)
	if spec.Browser != nil {
		for _, id := range spec.Tabs {
			t, err := spec.Browser.Tab(id)
			if err != nil {
				continue // the run reports a tab it cannot have when it spawns there
			}
			if u, err := url.Parse(t.Info().URL); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
				p.Sites = append(p.Sites, u.Host)
			}
		}
	}
	if key != "" {
		p.Secrets = append(slices.Clone(p.Secrets), key)
	}
	return p
}
