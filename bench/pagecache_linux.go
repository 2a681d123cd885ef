//go:build linux

package bench

import (
	"os"

	"golang.org/x/sys/unix"
)

// dropCached asks the kernel to drop the file's pages from the page cache
// (pages a process maps stay).
func dropCached(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED)
}
