//go:build !unix && !windows

package cli

import "errors"

// freeBytes is unknown on this platform.
func freeBytes(string) (uint64, error) {
	return 0, errors.New("free space is not known on this platform")
}
