package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// A page can make Chromium open a connection, or look a name up, without
// sending any request: <link rel=preconnect>, <link rel=dns-prefetch>,
// and Chromium's own guesses of where a page goes next (speculative
// preconnects, prefetches and prerenders of speculation rules). The
// Fetch domain never sees them, so a host name carrying the person's data
// (jordan-lee-example-com.attacker.example) would reach a DNS server and
// the host. No switch turns this off; the profile's preference for
// network prediction does ("never predict"), for every tab: a launched
// browser's profile has it set before Chromium starts. The person's own
// tabs lose the few milliseconds a guess saves them.

// noPrediction is Chromium's value of net.network_prediction_options
// that predicts nothing.
const noPrediction = 2

// stopPrediction sets "never predict network actions" in the preferences
// of the profile in dir (a user data directory), keeping every other
// preference there.
func stopPrediction(dir string) error {
	path := filepath.Join(dir, "Default", "Preferences")
	prefs := map[string]any{}
	b, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
	case err != nil:
		return fmt.Errorf("network prediction: %w", err)
	default:
		if err := json.Unmarshal(b, &prefs); err != nil {
			return fmt.Errorf("network prediction: %s is not JSON: %w", path, err)
		}
	}
	netPrefs, _ := prefs["net"].(map[string]any)
	if netPrefs == nil {
		netPrefs = map[string]any{}
	}
	if v, ok := netPrefs["network_prediction_options"].(float64); ok && v == noPrediction {
		return nil
	}
	netPrefs["network_prediction_options"] = noPrediction
	prefs["net"] = netPrefs
	out, err := json.Marshal(prefs)
	if err != nil {
		return fmt.Errorf("network prediction: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("network prediction: %w", err)
	}
	// Written aside and renamed, so a crash leaves the old file whole.
	tmp := path + ".vroom"
	if err := os.WriteFile(tmp, out, 0o600); err != nil {
		return fmt.Errorf("network prediction: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("network prediction: %w", err)
	}
	return nil
}
