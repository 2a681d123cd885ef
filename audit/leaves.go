package audit

import (
	"encoding/hex"
	"runtime"
	"sync"
)

// Verifying a log recomputes every record's leaf hash, which is most of
// the work, and each is independent of the others: they are computed on
// every core, into one slab of memory, and the chain is then walked in
// order over the results.

// parallelMin is the batch below which hashing stays on one goroutine.
const parallelMin = 2048

// leafHashes computes the leaf hash of each of n records (fields gives
// record i's fields) into a slab, returned as one slice per record.
func leafHashes(n int, fields func(i int) ActionFields) [][]byte {
	slab := make([]byte, n*32)
	out := make([][]byte, n)
	for i := range out {
		out[i] = slab[i*32 : (i+1)*32 : (i+1)*32]
	}
	work := func(from, to int) {
		var h [32]byte
		for i := from; i < to; i++ {
			f := fields(i)
			f.LeafHash(&h)
			copy(out[i], h[:])
		}
	}
	workers := runtime.GOMAXPROCS(0)
	if n < parallelMin || workers == 1 {
		work(0, n)
		return out
	}
	var wg sync.WaitGroup
	chunk := (n + workers - 1) / workers
	for from := 0; from < n; from += chunk {
		wg.Add(1)
		go func(from, to int) {
			defer wg.Done()
			work(from, to)
		}(from, min(from+chunk, n))
	}
	wg.Wait()
	return out
}

// addLeaf checks the next action of the log, whose leaf hash (as its
// content gives it) is leaf, against the hash stored with it.
func (v *Verifier) addLeaf(f *ActionFields, stored string, leaf []byte) {
	var buf [64]byte
	hex.Encode(buf[:], leaf)
	computed := stored // the usual case, without a string made for it
	if string(buf[:]) != stored {
		computed = string(buf[:])
	}
	v.Add(Link{Position: f.Position, Stored: stored, PreviousHash: f.PreviousHash, Computed: computed})
}
