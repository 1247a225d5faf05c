package apptest

import "github.com/zalando/go-keyring"

// Keyring is an in-memory store for tests of code around the keyring.
type Keyring map[string]string

// Get reads a secret; an absent one is keyring.ErrNotFound, as the OS
// keyring says.
func (m Keyring) Get(s, u string) (string, error) {
	if v, ok := m[s+"/"+u]; ok {
		return v, nil
	}
	return "", keyring.ErrNotFound
}

// Set stores a secret.
func (m Keyring) Set(s, u, p string) error { m[s+"/"+u] = p; return nil }

// Delete removes a secret.
func (m Keyring) Delete(s, u string) error { delete(m, s+"/"+u); return nil }
